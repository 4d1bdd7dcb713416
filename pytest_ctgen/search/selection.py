"""Path selection in the symbolic test case tree: the goals (the uncovered branch outcomes of
the function under test) and how the open edges of the tree are ranked by them.

An uncovered outcome that is open in the tree goes first, nearest the function's entry
first; then the open edges nearest a goal; inside a called function, the edges nearest a
return no path has taken yet (new return values are what the caller's goals may need).
Decisions that contradicted a goal (a cheap unsat core) get their other edges boosted."""
from __future__ import annotations

from ..ir.cfg import CFG, Edge, Return
from ..symbolic.solver import SAT, Solver
from ..symbolic.state import State
from ..symbolic.work import RANK_STEP
from .callee_goals import CalleeGoals
from .mcdc_goals import McdcGoals
from .options import Criterion
from .statement_goals import StatementGoals
from .tree import OPEN, TreeNode

_QUICK_GOALS = 4  # uncovered outcomes tried with the cheap check before the first by rank
_FAR = 1 << 20  # a distance longer than any path
#: The priority of an edge: smaller first.
Rank = tuple[int, ...]


class Goals:
    """The uncovered outcomes of `cfg` and the ranking of open tree edges by them. For
    the statement criterion, the uncovered outcomes are those that lead to a line no case
    ran (search/statement_goals.py); for MC/DC, the evaluations of decisions its cases
    still need come after the outcomes (search/mcdc_goals.py)."""

    def __init__(self, cfg: CFG, criterion: Criterion = "branch",
                 callees: CalleeGoals | None = None) -> None:
        self.cfg = cfg
        # the outcomes of called functions that are goals too (search/callee_goals.py)
        self.callees = callees
        self.order = {e: i for i, e in enumerate(cfg.branch_edges())}
        self.statements = StatementGoals(cfg) if criterion == "statement" else None
        self.uncovered: set[Edge] = \
            self.statements.goal_edges() if self.statements else set(self.order)
        self.mcdc = McdcGoals(cfg) if criterion == "mcdc" else None
        self.entry_distance = cfg.distances_from_entry()
        self.goal_distance: dict[int, int] = cfg.distances_to(self.uncovered)
        self.exit_distance: dict[int, dict[int, int]] = {}
        self.returns_seen: dict[int, set[int]] = {}  # callee CFG id -> return blocks taken
        self.fresh_return_cache: dict[int, tuple[tuple[int, ...], dict[int, int]]] = {}
        self.decisions: dict[int, list[tuple[TreeNode, int]]] = {}  # guard key -> edges taken
        self.boosted: set[tuple[int, int]] = set()  # (id(node), edge) to revisit first

    def covered(self, edges: list[Edge]) -> None:
        """A case covers `edges`."""
        if self.statements is not None:
            self.statements.cover(edges)
            self.uncovered = self.statements.goal_edges()
        else:
            self.uncovered.difference_update(edges)
        if self.mcdc is not None:
            self.mcdc.covered(edges)
        self.goal_distance = self.cfg.distances_to(self.uncovered)

    @property
    def callees_left(self) -> bool:
        """Whether outcomes of called functions that are goals are left."""
        return self.callees is not None and bool(self.callees.uncovered)

    @property
    def targeted(self) -> bool:
        """Whether MC/DC evaluations are looked for."""
        return self.mcdc is not None and bool(self.mcdc.targets)

    @property
    def mcdc_gaps(self) -> bool:
        """Whether a condition is left without a unique-cause pair."""
        return self.mcdc is not None and self.mcdc.gaps

    def exhaust(self) -> bool:
        """No open edge leads to a goal: the MC/DC targets are exhausted; whether there
        are new ones."""
        return self.mcdc is not None and bool(self.mcdc.targets) and self.mcdc.exhaust()

    def forget_tree(self) -> None:
        """The search tree starts anew: what was learnt of its nodes is gone."""
        self.decisions = {}
        self.boosted = set()
        if self.mcdc is not None:
            self.mcdc.forget_tree()

    def is_new_goal(self, node: TreeNode, index: int) -> bool:
        """Whether edge `index` of `node` is an outcome no case and not this path covers."""
        return node.new_goal(index, self.uncovered) or (
            self.callees is not None and self.callees.is_goal(node, index))

    def exit_distances(self, cfg: CFG) -> dict[int, int]:
        key = id(cfg)
        if key not in self.exit_distance:
            self.exit_distance[key] = cfg.distances_to_exit()
        return self.exit_distance[key]

    def edge_rank(self, node: TreeNode, index: int, any_path: bool) -> Rank | None:
        """Priority of exploring edge `index` of `node` (smaller first); None when the edge
        cannot lead to an uncovered outcome (last when `any_path`: in proof mode or before
        a first case)."""
        if self.callees is not None and self.callees.is_goal(node, index):
            return (0, 1 << 29, node.depth)  # after the function's own open outcomes
        rank = self.goal_rank(node, index)
        if rank is None and self.mcdc is not None:
            rank = self.mcdc.rank(node, index)
        if rank is None and (any_path or self.callees_left):
            return (4, node.depth)
        return rank

    def goal_rank(self, node: TreeNode, index: int) -> Rank | None:
        if (id(node), index) in self.boosted:
            return (0, 1 << 30, node.depth)  # after the open goals, before the rest
        if node.choice is not None:
            dist = self.goal_distance.get(node.state.frames[0].block.id)
            if dist is None:
                return None
            if len(node.state.frames) == 1:
                return (1, dist, node.depth)
            return (2, dist, _FAR, node.depth)
        if node.in_function_under_test:
            edge = Edge(node.block.id, index)
            if edge in self.uncovered:
                return (0, self.entry_distance.get(node.block.id, 0), self.order[edge])
            target = self.cfg.edge_target(edge)
            dist = self.goal_distance.get(target.id)
            if dist is None:
                return None
            return (1, dist, node.depth)
        bottom = node.state.frames[0]
        dist = self.goal_distance.get(bottom.block.id)
        if dist is None:
            return None
        return (2, dist, self.fresh_return_distance(node, index), node.depth)

    def fresh_return_distance(self, node: TreeNode, index: int) -> int:
        """Inside a called function: how far edge `index` of `node` is from a return
        statement no path has used yet. Paths that leave the callee in new ways give the
        caller new return values, which its uncovered outcomes may need."""
        cfg = node.state.frame.cfg
        key = id(cfg)
        fresh = [b.id for b in cfg.blocks if isinstance(b.terminator, Return)
                 and b.id not in self.returns_seen.get(key, set())]
        if not fresh:
            return _FAR
        cached = self.fresh_return_cache.get(key)
        if cached is None or cached[0] != tuple(fresh):
            cached = (tuple(fresh), cfg._backwards_from(fresh))
            self.fresh_return_cache[key] = cached
        term = node.block.terminator
        assert term is not None
        return cached[1].get(term.successors()[index].id, _FAR)

    def note_returns(self, state: State) -> None:
        for cfg_id, block in state.callee_returns:
            self.returns_seen.setdefault(cfg_id, set()).add(block)

    def select(self, nodes: list[TreeNode], solver: Solver, any_path: bool
               ) -> tuple[TreeNode, int] | None:
        """The open tree edge to explore next, by rank; among the first few uncovered
        outcomes, one that a cheap check shows feasible goes first, so that proofs of
        infeasibility, which can be slow, come after the outcomes that are easy to cover.
        `nodes` keeps only the nodes that still have open edges, at once: when tree nodes
        are freed decides which ids z3 gives the terms made after, and so the cases."""
        ranked: list[tuple[Rank, int, TreeNode, int]] = []
        alive: list[TreeNode] = []
        open_edges = 0
        for n, node in enumerate(nodes):
            has_open = False
            for i, status in enumerate(node.edges):
                if status != OPEN:
                    continue
                has_open = True
                open_edges += 1
                rank = self.edge_rank(node, i, any_path)
                if rank is not None:
                    ranked.append((rank, n, node, i))
            if has_open:
                alive.append(node)
        nodes[:] = alive  # nodes without open edges are never selected again
        solver.meter.charge(RANK_STEP * open_edges)  # grows with the tree: work to count
        if not ranked:
            return None
        ranked.sort(key=lambda r: (r[0], r[1], r[3]))
        goals = [r for r in ranked if r[0][0] == 0][:_QUICK_GOALS]
        if len(goals) > 1:
            for _, _, node, i in goals:
                guard = node.guards[i]
                if solver.check([*node.state.constraints, guard], quick=True) == SAT:
                    return node, i
        _, _, node, i = ranked[0]
        return node, i

    def continuation_groups(self, node: TreeNode) -> list[list[int]]:
        """The order in which to try the edges of a branch met while completing a path:
        outcomes still uncovered (and not already on this path) first, then the edges
        closest to such an outcome, then the edges closest to the exit; in groups: a
        cheap check picks among the edges of a group (the one the last model takes,
        mostly), never over an earlier group. One group,
        unless the branch tests a lazily made link for NULL: then the edges by their
        distance to an outcome still uncovered, the nearest first. A path that can end
        its list where the outcome left is after the list's loop does, rather than grow
        the list link by link up to the bound as the last model had it."""
        if node.choice is not None:  # its own object first: aliasing only when needed
            return [[i for i, g in enumerate(node.guards) if g is not None]]
        ranked = self._continuation_ranks(node)
        if not any(g is not None and node.state.tests_a_link(g) for g in node.guards):
            return [[i for _, i in ranked]]
        groups: list[list[int]] = []
        last: Rank | None = None
        for rank, i in ranked:
            near = rank[:2] if rank[0] < 2 else rank[:1]  # (2, ...): no goal ahead
            if near != last:
                groups.append([])
                last = near
            groups[-1].append(i)
        return groups

    def _continuation_ranks(self, node: TreeNode) -> list[tuple[Rank, int]]:
        """The edges of a branch (not a choice) with their continuation ranks, sorted."""
        frame = node.state.frame
        exits = self.exit_distances(frame.cfg)
        term = node.block.terminator
        assert term is not None
        succs = term.successors()
        taken = set(node.state.edges)
        goal_distance = self.goal_distance
        if taken & self.uncovered:
            goal_distance = self.cfg.distances_to(self.uncovered - taken)
        ranked: list[tuple[Rank, int]] = []
        for i, g in enumerate(node.guards):
            if g is None:
                continue
            to_exit = exits.get(succs[i].id, _FAR)
            if node.in_function_under_test:
                edge = Edge(node.block.id, i)
                if edge in self.uncovered and edge not in taken:
                    ranked.append(((0, self.order[edge]), i))
                    continue
                dist = goal_distance.get(succs[i].id)
                # toward the MC/DC targets (nothing for the other criteria)
                m = self.mcdc.continuation_key(node, i) if self.mcdc is not None else ()
                ranked.append(((1, dist, *m, to_exit) if dist is not None
                               else (2, *m, to_exit), i))
            elif self.callees is not None and self.callees.is_goal(node, i):
                ranked.append(((0, -1), i))
            else:
                ranked.append(((1, self.fresh_return_distance(node, i), to_exit), i))
        ranked.sort()
        return ranked

    def decided(self, node: TreeNode, index: int, solver: Solver) -> None:
        """Remember that a path took edge `index` of `node`, keyed by its guard."""
        guard = node.guards[index]
        if guard is not None:
            self.decisions.setdefault(solver.key(guard), []).append((node, index))

    def goal_infeasible(self, node: TreeNode, index: int, solver: Solver) -> None:
        """An uncovered outcome is infeasible after this prefix: the earlier decisions that
        contradict it (a cheap unsat core) get their other edges explored first."""
        if not self.is_new_goal(node, index):
            return
        guard = node.guards[index]
        for c in solver.conflict(node.state.constraints, guard):
            for earlier, taken in self.decisions.get(solver.key(c), []):
                for j, status in enumerate(earlier.edges):
                    if j != taken and status == OPEN:
                        self.boosted.add((id(earlier), j))
