"""C library functions with a known meaning, executed symbolically instead of stubbed.

Each model takes the executor, the state, the argument values and the function's type
and returns the result (or None for void). In the run the unit is linked with the real
library (or gcc expands the call inline, as it does for fabs), so these functions are
never stubbed.

The memory and string functions work on the bytes of the objects their pointers point
into. A length that depends on the inputs is bounded by the object: every byte the object
could hold is considered under the condition that it lies within the length. A call that
would leave the object, a NULL argument and an argument out of a function's domain are
undefined behaviour: findings where the unit made the object or the value, bounds of the
search where the generator did (see `_inside`).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import z3

from ..errors import UnsupportedError
from ..frontend.ctype import UCHAR, FunctionType, IntType
from . import access, contracts, heap, memory
from .large_objects import LARGE_OBJECT, SparseCells
from .state import State
from .values import PtrVal, SymValue, int_const

if TYPE_CHECKING:
    from .executor import Executor

Model = Callable[["Executor", State, list[SymValue], FunctionType], SymValue | None]



def _fabs(ex: Executor, state: State, args: list[SymValue], ftype: FunctionType) -> SymValue:
    x = args[0]
    assert isinstance(x, z3.FPRef)
    return z3.fpAbs(x)


def _abs(ex: Executor, state: State, args: list[SymValue], ftype: FunctionType) -> SymValue:
    x = args[0]
    t = ftype.result
    assert isinstance(x, z3.BitVecRef) and isinstance(t, IntType)
    undefined = x == int_const(t, t.min_value)
    contracts.finding(ex, state, undefined, f"overflow: the absolute value of {t.min_value}")
    state.assume(z3.Not(undefined))
    return z3.If(x < 0, -x, x)


# ------------------------------------------------------------------ bytes of objects


def _target(ex: Executor, state: State, p: SymValue, name: str) -> PtrVal:
    """`p` as a pointer that must point into an object: NULL is undefined here, as for a
    dereference (see access.dereference)."""
    if not isinstance(p, PtrVal):
        raise UnsupportedError(f"{name} on a pointer not into an object")
    access.dereference(ex, state, p, f"NULL pointer passed to {name}")
    if p.base is None:
        raise UnsupportedError(f"{name} on a pointer not into an object")
    return p


def _destination(ex: Executor, state: State, p: SymValue, name: str,
                 n: SymValue | None = None) -> PtrVal:
    """`p` as the object `name` writes into (`n` bytes, at least one when None): a
    read-only object there is a finding (see access.read_only_write)."""
    dst = _target(ex, state, p, name)
    assert dst.base is not None  # a `_target`
    writes = z3.BoolVal(True) if not isinstance(n, z3.BitVecRef) else n != 0
    access.read_only_write(ex, state, state.memory[dst.base], writes)
    return dst


def _inside(ex: Executor, state: State, pointers: Sequence[PtrVal], condition: z3.BoolRef,
            what: str) -> None:
    """The call stays inside the objects of `pointers` where `condition` holds (`what` it
    does otherwise, e.g. "memcpy writes past the end of"). An object an input pointer
    points to is as large as the generator made it: `condition` is a bound of the search.
    Objects the unit defines are what they are: where `condition` fails, the call is
    undefined, a finding, and this path goes on where it holds."""
    objects = [state.memory[p.base] for p in pointers if p.base is not None]
    made = state.input_objects()
    chosen = [obj for obj in objects if obj.id in made]
    if chosen:
        state.assume_in_bounds(chosen[0].id, condition)
        return
    names = " or ".join(f"'{obj.name}' ({obj.size} bytes)" for obj in objects)
    contracts.finding(ex, state, z3.Not(condition), f"{what} {names}",
                      f"{what} {' or '.join(obj.name for obj in objects)}")
    state.assume(condition)


def _room(ex: Executor, state: State, p: PtrVal, name: str) -> int:
    """How many bytes from `p` to the end of its object, at most."""
    assert p.base is not None  # a `_target`
    size = state.memory[p.base].size
    off = z3.simplify(p.offset)
    if z3.is_bv_value(off):
        return max(0, size - off.as_signed_long())
    _inside(ex, state, [p], z3.ULE(p.offset, size), f"{name} starts past the end of")
    return size


def _considered(state: State, pointers: Sequence[PtrVal], count: int, name: str) -> int:
    """`count`, the bytes `name` considers one by one at each of `pointers`; more than
    LARGE_OBJECT of them in a large object are not modelled (the cost would be the
    object's size, not what the path touches)."""
    for p in pointers:
        assert p.base is not None  # a `_target`
        obj = state.memory[p.base]
        if count > LARGE_OBJECT and isinstance(obj.cells, SparseCells):
            raise UnsupportedError(f"{name} of up to {count} bytes of the large object "
                                   f"'{obj.name}'")
    return count


# Byte k of a pointer at a computed offset may lie outside its object: each access says
# where it is inside (`inside`, a list the call collects), needed only where the call
# really reaches byte k (`needed`); the call then checks them all at once with `_inside`.
# Assumed byte by byte, they would pin the offset (`strlen(s + i)` reading the room of the
# whole object made i 0, and called what a larger i reaches unreachable).
Inside = list[z3.BoolRef]


def _placed(in_bounds: z3.BoolRef | None, needed: z3.BoolRef | None, inside: Inside) -> None:
    if in_bounds is not None:
        inside.append(in_bounds if needed is None else z3.Implies(needed, in_bounds))


def _byte(state: State, p: PtrVal, k: int, inside: Inside,
          needed: z3.BoolRef | None = None) -> z3.BitVecRef:
    assert p.base is not None  # a `_target`
    obj = state.memory[p.base]
    state.read_objects.add(obj.id)
    value, in_bounds, readable = memory.read(obj, p.offset + k, UCHAR)
    _placed(in_bounds, needed, inside)
    state.assume(readable)
    assert isinstance(value, z3.BitVecRef)
    return value


def _store_byte(state: State, p: PtrVal, k: int, value: z3.BitVecRef, inside: Inside,
                needed: z3.BoolRef | None = None) -> None:
    assert p.base is not None  # a `_target`
    obj = state.writable(p.base)
    state.written_objects.add(obj.id)
    in_bounds, writable = memory.write(obj, p.offset + k, UCHAR, value)
    _placed(in_bounds, needed, inside)
    state.assume(writable)


def _store_byte_where(state: State, p: PtrVal, k: int, condition: z3.BoolRef,
                      value: z3.BitVecRef, inside: Inside) -> None:
    """Byte k of `p` becomes `value` where `condition` holds and keeps its contents
    elsewhere."""
    if z3.is_true(z3.simplify(condition)):  # the old contents (a pointer's bytes) unread
        _store_byte(state, p, k, value, inside)
        return
    old = _byte(state, p, k, inside, condition)
    _store_byte(state, p, k, z3.simplify(z3.If(condition, value, old)), inside, condition)


def _within_objects(ex: Executor, state: State, p: PtrVal, inside: Inside, what: str,
                    also: z3.BoolRef | None = None) -> None:
    """The bytes a call reached at `p` (and `also`) lie inside its object (`_inside`)."""
    if inside or also is not None:
        _inside(ex, state, [p], z3.And(*([also] if also is not None else []), *inside), what)


def _length(ex: Executor, state: State, n: SymValue, reads: Sequence[PtrVal],
            writes: Sequence[PtrVal], name: str) -> tuple[z3.BitVecRef, int]:
    """The length argument of `name`, which `reads` and `writes` that many bytes at
    pointers, and how many bytes to consider: n itself when concrete."""
    assert isinstance(n, z3.BitVecRef)
    room = 1 << 62
    for pointers, verb in ((writes, "writes"), (reads, "reads")):
        for p in pointers:
            room_p = _room(ex, state, p, name)
            _inside(ex, state, [p], z3.ULE(n, room_p), f"{name} {verb} past the end of")
            room = min(room, room_p)
    simple = z3.simplify(n)
    if z3.is_bv_value(simple):
        return simple, min(simple.as_long(), room)
    return n, _implied_bound(state, n, room)


_BOUND_CANDIDATES = (4, 8, 16, 32, 64, 128)
_BOUND_QUERY_STEPS = 2_500_000  # z3 resource units per check (see work.py)


def _implied_bound(state: State, n: z3.BitVecRef, room: int) -> int:
    """The smallest of a few round numbers that the path keeps `n` at or below (`room`
    when none is implied or the check is hard): fewer bytes to model one by one. z3's work
    here is counted with the next query of the search (see Solver.charge_z3)."""
    solver = z3.Solver()
    solver.set("rlimit", _BOUND_QUERY_STEPS)
    solver.set("random_seed", 0)
    solver.add(*state.constraints)
    for k in _BOUND_CANDIDATES:
        if k >= room:
            break
        solver.push()
        solver.add(z3.UGT(n, z3.BitVecVal(k, n.size())))
        unsat = solver.check() == z3.unsat
        solver.pop()
        if unsat:
            return k
    return room


def _within(k: int, n: z3.BitVecRef) -> z3.BoolRef:
    return z3.ULT(z3.BitVecVal(k, n.size()), n)


def _diff(a: z3.BitVecRef, b: z3.BitVecRef) -> z3.BitVecRef:
    """glibc's result for the first differing bytes: their difference as unsigned chars."""
    return z3.ZeroExt(24, a) - z3.ZeroExt(24, b)


def _memset(ex: Executor, state: State, args: list[SymValue], ftype: FunctionType) -> SymValue:
    p = _destination(ex, state, args[0], "memset", args[2])
    c = args[1]
    assert isinstance(c, z3.BitVecRef)
    n, count = _length(ex, state, args[2], (), (p,), "memset")
    byte = z3.Extract(7, 0, c)
    if _fill_object(state, p, n, byte):
        return p
    inside: Inside = []
    for k in range(_considered(state, [p], count, "memset")):
        _store_byte_where(state, p, k, _within(k, n), byte, inside)
    _within_objects(ex, state, p, inside, "memset writes past the end of")
    return p


def _fill_object(state: State, p: PtrVal, n: z3.BitVecRef, byte: z3.BitVecRef) -> bool:
    """`memset(p, byte, n)` in one step where it sets every byte of a large object;
    False, doing nothing, otherwise."""
    assert p.base is not None  # a `_target`
    if not isinstance(state.memory[p.base].cells, SparseCells) or \
            not z3.is_true(z3.simplify(z3.And(p.offset == 0,
                                              n == state.memory[p.base].size))):
        return False
    obj = state.writable(p.base)
    state.written_objects.add(obj.id)
    assert isinstance(obj.cells, SparseCells)
    obj.cells.fill(byte)
    return True


def _memcpy(ex: Executor, state: State, args: list[SymValue], ftype: FunctionType) -> SymValue:
    dst = _destination(ex, state, args[0], "memcpy", args[2])
    src = _target(ex, state, args[1], "memcpy")
    n, count = _length(ex, state, args[2], (src,), (dst,), "memcpy")
    _considered(state, [src, dst], count, "memcpy")
    read: Inside = []
    written: Inside = []
    # all read first: memmove too
    incoming = [_byte(state, src, k, read, _within(k, n)) for k in range(count)]
    for k, byte in enumerate(incoming):
        _store_byte_where(state, dst, k, _within(k, n), byte, written)
    _within_objects(ex, state, src, read, "memcpy reads past the end of")
    _within_objects(ex, state, dst, written, "memcpy writes past the end of")
    return dst


def _memcmp(ex: Executor, state: State, args: list[SymValue], ftype: FunctionType) -> SymValue:
    a = _target(ex, state, args[0], "memcmp")
    b = _target(ex, state, args[1], "memcmp")
    n, count = _length(ex, state, args[2], (a, b), (), "memcmp")
    _considered(state, [a, b], count, "memcmp")
    result: z3.BitVecRef = z3.BitVecVal(0, 32)
    inside_a: Inside = []
    inside_b: Inside = []
    for k in reversed(range(count)):
        x = _byte(state, a, k, inside_a, _within(k, n))
        y = _byte(state, b, k, inside_b, _within(k, n))
        result = z3.If(z3.And(_within(k, n), x != y), _diff(x, y), result)
    _within_objects(ex, state, a, inside_a, "memcmp reads past the end of")
    _within_objects(ex, state, b, inside_b, "memcmp reads past the end of")
    return result


def _terminated(ex: Executor, state: State, p: PtrVal, name: str) -> list[z3.BitVecRef]:
    """The bytes of the string at `p`, which must end with a NUL inside its object."""
    room = _room(ex, state, p, name)
    if room == 0:
        raise UnsupportedError(f"{name} on a pointer to the end of an object")
    _considered(state, [p], room, name)
    inside: Inside = []
    chars: list[z3.BitVecRef] = []
    going: z3.BoolRef = z3.BoolVal(True)  # no NUL before byte k: it is read
    for k in range(room):
        chars.append(_byte(state, p, k, inside, going))
        going = z3.And(going, chars[-1] != 0)
    _within_objects(ex, state, p, inside, f"{name} reads past the end of",
                    z3.Or(*[ch == 0 for ch in chars]))
    return chars


def _strlen(ex: Executor, state: State, args: list[SymValue], ftype: FunctionType) -> SymValue:
    s = _target(ex, state, args[0], "strlen")
    return _measured(state, s, "strlen", _first_nul(_terminated(ex, state, s, "strlen")))


def _measured(state: State, p: PtrVal, name: str, value: z3.BitVecRef) -> z3.BitVecRef:
    """`value`, a position in the object of `p` that a call found among its bytes. In an
    object an input pointer points to it is a fresh variable equal to `value` under a
    bound of the search: the object's size caps `value`, and a path that needs more (a
    string longer than the object) must make the search grow the object, not end as
    unreachable."""
    assert p.base is not None  # a `_target`
    if p.base not in state.input_objects():
        return value
    result = z3.BitVec(f"ctgen.{name}.{state.steps}.{len(state.constraints)}", value.size())
    state.assume_in_bounds(p.base, result == value)
    return result


def _compare_strings(ex: Executor, state: State, args: list[SymValue], limit: z3.BitVecRef | None,
                     name: str) -> SymValue:
    a = _target(ex, state, args[0], name)
    b = _target(ex, state, args[1], name)
    room_a, room_b = _room(ex, state, a, name), _room(ex, state, b, name)
    room = _considered(state, [a, b], min(room_a, room_b), name)
    xs: list[z3.BitVecRef] = []
    ys: list[z3.BitVecRef] = []
    inside_a: Inside = []
    inside_b: Inside = []
    going: z3.BoolRef = z3.BoolVal(True)  # no difference or NUL before byte k
    for k in range(room):
        needed = going if limit is None else z3.And(going, _within(k, limit))
        xs.append(_byte(state, a, k, inside_a, needed))
        ys.append(_byte(state, b, k, inside_b, needed))
        going = z3.And(going, xs[-1] == ys[-1], xs[-1] != 0)
    # the comparison ends inside both objects: at a difference, a NUL or the limit, before
    # the end of the shorter one (an object the unit defines: a finding; one the generator
    # made: a bound, and once grown the other one limits)
    ends = [z3.Or(x != y, x == 0) for x, y in zip(xs, ys)]
    ended = z3.Or(*ends) if ends else z3.BoolVal(False)
    if limit is not None:
        ended = z3.Or(z3.ULE(limit, room), ended)
    shorter = [p for p, room_p in ((a, room_a), (b, room_b)) if room_p == room]
    _inside(ex, state, shorter, ended, f"{name} reads past the end of")
    _within_objects(ex, state, a, inside_a, f"{name} reads past the end of")
    _within_objects(ex, state, b, inside_b, f"{name} reads past the end of")
    result: z3.BitVecRef = z3.BitVecVal(0, 32)
    for k in reversed(range(room)):
        step = z3.If(xs[k] != ys[k], _diff(xs[k], ys[k]),
                     z3.If(xs[k] == 0, z3.BitVecVal(0, 32), result))
        result = step if limit is None else z3.If(_within(k, limit), step,
                                                   z3.BitVecVal(0, 32))
    return result


def _strcmp(ex: Executor, state: State, args: list[SymValue], ftype: FunctionType) -> SymValue:
    return _compare_strings(ex, state, args, None, "strcmp")


def _strncmp(ex: Executor, state: State, args: list[SymValue], ftype: FunctionType) -> SymValue:
    n = args[2]
    assert isinstance(n, z3.BitVecRef)
    return _compare_strings(ex, state, args, n, "strncmp")


def _strchr(ex: Executor, state: State, args: list[SymValue], ftype: FunctionType) -> SymValue:
    s = _target(ex, state, args[0], "strchr")
    c = args[1]
    assert isinstance(c, z3.BitVecRef)
    wanted = z3.Extract(7, 0, c)
    chars = _terminated(ex, state, s, "strchr")
    found: z3.BoolRef = z3.BoolVal(False)
    index: z3.BitVecRef = z3.BitVecVal(0, 64)
    for k in reversed(range(len(chars))):
        found = z3.If(chars[k] == wanted, z3.BoolVal(True),
                      z3.If(chars[k] == 0, z3.BoolVal(False), found))
        index = z3.If(chars[k] == wanted, z3.BitVecVal(k, 64), index)
    index = _measured(state, s, "strchr", index)
    return PtrVal(s.base, z3.simplify(s.offset + index), z3.simplify(z3.Not(found)))


def _copy_string(ex: Executor, state: State, args: list[SymValue], limit: SymValue | None,
                 name: str) -> SymValue:
    """strcpy (no `limit`) or strncpy: the bytes of the source up to its NUL, and for
    strncpy NUL padding up to the limit; the copy stays inside the destination."""
    dst = _destination(ex, state, args[0], name, limit)
    src = _target(ex, state, args[1], name)
    room_dst, room_src = _room(ex, state, dst, name), _room(ex, state, src, name)
    if limit is None:
        chars = _terminated(ex, state, src, name)
        length = _first_nul(chars)
        _inside(ex, state, [dst], z3.ULT(length, room_dst), f"{name} writes past the end of")
        count = min(room_dst, len(chars))
        writes = [(k, z3.ULE(z3.BitVecVal(k, 64), length), chars[k]) for k in range(count)]
    else:
        n, count = _length(ex, state, limit, (), (dst,), name)
        count = _considered(state, [dst, src], min(count, room_dst), name)
        readable = min(count, room_src)
        read: Inside = []
        chars = []
        going: z3.BoolRef = z3.BoolVal(True)  # no NUL before byte k
        for k in range(readable):
            chars.append(_byte(state, src, k, read, z3.And(going, _within(k, n))))
            going = z3.And(going, chars[-1] != 0)
        # reading stops at the first NUL or at n: both must come inside the source
        _within_objects(ex, state, src, read, f"{name} reads past the end of",
                        z3.Or(z3.ULE(n, readable), *[ch == 0 for ch in chars]))
        writes = []
        ended: z3.BoolRef = z3.BoolVal(False)
        zero = z3.BitVecVal(0, 8)
        for k in range(count):
            value = z3.If(ended, zero, chars[k]) if k < readable else zero
            writes.append((k, _within(k, n), value))
            if k < readable:
                ended = z3.Or(ended, chars[k] == 0)
    written: Inside = []
    for k, taken, value in writes:
        _store_byte_where(state, dst, k, taken, value, written)
    _within_objects(ex, state, dst, written, f"{name} writes past the end of")
    return dst


def _first_nul(chars: list[z3.BitVecRef]) -> z3.BitVecRef:
    """The index of the first NUL of `chars` (one of them is NUL)."""
    result: z3.BitVecRef = z3.BitVecVal(len(chars), 64)
    for k in reversed(range(len(chars))):
        result = z3.If(chars[k] == 0, z3.BitVecVal(k, 64), result)
    return result


def _strcpy(ex: Executor, state: State, args: list[SymValue], ftype: FunctionType) -> SymValue:
    return _copy_string(ex, state, args, None, "strcpy")


def _strncpy(ex: Executor, state: State, args: list[SymValue], ftype: FunctionType) -> SymValue:
    return _copy_string(ex, state, args, args[2], "strncpy")


# ---------------------------------------------------------------------------- ctype.h
# glibc in the "C" locale: a classifier returns its class's bit of the character table
# (not 1), which is what a unit that stores or returns the result observes.

def _char_arg(ex: Executor, state: State, c: SymValue, name: str) -> z3.BitVecRef:
    """The argument of a ctype function. C defines EOF and the unsigned char values;
    glibc's table also answers for the negative values of a signed char, which is what
    the compiled code then does. Beyond that the call is undefined: a finding."""
    assert isinstance(c, z3.BitVecRef) and c.size() == 32
    within = z3.And(c >= -128, c <= 255)
    contracts.finding(ex, state, z3.Not(within),
                      f"{name} of a value out of the range of unsigned char, signed char and EOF")
    state.assume(within)
    return c


def _between(c: z3.BitVecRef, low: str, high: str) -> z3.BoolRef:
    return z3.And(c >= ord(low), c <= ord(high))


_UPPER = lambda c: _between(c, "A", "Z")  # noqa: E731
_LOWER = lambda c: _between(c, "a", "z")  # noqa: E731
_DIGIT = lambda c: _between(c, "0", "9")  # noqa: E731
_ALPHA = lambda c: z3.Or(_UPPER(c), _LOWER(c))  # noqa: E731
_SPACE = lambda c: z3.Or(c == 32, _between(c, "\t", "\r"))  # noqa: E731
_PRINT = lambda c: _between(c, " ", "~")  # noqa: E731
_GRAPH = lambda c: _between(c, "!", "~")  # noqa: E731

#: classifier -> (the class's bit in glibc's table, membership in the "C" locale)
_CLASSES: dict[str, tuple[int, Callable[[z3.BitVecRef], z3.BoolRef]]] = {
    "isupper": (0x100, _UPPER),
    "islower": (0x200, _LOWER),
    "isalpha": (0x400, _ALPHA),
    "isdigit": (0x800, _DIGIT),
    "isxdigit": (0x1000, lambda c: z3.Or(_DIGIT(c), _between(c, "a", "f"),
                                         _between(c, "A", "F"))),
    "isspace": (0x2000, _SPACE),
    "isprint": (0x4000, _PRINT),
    "isgraph": (0x8000, _GRAPH),
    "isblank": (0x1, lambda c: z3.Or(c == 32, c == 9)),
    "iscntrl": (0x2, lambda c: z3.Or(_between(c, "\0", "\x1f"), c == 127)),
    "ispunct": (0x4, lambda c: z3.And(_GRAPH(c), z3.Not(_ALPHA(c)), z3.Not(_DIGIT(c)))),
    "isalnum": (0x8, lambda c: z3.Or(_ALPHA(c), _DIGIT(c))),
}


def _classifier(name: str) -> Model:
    bit, member = _CLASSES[name]

    def model(ex: Executor, state: State, args: list[SymValue], ftype: FunctionType) -> SymValue:
        c = _char_arg(ex, state, args[0], name)
        return z3.If(member(c), z3.BitVecVal(bit, 32), z3.BitVecVal(0, 32))
    return model


def _case_change(letters: Callable[[z3.BitVecRef], z3.BoolRef], delta: int) -> Model:
    """toupper (lower-case letters, -32) or tolower (upper-case letters, +32)."""
    def model(ex: Executor, state: State, args: list[SymValue], ftype: FunctionType) -> SymValue:
        c = _char_arg(ex, state, args[0], "toupper" if delta < 0 else "tolower")
        return z3.If(letters(c), c + delta, c)
    return model


MODELS: dict[str, Model] = {
    "fabs": _fabs,
    "fabsf": _fabs,
    "abs": _abs,
    "labs": _abs,
    "llabs": _abs,
    "memset": _memset,
    "memcpy": _memcpy,
    "memmove": _memcpy,
    "memcmp": _memcmp,
    "strlen": _strlen,
    "strcmp": _strcmp,
    "strncmp": _strncmp,
    "strchr": _strchr,
    "strcpy": _strcpy,
    "strncpy": _strncpy,
    "toupper": _case_change(_LOWER, -32),
    "tolower": _case_change(_UPPER, 32),
    **{name: _classifier(name) for name in _CLASSES},
    **heap.MODELS,
}
