"""Addresses as integers: what `(uintptr_t)p` is on a path.

A pointer is an object and an offset (values.PtrVal); converting it to an integer needs
the object's address. The address of an object is exposed, made a 64-bit term, the first
time a path converts a pointer into it:

- An object the case sets up (the pointee of an input pointer) is placed by the harness
  inside a buffer aligned to PLACEMENT (4096 bytes) at a residue the case chooses: its
  address is `high * 4096 + residue`, where the residue is an input of the case (aligned
  to the object's type) and `high` is unknown.
- Any other object (a global, a local, a string literal) lies where the compiler and the
  loader put it: its address is `high * align` with `high` unknown.

Every exposed address is at least 4096, ends below 2^47 (user space on x86-64 Linux) and
exposed objects do not overlap. The unknown parts are not inputs: a case is kept only when
its path and its predicted outputs hold for every value of them (the generator checks it
with `misplacement_query` and `moved_outputs_query`), so `(uintptr_t)p & 7` is exact and
chosen, while a branch on where two unrelated objects lie is never a prediction.

An integer converts back to a pointer by provenance: into the one exposed object whose
address it is computed from, at the difference as offset.
"""
from __future__ import annotations

from dataclasses import dataclass

import z3

from ..cases import PLACEMENT
from ..errors import UnsupportedError
from .memory import MemObject
from .values import PtrVal, null_pointer, uninterpreted_in

PLACEMENT_BITS = PLACEMENT.bit_length() - 1
_LOWEST = 4096  # the first page is never mapped
_END = 1 << 47  # user-space addresses of x86-64 Linux lie below this


@dataclass(frozen=True)
class Address:
    """The exposed address of one object: `value` (64 bits), the unknown part `high`, and
    the residue modulo PLACEMENT the case chooses (None: not placed by the harness)."""

    value: z3.BitVecRef
    high: z3.BitVecRef
    residue: z3.BitVecRef | None
    size: int
    automatic: bool  # on the stack (a local, a temporary): its slot may be reused


def expose(addresses: dict[int, Address], obj: MemObject, align: int, placed: bool,
           automatic: bool) -> tuple[Address, list[z3.BoolRef]]:
    """The address of `obj` (aligned to `align`) and the facts a path exposing it
    assumes: in range, aligned, apart from the objects exposed before. Two objects on the
    stack are not assumed apart: one may be a returned call's local whose slot the other
    reuses."""
    name = f"&{obj.name}#{obj.id}"
    align = max(1, align)
    facts: list[z3.BoolRef] = []
    if placed:
        high = z3.BitVec(f"{name}.high", 64 - PLACEMENT_BITS)
        residue = z3.BitVec(f"{name}%{PLACEMENT}", PLACEMENT_BITS)
        value = z3.Concat(high, residue)
        if align > 1:
            facts.append(z3.URem(residue, min(align, PLACEMENT)) == 0)
    else:
        shift = max(0, align.bit_length() - 1)
        high = z3.BitVec(f"{name}.high", 64 - shift)
        residue = None
        value = z3.Concat(high, z3.BitVecVal(0, shift)) if shift else high
    size = max(1, obj.size)
    facts.append(z3.UGE(value, _LOWEST))
    facts.append(z3.ULE(value, _END - size))
    for other in addresses.values():
        if automatic and other.automatic:
            continue
        facts.append(z3.Or(z3.ULE(value + size, other.value),
                           z3.ULE(other.value + other.size, value)))
    address = Address(value, high, residue, size, automatic)
    addresses[obj.id] = address
    return address, facts


def pointer_from_integer(addresses: dict[int, Address], v: z3.BitVecRef) -> PtrVal:
    """The pointer an integer converts to: NULL for 0, else into the one exposed object
    whose address `v` is computed from. Raises UnsupportedError for any other integer."""
    simple = z3.simplify(v)
    if z3.is_bv_value(simple):
        if simple.as_long() == 0:
            return null_pointer()
        raise UnsupportedError(
            f"fixed address 0x{simple.as_long():x} used as a pointer (map the memory it "
            "names to an object in the test build, see README)")
    used = _address_terms(simple)
    sources = [oid for oid, a in addresses.items() if a.high.decl().name() in used]
    if len(sources) != 1:
        raise UnsupportedError(
            "conversion of an integer to a pointer" if not sources else
            "an integer computed from the addresses of several objects used as a pointer")
    oid = sources[0]
    return PtrVal(oid, z3.simplify(v - addresses[oid].value))


def _address_terms(e: z3.ExprRef) -> set[str]:
    """The names of the constants `e` is built from."""
    return {t.decl().name() for t in uninterpreted_in([e]) if z3.is_const(t)}


def _inputs_of(model: z3.ModelRef, unknowns: list[z3.BitVecRef]) -> list[z3.BoolRef]:
    """Every value of `model` as a constraint, but those of the unknown address parts."""
    names = {u.decl().name() for u in unknowns}
    return [d() == model[d] for d in model.decls()
            if d.arity() == 0 and d.name() not in names]


def misplacement_query(addresses: dict[int, Address], facts: list[z3.BoolRef],
                       constraints: list[z3.BoolRef], model: z3.ModelRef
                       ) -> list[z3.BoolRef]:
    """Satisfiable when, with the inputs of `model`, some placement of the exposed objects
    (within `facts`) breaks the path condition `constraints`; [] when nothing is exposed."""
    unknowns = [a.high for a in addresses.values()]
    if not unknowns:
        return []
    known = {c.get_id() for c in facts}
    rest = [c for c in constraints if c.get_id() not in known]
    return [*_inputs_of(model, unknowns), *facts, z3.Not(z3.And(*rest))]


def moved_outputs_query(addresses: dict[int, Address], constraints: list[z3.BoolRef],
                        model: z3.ModelRef, outputs: list[z3.ExprRef]) -> list[z3.BoolRef]:
    """Satisfiable when, with the inputs of `model`, some placement of the exposed objects
    on the path (`constraints`, which hold the facts about it) gives one of the `outputs`
    another value than `model` does; [] when no output depends on an address."""
    unknowns = [a.high for a in addresses.values()]
    names = {u.decl().name() for u in unknowns}
    moving = [t for t in outputs if _address_terms(t) & names]
    if not moving:
        return []
    return [*_inputs_of(model, unknowns), *constraints,
            z3.Or(*[t != model.eval(t, model_completion=True) for t in moving])]
