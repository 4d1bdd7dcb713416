"""One handler per IR node class: the tables by which the executor runs statements,
terminators and expressions (a node of a subclass, such as lowering's `Conditional`, gets
its nearest base class's handler)."""
from __future__ import annotations

from typing import TypeVar

Handler = TypeVar("Handler")


def handler_for(table: dict[type, Handler], node: object) -> Handler | None:
    """The handler of `node` in `table`: of its class, else of its nearest base class
    (remembered in `table`); None when `table` has none."""
    found = table.get(type(node))
    if found is None:
        for base in type(node).__mro__[1:]:
            found = table.get(base)
            if found is not None:
                table[type(node)] = found
                break
    return found
