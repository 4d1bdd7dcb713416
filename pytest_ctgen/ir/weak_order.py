"""A weak topological order of a CFG's blocks (Bourdoncle, 1993): a numbering in which
every edge leads forward, except the back edges to the head of a cycle, and each cycle's
blocks are numbered together after its head. It orders the paths of a loop unrolled
iteration by iteration: comparing (head, iteration) of the enclosing cycles, outermost
first, then the block's number, follows every path forward (search/merged_search.py)."""
from __future__ import annotations

from dataclasses import dataclass

from .cfg import CFG


@dataclass(frozen=True)
class WeakOrder:
    """`position[b]`: the number of block b; `heads[b]`: the heads of the cycles b lies in,
    outermost first (a head lies in its own cycle). Unreachable blocks have neither."""

    position: dict[int, int]
    heads: dict[int, tuple[int, ...]]


def weak_order(cfg: CFG) -> WeakOrder:
    successors = {b.id: [s.id for s in b.terminator.successors()] if b.terminator else []
                  for b in cfg.blocks}
    order: list[tuple[int, tuple[int, ...]]] = []
    _lay_out(cfg.reachable_from({cfg.entry.id}), [cfg.entry.id], (), successors, order)
    return WeakOrder({block: n for n, (block, _) in enumerate(order)}, dict(order))


def _lay_out(blocks: set[int], entries: list[int], around: tuple[int, ...],
             successors: dict[int, list[int]], order: list[tuple[int, tuple[int, ...]]]
             ) -> None:
    """Append `blocks` (entered at `entries`, inside the cycles of the heads `around`) to
    `order` in weak topological order, with the heads of the cycles each lies in. The
    recursion is as deep as the loops are nested."""
    for component in _components(blocks, entries, successors):
        head = component[0]  # the block of the cycle a path enters first
        if len(component) == 1 and head not in successors[head]:
            order.append((head, around))
            continue
        order.append((head, around + (head,)))
        inner = set(component) - {head}
        if inner:
            starts = [s for s in successors[head] if s in inner]
            _lay_out(inner, starts, around + (head,), successors, order)


def _components(blocks: set[int], entries: list[int], successors: dict[int, list[int]]
                ) -> list[list[int]]:
    """The strongly connected components of the subgraph on `blocks`, in topological
    order, each listed from the block the depth-first search entered it by (Tarjan's
    algorithm, iterative), searching from `entries` first and then from the rest in
    number order."""
    index: dict[int, int] = {}
    low: dict[int, int] = {}
    on_stack: set[int] = set()
    stack: list[int] = []
    found: list[list[int]] = []
    for root in [*entries, *sorted(blocks)]:
        if root in index or root not in blocks:
            continue
        calls: list[tuple[int, int]] = [(root, 0)]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while calls:
            node, next_child = calls[-1]
            children = [s for s in successors[node] if s in blocks]
            if next_child < len(children):
                calls[-1] = (node, next_child + 1)
                child = children[next_child]
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    calls.append((child, 0))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            calls.pop()
            if calls:
                parent = calls[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component: list[int] = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                component.sort(key=lambda b: index[b])  # the entered block first
                found.append(component)
    found.reverse()
    return found
