"""GCC's bit-manipulation, overflow-checking and atomic builtins: which exist, the type each
takes and returns, and the bit builtins' value on constants (for constant expressions).
Their symbolic semantics are in symbolic/values.py (`bit_builtin`, `overflows`) and
ir/lower.py (the atomic ones); all follow gcc's documentation.

`clz` and `ctz` of 0 are undefined in gcc: a path that calls them with 0 is not one a
case may take (the constant evaluation refuses it)."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from .ctype import (
    DOUBLE, FLOAT, INT, LLONG, LONG, LONGDOUBLE, UINT, ULLONG, ULONG, USHORT, FloatType,
    IntType)


@dataclass(frozen=True)
class BitBuiltin:
    """`operation` ("clz", "ctz", "popcount", "parity", "ffs", "clrsb" or "bswap") on an
    operand converted to `argument`, giving a value of type `result`."""

    operation: str
    argument: IntType
    result: IntType


def _family(operation: str, kinds: dict[str, IntType]) -> dict[str, BitBuiltin]:
    return {f"__builtin_{operation}{suffix}": BitBuiltin(operation, argument, INT)
            for suffix, argument in kinds.items()}


_UNSIGNED = {"": UINT, "l": ULONG, "ll": ULLONG}
_SIGNED = {"": INT, "l": LONG, "ll": LLONG}

BIT_BUILTINS: dict[str, BitBuiltin] = {
    **_family("clz", _UNSIGNED), **_family("ctz", _UNSIGNED),
    **_family("popcount", _UNSIGNED), **_family("parity", _UNSIGNED),
    **_family("ffs", _SIGNED), **_family("clrsb", _SIGNED),
    "__builtin_bswap16": BitBuiltin("bswap", USHORT, USHORT),
    "__builtin_bswap32": BitBuiltin("bswap", UINT, UINT),
    "__builtin_bswap64": BitBuiltin("bswap", ULLONG, ULLONG),
}


#: Builtins that stand for a floating constant (<math.h>'s INFINITY, HUGE_VAL, NAN):
#: name -> (type, value). `__builtin_nan` takes a string, the NaN's payload (only "",
#: the quiet NaN of payload 0, is one of these constants); the others take nothing.
FLOAT_CONSTANT_BUILTINS: dict[str, tuple[FloatType, float]] = {
    f"__builtin_{name}{suffix}": (ftype, value)
    for name, value in (("inf", math.inf), ("huge_val", math.inf), ("nan", math.nan))
    for suffix, ftype in (("", DOUBLE), ("f", FLOAT), ("l", LONGDOUBLE))
}


#: `__builtin_add_overflow(a, b, &r)` and its kin: the operator on the mathematical values
#: of `a` and `b`; `r` gets the result wrapped to its type, and the call is true when the
#: result does not fit. (`_p` variants only tell, without storing.)
OVERFLOW_BUILTINS: dict[str, str] = {
    "__builtin_add_overflow": "+", "__builtin_sub_overflow": "-",
    "__builtin_mul_overflow": "*",
}


#: GCC's `__atomic_*` and legacy `__sync_*` builtins on integers, as a unit test runs them
#: (one thread: the memory orders change nothing): name -> (kind, operator). Kinds:
#: load, store, exchange, fetch (returns the old value), update (returns the new one),
#: compare_exchange (`__atomic_compare_exchange_n`), bool_cas and value_cas (`__sync_`),
#: release (stores 0), fence (nothing), test_and_set (sets the byte, returns whether it
#: was set), clear (clears the byte). The operator GENERIC marks the generic forms
#: (`__atomic_load` and kin, used by <stdatomic.h>): values pass through pointers, and
#: load and exchange return theirs through one more pointer argument.
AtomicKind = Literal["load", "store", "exchange", "fetch", "update", "compare_exchange",
                     "bool_cas", "value_cas", "release", "fence", "test_and_set", "clear"]
GENERIC = "generic"
_ATOMIC_OPERATORS = (("add", "+"), ("sub", "-"), ("and", "&"), ("or", "|"), ("xor", "^"),
                     ("nand", "~&"))
# the forms of the read-modify-write builtins, by the operator's name
_ATOMIC_UPDATES: tuple[tuple[str, AtomicKind], ...] = (
    ("__atomic_fetch_{}", "fetch"), ("__atomic_{}_fetch", "update"),
    ("__sync_fetch_and_{}", "fetch"), ("__sync_{}_and_fetch", "update"))
ATOMIC_BUILTINS: dict[str, tuple[AtomicKind, str]] = {
    "__atomic_load_n": ("load", ""), "__atomic_store_n": ("store", ""),
    "__atomic_exchange_n": ("exchange", ""),
    "__atomic_compare_exchange_n": ("compare_exchange", ""),
    "__atomic_thread_fence": ("fence", ""), "__atomic_signal_fence": ("fence", ""),
    "__sync_synchronize": ("fence", ""),
    "__atomic_load": ("load", GENERIC), "__atomic_store": ("store", GENERIC),
    "__atomic_exchange": ("exchange", GENERIC),
    "__atomic_compare_exchange": ("compare_exchange", GENERIC),
    "__atomic_test_and_set": ("test_and_set", ""), "__atomic_clear": ("clear", ""),
    "__sync_bool_compare_and_swap": ("bool_cas", ""),
    "__sync_val_compare_and_swap": ("value_cas", ""),
    "__sync_lock_test_and_set": ("exchange", ""), "__sync_lock_release": ("release", ""),
    **{name.format(op_name): (kind, op) for op_name, op in _ATOMIC_OPERATORS
       for name, kind in _ATOMIC_UPDATES},
}


@dataclass(frozen=True)
class AtomicShape:
    """The arguments of an atomic builtin of one kind: `values` operands after the object's
    pointer (for compare_exchange: the expected value's pointer and the desired value), the
    rest memory orders (and `weak`); `atomic_arity` and `sync_arity` are the argument
    counts of the `__atomic_` and the `__sync_` form."""

    values: int
    atomic_arity: int
    sync_arity: int


ATOMIC_SHAPES: dict[AtomicKind, AtomicShape] = {
    "load": AtomicShape(0, 2, 1), "release": AtomicShape(0, 0, 1),
    "store": AtomicShape(1, 3, 2), "exchange": AtomicShape(1, 3, 2),
    "fetch": AtomicShape(1, 3, 2), "update": AtomicShape(1, 3, 2),
    "compare_exchange": AtomicShape(2, 6, 0),
    "bool_cas": AtomicShape(2, 0, 3), "value_cas": AtomicShape(2, 0, 3),
    "fence": AtomicShape(0, 1, 0),
    "test_and_set": AtomicShape(0, 2, 0), "clear": AtomicShape(0, 2, 0),
}


#: `__builtin_NAME` of these is the C library's NAME, which gcc expands inline or calls:
#: the same function to the generator (modelled or stubbed as NAME is).
LIBRARY_BUILTINS: frozenset[str] = frozenset({
    "memcpy", "memmove", "memset", "memcmp", "strlen", "strcmp", "strncmp", "strchr",
    "strcpy", "strncpy", "fabs", "fabsf", "abs", "labs", "llabs"})


#: `alloca(size)` (<alloca.h> makes it `__builtin_alloca`, and gcc knows `alloca` itself): a
#: new object of `size` bytes in the caller's frame, alive until the caller returns
#: (ir/lower.py), unless the unit defines a function of that name.
ALLOCA_BUILTINS: frozenset[str] = frozenset({"alloca", "__builtin_alloca"})


def evaluate(builtin: BitBuiltin, value: int) -> int | None:
    """The builtin's result for the operand `value` (already converted to its argument
    type), or None where gcc leaves it undefined."""
    bits = builtin.argument.bits
    unsigned = value & ((1 << bits) - 1)
    op = builtin.operation
    if op == "popcount":
        return bin(unsigned).count("1")
    if op == "parity":
        return bin(unsigned).count("1") & 1
    if op == "clz":
        return bits - unsigned.bit_length() if unsigned else None
    if op == "ctz":
        return (unsigned & -unsigned).bit_length() - 1 if unsigned else None
    if op == "ffs":
        return (unsigned & -unsigned).bit_length() if unsigned else 0
    if op == "clrsb":
        sign = unsigned >> (bits - 1)
        rest = unsigned ^ (((1 << bits) - 1) if sign else 0)
        return bits - 1 - rest.bit_length()
    if op == "bswap":
        return int.from_bytes(unsigned.to_bytes(bits // 8, "little"), "big")
    raise ValueError(f"not a bit builtin: {op}")
