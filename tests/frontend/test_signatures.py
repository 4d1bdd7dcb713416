"""frontend/signatures.py: a function's signature read from its declaration, as the harness
declares it (the prototype's own spelling, the result, each parameter's kind and bound),
and the signature of a prototype's text read with the unit (callbacks, replays)."""
from __future__ import annotations

from pathlib import Path
from collections.abc import Callable

import pytest

from pytest_ctgen.cases import (
    Case,
    Expected,
    FileCases,
    FunctionCases,
    IntValue,
    Parameter,
    StubPrototype,
    declare,
)
from pytest_ctgen.errors import CtgenError
from pytest_ctgen.frontend.loader import load_unit
from pytest_ctgen.frontend.signatures import UnitSignatures, declared_signatures, \
    with_signatures
from pytest_ctgen.frontend.unit import Unit

SOURCE = r"""#include <stdint.h>
#include <stdarg.h>
enum { N = 4 };
typedef int vec_t[3];
typedef int fn_t(int);
struct cfg { int a; };

int32_t sat_add(int32_t a, int32_t b) { return a + b; }
static inline const char* name_of(int id) { (void)id; return 0; }
char * const *weird(char *const *p, int m[][4], int16_t win[16u], int v[N], int w[4*4],
                    int (*fns[4])(int), vec_t t, register int r);
int (*handler(int id))(int);
int api(const char *name, int values[const 8], int flags, ...);
int unnamed(int, char *);
void vl(int n, const int a[n], va_list ap);
struct cfg mk(void);
int old();
fn_t by_typedef;
"""


@pytest.fixture
def unit(write_c: Callable[[str, str], Path]) -> Unit:
    return load_unit(write_c("sig.c", SOURCE), probe=False)


def test_the_signature_spells_the_prototype(unit: Unit) -> None:
    signatures = UnitSignatures(unit)
    for name, fn in unit.functions.items():
        if name != "by_typedef":  # declared without a function declarator
            assert declare(signatures[name].prototype, name) == fn.prototype, name
    assert signatures["sat_add"].returns == "int32_t @"
    assert signatures["sat_add"].parameter_list() == "int32_t a, int32_t b"
    assert signatures["name_of"].returns == "const char *@"
    assert signatures["weird"].returns == "char * const *@"
    assert signatures["handler"].returns == "int (*@)(int)"
    assert signatures["mk"].returns == "struct cfg @" and not signatures["mk"].params
    assert signatures["vl"].is_void and signatures["vl"].returns is None
    assert signatures["api"].variadic
    assert signatures["api"].parameter_list() == \
        "const char *name, int values[const 8], int flags, ..."
    assert signatures["unnamed"].parameter_list() == "int p0, char *p1"
    assert signatures["old"].prototype == "int @()"


def test_parameters_have_their_kinds_and_bounds(unit: Unit) -> None:
    signatures = UnitSignatures(unit)
    assert [(p.kind, p.bound) for p in signatures["weird"].params] == [
        ("pointer", None), ("array", None), ("array", 16), ("array", 4), ("array", 16),
        ("array", 4), ("array", 3), ("scalar", None)]
    assert signatures["weird"].params[2] == Parameter("win", "int16_t @[16u]", "array", 16)
    assert signatures["weird"].params[7].declaration == "register int @"
    assert [(p.kind, p.bound) for p in signatures["vl"].params] == [
        ("scalar", None), ("array", None), ("va_list", None)]
    assert signatures["api"].params[1].bound == 8
    assert [p.kind for p in signatures["mk"].params] == []


def test_a_function_declared_through_a_typedef_is_spelled_from_its_type(unit: Unit) -> None:
    signature = UnitSignatures(unit)["by_typedef"]
    assert signature.prototype == "int @(int p0)"
    assert signature.returns == "int @" and signature.params[0].kind == "scalar"


def test_a_prototype_is_read_with_the_units_types(unit: Unit) -> None:
    read = declared_signatures(unit, {
        "ctgen_cb_x": "const char *ctgen_cb_x(const void *p0, int (*cmp)(int, int), "
                      "struct cfg c, int32_t q, vec_t v)"})
    signature = read["ctgen_cb_x"]
    assert signature.returns == "const char *@"
    assert [p.kind for p in signature.params] == ["pointer", "function", "record", "scalar",
                                                  "array"]
    assert signature.params[4].bound == 3


@pytest.mark.parametrize("text", [
    "unknown_t ctgen_cb_x(int a)",          # a type the unit does not declare
    "int ctgen_cb_y(int a)",                # another function
    "int (*ctgen_cb_x)(int a)",             # no function
])
def test_a_prototype_that_is_none_in_the_unit_is_refused(unit: Unit, text: str) -> None:
    with pytest.raises(CtgenError, match="cannot read the prototype of ctgen_cb_x"):
        declared_signatures(unit, {"ctgen_cb_x": text})


def test_cases_are_signed_from_the_unit(unit: Unit) -> None:
    case = Case("sat_add", 1, (), (), Expected(IntValue(0)))
    callback = StubPrototype("ctgen_cb_sat", "int ctgen_cb_sat(int32_t v)", callback="f")
    fc = FileCases("sig.c", (
        FunctionCases("sat_add", 1, "int32_t sat_add(int32_t y)", (case,), "exhausted",
                      callbacks=(callback,)),
        FunctionCases("mk", 2, "struct cfg mk(void)", (), "exhausted")),
        (StubPrototype("mk", "struct cfg mk(void)"),
         StubPrototype("gone", "long gone(long x)")))  # not declared by the unit
    signed = with_signatures(fc, unit)
    assert signed.functions[0].signature == UnitSignatures(unit)["sat_add"]
    assert signed.functions[1].signature is None  # the unit does not define mk
    assert signed.functions[0].callbacks[0].signature is not None
    assert signed.functions[0].callbacks[0].signature.returns == "int @"
    assert [s.signature and s.signature.returns for s in signed.stubs] == \
        ["struct cfg @", "long @"]
