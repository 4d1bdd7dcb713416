"""What generation found of a function's annotations, as the case data records it: each
postcondition, test case, assert and `modifies` clause with its verdict (violated by a case,
proved within the bounds, or unreachable test case)."""
from __future__ import annotations

from collections.abc import Callable

from ..cases import Contract, ContractCheck, Violation
from ..errors import SourceLocation
from ..frontend.ctype import declaration_of
from ..ir.spec import FunctionContract


def summarize_contract(contract: FunctionContract, at: Callable[[SourceLocation], str], *,
                       proved: bool, violated: set[Violation], unreachable_testcases: set[int],
                       unmodified: tuple[str, ...], function_at: str, bounds: str
                       ) -> Contract:
    """The checks of `contract` with their verdicts: `violated` are what the cases show
    violated, `proved` whether every path within the bounds was explored (what nothing
    violated then holds); `at` names a source location as cases do."""
    violated_at = {(v.kind, v.at) for v in violated}

    def verdict(kind: str, where: str) -> str:
        if (kind, where) in violated_at:
            return "violated"
        return "holds" if proved else ""

    initial_index = {id(var): k for k, (var, _, _) in enumerate(contract.initials)}
    checks = [ContractCheck("postcondition", c.check_text, c.text, at(c.location),
                            verdict=verdict("postcondition", at(c.location)))
              for c in contract.postconditions]
    for i, tc in enumerate(contract.testcases):
        where = at(tc.location)
        checks.append(ContractCheck(
            "testcase", tc.post.check_text, tc.post.text, where,
            pre=f"ctgen_initial_{initial_index[id(tc.entered)]}", pre_text=tc.pre.text,
            requirements=tc.requirements,
            verdict="unreachable" if i in unreachable_testcases
            else verdict("testcase", where)))
    checks += [ContractCheck("assert", "", c.text, at(c.location),
                             verdict=verdict("assert", at(c.location)))
               for c in contract.asserts]
    if contract.modifies is not None:
        checks.append(ContractCheck(
            "modifies", "", ", ".join(contract.modifies) or "nothing", function_at,
            verdict="violated" if any(v.kind == "modifies" for v in violated)
            else "holds" if proved else ""))
    return Contract(
        checks=tuple(checks),
        initials=tuple((declaration_of(var.type), text)
                       for var, _, text in contract.initials),
        aux=tuple((v.name, declaration_of(v.type)) for v in contract.aux),
        modifies=contract.modifies, unmodified=unmodified, bounds=bounds)
