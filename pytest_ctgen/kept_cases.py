"""The cases a function's generation found so far, kept should it be stopped before it ends
(the memory limit, the hard time stop): the generator reports each case as it is made
(`FoundCase`), and a stopped function keeps them all, with the callbacks they name and the
function's annotations as the harness checks them."""
from __future__ import annotations

from dataclasses import dataclass, replace

from .cases import Case, Contract, FunctionCases, StubPrototype


@dataclass(frozen=True)
class FoundCase:
    """One case the generation of a function made, as it made it (numbered in turn, as in
    the function's result), with the callbacks its inputs name that no case before it
    named, and the function's annotations as the cases so far decide them when they
    changed (None: as before, or none)."""

    case: Case
    callbacks: tuple[StubPrototype, ...] = ()
    contract: Contract | None = None


class KeptCases:
    """The cases of one function found so far, from its FoundCase reports."""

    def __init__(self) -> None:
        self.cases: list[Case] = []
        self.callbacks: dict[str, StubPrototype] = {}
        self.contract: Contract | None = None

    def add(self, found: FoundCase) -> None:
        self.cases.append(found.case)
        self.callbacks.update((c.name, c) for c in found.callbacks)
        if found.contract is not None:
            self.contract = found.contract

    def result(self, stopped: FunctionCases, stop: str) -> FunctionCases:
        """`stopped` (the function with no case, every outcome not reached) with the cases
        kept, stopped for `stop`: the outcomes they cover are reached, no other is."""
        covered = {o for c in self.cases for o in c.covered}
        return replace(
            stopped, cases=tuple(self.cases), stop_reason=stop,
            not_reached=tuple(o for o in stopped.not_reached if o not in covered),
            contract=self.contract if self.cases else stopped.contract,
            callbacks=tuple(self.callbacks[name] for name in sorted(self.callbacks)))
