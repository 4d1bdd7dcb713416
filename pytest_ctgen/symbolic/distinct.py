"""Distinguishing data: the inputs a path leaves free get distinct, deterministic values.

A solver leaves what no constraint mentions at 0, so a case of a copy whose source bytes
are all 0 cannot tell a copy from the wrong offset, or two swapped arguments, from the
right one. Each scalar input no constraint, annotation check, test-case PRE or overflow
condition of the path mentions is given the next value of one sequence instead (1, 2, 3,
... or 'A', 'B', ... for plain `char`), in the order the case lists its inputs. Such an
input is free: any value keeps the path, its checks and its notes, so the model is changed
without a query. What the path constrains keeps the readable or boundary value the solver
chose (extract.preferences, boundaries.py).

A free integer the outputs combine bitwise (an operand of `& | ^ ~`, the value a shift
moves) gets bits in every byte instead (0x5A963CA5, ...), since 1, 2, 3 have no bit where
most masks look; the bits the code sets in it with `|` start clear and those it clears with
`&` start set, so the write shows.

An input that only the path's checks and notes mention (a product that must not
overflow) takes its distinct value where they come out as before; an integer the path
reads only some bytes of (`bytes[0] == 0` of a word read through a byte pointer) gets
distinct values in the bytes it does not read.

A union, or a record with bitfields, is one input of all its bits: free, its bytes count
up; constrained (a flag the path tests), each byte the model left 0 takes its distinct
value where every condition the input is in evaluates as before, so the bitfields the
path leaves free show whether the code cleared them.

A value the path writes is chosen to differ from the one it held before the call where
the path allows (`hidden_writes`, and a free input's distinct value steps on past the value
written into it): a case in which a write changes nothing cannot tell the write from its
deletion.

A loop case (search/boundary_goals.py) also spreads apart what the path constrains
(`spread`), where the path's conditions allow."""
from __future__ import annotations

import z3

from ..cases import UNDEFINED_BEHAVIOUR
from ..frontend.ctype import CType, EnumType, FloatType, IntType, RecordType
from . import extract
from .extract import input_leaves
from .solver import Model
from .state import Pointee, State
from .values import SymValue, fp_sort, uninterpreted_in

#: Free inputs count up from 1 and wrap here: inside the readable range, so a distinct value
#: is also a readable one.
_CYCLE = 99
#: The bytes of a constrained union or record with bitfields tried (each try evaluates the
#: conditions it is in): its first ones, where registers keep their fields.
_MOST_BYTES = 32


def distinguished(model: Model, state: State, pointees: list[Pointee],
                  kept: tuple[z3.BoolRef, ...] = ()) -> Model:
    """`model` with each free scalar input of `state` set to its distinct value (a copy
    when anything changes; `model` itself is left as it was). `pointees` are the objects
    the case sets up (extract.case_pointees: NULL flags decide them, which are never free),
    whose contents the case checks; `kept`: what the case was made for beyond its path,
    whose inputs are not free."""
    conditions = [*_conditions(state), *kept]
    constrained = {t.decl().get_id() for t in uninterpreted_in(conditions)}
    # what only the checks and notes of the path mention (a product that must not
    # overflow) takes its distinct value where they come out as before
    decided = {t.decl().get_id() for t in uninterpreted_in([*state.constraints, *kept])}
    bitwise = _bitwise_operands(extract.output_terms(state, pointees), model)
    assigned: set[int] = set()
    changes: list[tuple[z3.FuncDeclRef, z3.ExprRef]] = []
    records: list[z3.BitVecRef] = []  # unions and records with bitfields, done after
    for leaf, ctype in input_leaves(state):
        target = _settable(leaf)
        if target is None:
            continue
        decl = target.decl()
        if decl.get_id() in assigned:
            continue
        if isinstance(ctype, RecordType) and isinstance(target, z3.BitVecRef):
            assigned.add(decl.get_id())
            records.append(target)
            continue
        if decl.get_id() in decided:
            value = _free_bytes(len(changes), ctype, target, model, conditions)
            masked = bitwise.get(decl.get_id())
            if value is None and masked is not None and isinstance(target, z3.BitVecRef):
                # its conditions may mention inputs changed before it
                value = _masked_bytes(len(changes), target, masked,
                                      _with_values(model, changes), conditions)
            if value is not None:
                assigned.add(decl.get_id())
                changes.append((decl, value))
            continue
        value = _distinct_value(len(changes), ctype, target, bitwise.get(decl.get_id()))
        if value is None or (decl.get_id() in constrained and
                             not _checks_keep(_with_values(model, changes), target, value,
                                              conditions)):
            continue
        assigned.add(decl.get_id())
        changes.append((decl, value))
    for record in records:
        value = _distinct_bytes(len(changes), record, _with_values(model, changes),
                                conditions) \
            if record.decl().get_id() in constrained else _byte_pattern(len(changes), record)
        if value is not None:
            changes.append((record.decl(), value))
    return _with_values(model, _shown(model, state, pointees, changes))


def _free_bytes(n: int, ctype: CType, target: z3.ExprRef, model: Model,
                conditions: list[z3.ExprRef]) -> z3.ExprRef | None:
    """An integer input the path decides only some bytes of (`bytes[0] == 0` of a word
    read through a byte pointer): the model's value with each byte that no condition
    reads set to its distinct value, counting up from the `n`th; None when the path reads
    all of it (what it decides keeps the readable or boundary value the solver chose)."""
    if not isinstance(ctype, IntType) or ctype.is_bool or isinstance(ctype, EnumType) or \
            not isinstance(target, z3.BitVecRef) or target.size() <= 8:
        return None
    read = _bits_read(conditions, target)
    current = model.eval(target, model_completion=True)
    if not isinstance(current, z3.BitVecNumRef):
        return None
    value, changed = current.as_long(), False
    for k in range(target.size() // 8):
        if read >> (8 * k) & 0xFF == 0:
            value = value & ~(0xFF << (8 * k)) | (1 + (n + k) % _CYCLE) << (8 * k)
            changed = True
    return z3.BitVecVal(value, target.size()) if changed else None


def _bits_read(conditions: list[z3.ExprRef], target: z3.BitVecRef) -> int:
    """The bits of the input `target` that `conditions` read: those of the extractions
    of it they read, all of them where they read it otherwise."""
    read, everything = 0, (1 << target.size()) - 1
    ident = target.decl().get_id()
    seen: set[int] = set()
    work: list[z3.ExprRef] = list(conditions)
    while work and read != everything:
        term = work.pop()
        if term.get_id() in seen or not z3.is_app(term):
            continue
        seen.add(term.get_id())
        if z3.is_app_of(term, z3.Z3_OP_EXTRACT):
            inner = term.arg(0)
            if z3.is_const(inner) and inner.decl().get_id() == ident:
                high, low = term.params()
                read |= ((1 << (high - low + 1)) - 1) << low
                continue
        if z3.is_const(term) and term.decl().get_id() == ident:
            return everything
        work.extend(term.children())
    return read


def _checks_keep(model: Model, target: z3.ExprRef, value: z3.ExprRef,
                 conditions: list[z3.ExprRef]) -> bool:
    """Whether the `conditions` that mention the integer input `target` evaluate as they
    do in `model` with `target` set to `value`."""
    if not isinstance(target, z3.BitVecRef) or not isinstance(value, z3.BitVecNumRef):
        return False
    mentioned = _mentioning(conditions, target)
    before = [model.eval(c, model_completion=True) for c in mentioned]
    return _keeps(model, target, value.as_long(), mentioned, before)


def _mentioning(conditions: list[z3.ExprRef], target: z3.ExprRef) -> list[z3.ExprRef]:
    """The `conditions` that mention the input `target`."""
    ident = target.decl().get_id()
    return [c for c in conditions if any(t.decl().get_id() == ident
                                         for t in uninterpreted_in([c]))]


def hidden_writes(model: Model, state: State, pointees: list[Pointee]) -> list[z3.BoolRef]:
    """For each scalar of a global or case object (`pointees`) that the path writes and
    `model` leaves as it was before the call: the wish that it changes."""
    if state.ending is not None and state.ending[0] == UNDEFINED_BEHAVIOUR:
        return []  # nothing after the error is checked
    return [before != after
            for before, after in extract.written_leaves(state, pointees)[:_MOST_PAIRS]
            if z3.is_true(model.eval(before == after, model_completion=True))]


#: The written scalars looked at for writes that change nothing, at most (the first ones:
#: the bytes of a large object a memcpy wrote are costly to evaluate).
_MOST_PAIRS = 32
#: How many values a free input tries so that what is written into it differs from it.
_MOST_TRIES = 4


def _shown(model: Model, state: State, pointees: list[Pointee],
           changes: list[tuple[z3.FuncDeclRef, z3.ExprRef]]
           ) -> list[tuple[z3.FuncDeclRef, z3.ExprRef]]:
    """`changes` with the distinct value of each free input that the path then writes back
    unchanged (a flag set to the 1 it was given; a bitfield of a register) moved on, to
    one the write changes where one of a few tries does."""
    if not changes:
        return changes
    index = {decl.get_id(): k for k, (decl, _) in enumerate(changes)}
    out = list(changes)
    trial = _with_values(model, out)
    for before, after in extract.written_leaves(state, pointees)[:_MOST_PAIRS]:
        held = [t for t in uninterpreted_in([before]) if t.decl().get_id() in index]
        if len(held) != 1:
            continue
        same = before == after
        if not z3.is_true(trial.eval(same, model_completion=True)):
            continue
        k = index[held[0].decl().get_id()]
        for candidate in _alternatives(out[k][1]):
            if not z3.is_true(trial.eval(z3.substitute(same, (held[0], candidate)),
                                         model_completion=True)):
                out[k] = (out[k][0], candidate)
                trial = _with_values(model, out)
                break
    return out


def _alternatives(value: z3.ExprRef) -> list[z3.ExprRef]:
    """Values to try in place of an integer's distinct `value` (none for a float, whose
    distinct values are whole numbers and a half, which code seldom writes back): the
    next ones up, then all its bits flipped."""
    if not isinstance(value, z3.BitVecNumRef):
        return []
    n = value.as_long()
    return [z3.BitVecVal(n + step, value.size()) for step in range(1, _MOST_TRIES)] + \
        [z3.BitVecVal(~n, value.size())]


def _with_values(model: Model, changes: list[tuple[z3.FuncDeclRef, z3.ExprRef]]) -> Model:
    """`model` with `changes` made, in a copy; `model` itself when there are none."""
    if not changes:
        return model
    changed = model.translate(model.ctx)
    for decl, value in changes:
        changed.update_value(decl, value)
    return changed


def _keeps(model: Model, target: z3.BitVecRef, candidate: int, mentioned: list[z3.ExprRef],
           before: list[z3.ExprRef]) -> bool:
    """Whether the conditions `mentioned` (which were `before` in `model`) evaluate as
    before with `target` set to `candidate`."""
    with_it = (target, z3.BitVecVal(candidate, target.size()))
    return all(z3.eq(model.eval(z3.substitute(c, with_it), model_completion=True), b)
               for c, b in zip(mentioned, before))


#: How far `spread` moves a value up from where the model left it.
_MOST_STEPS = 9


def spread(model: Model, state: State) -> Model:
    """`model` with each scalar integer input the path constrains moved up from the
    readable or boundary value the model gave it by the least step (up to `_MOST_STEPS`)
    that makes it differ from the inputs before it and keeps every condition it is in as
    it was: a loop's passes then read different values, none at its boundary (the digits
    "12", not "00"), so a mutated accumulation shows. The path, its checks and its notes
    stay as they were (a copy when anything changes)."""
    conditions = _conditions(state)
    by_input: dict[int, list[z3.ExprRef]] = {}
    for c in conditions:
        for t in uninterpreted_in([c]):
            by_input.setdefault(t.decl().get_id(), []).append(c)
    seen: set[int] = set()
    changes: list[tuple[z3.FuncDeclRef, z3.ExprRef]] = []
    done: set[int] = set()
    for leaf, ctype in input_leaves(state):
        target = _settable(leaf)
        if not isinstance(target, z3.BitVecRef) or not isinstance(ctype, IntType) or \
                ctype.is_bool or isinstance(ctype, EnumType) or \
                target.decl().get_id() in done:
            continue
        done.add(target.decl().get_id())
        current = model.eval(target, model_completion=True)
        if not z3.is_bv_value(current):
            continue
        value = current.as_long()
        mentioned = by_input.get(target.decl().get_id(), [])
        if mentioned:
            before = [model.eval(c, model_completion=True) for c in mentioned]
            for step in range(1, _MOST_STEPS + 1):
                candidate = (value + step) % (1 << target.size())
                if candidate not in seen and candidate != value and \
                        _keeps(model, target, candidate, mentioned, before):
                    value = candidate
                    changes.append((target.decl(), z3.BitVecVal(value, target.size())))
                    break
        seen.add(value)
    return _with_values(model, changes)


def _conditions(state: State) -> list[z3.ExprRef]:
    """What a value of an input may change beyond the outputs: the path, the annotations'
    verdicts, the test cases it enters and its signed-overflow note."""
    return [*state.constraints, *(v for _, v in state.contract_checks),
            *(e for _, e in state.testcases_entered), *state.overflows]


def _settable(leaf: SymValue) -> z3.ExprRef | None:
    """The input variable a leaf is (a float may be the bits it was read as), or None for
    a leaf computed from several."""
    if isinstance(leaf, z3.ExprRef) and z3.is_const(leaf) and \
            leaf.decl().kind() == z3.Z3_OP_UNINTERPRETED:
        return leaf
    if isinstance(leaf, z3.FPRef) and z3.is_app(leaf) and \
            leaf.decl().kind() == z3.Z3_OP_FPA_TO_FP and leaf.num_args() == 1:
        return _settable(leaf.arg(0))
    return None


def _distinct_value(n: int, ctype: CType, target: z3.ExprRef,
                    masked: Written | None = None) -> z3.ExprRef | None:
    """The `n`th distinct value for an input of type `ctype` held in `target` (`masked`:
    an integer the outputs combine bitwise, which gets bits across its whole width, clear
    where the code sets bits in it and set where it clears them); None for types whose
    values are few or named (bool, enums)."""
    step = n % _CYCLE
    if isinstance(ctype, IntType) and isinstance(target, z3.BitVecRef):
        if ctype.is_bool or isinstance(ctype, EnumType):
            return None
        if masked is not None:
            sets, clears = masked
            pattern = _byte_pattern(n, target, _MASK_BYTES).as_long()
            return z3.BitVecVal((pattern & ~sets) | clears, target.size())
        number = ord("A") + step % 26 if ctype.name == "char" else 1 + step
        return z3.BitVecVal(number, target.size())
    if isinstance(ctype, FloatType):
        value = 1.5 + step
        if isinstance(target, z3.FPRef):
            return z3.FPVal(value, target.sort())
        if isinstance(target, z3.BitVecRef):  # the bits a float input was read as
            bits = z3.simplify(z3.fpToIEEEBV(z3.FPVal(value, fp_sort(ctype))))
            return bits if bits.size() == target.size() else None
    return None


def _byte_pattern(n: int, target: z3.BitVecRef, table: tuple[int, ...] | None = None
                  ) -> z3.BitVecRef:
    """A value for `target` whose bytes count up from the `n`th distinct value (or, with
    a `table`, are its bytes from the `n`th on)."""
    value = 0
    for k in range(max(1, target.size() // 8)):
        byte = table[(n + k) % len(table)] if table else 1 + (n + k) % _CYCLE
        value |= byte << (8 * k)
    return z3.BitVecVal(value & ((1 << target.size()) - 1), target.size())


#: The bytes of the distinct values of inputs the outputs combine bitwise: four bits of
#: eight set in each, in different places, so a wrong mask, shift or bit operator shows.
_MASK_BYTES = (0xA5, 0x3C, 0x96, 0x5A, 0xC3, 0x69, 0xE1, 0x1E)
#: Operations an input is an operand of that make its bits matter one by one.
_BITWISE_KINDS = frozenset({z3.Z3_OP_BAND, z3.Z3_OP_BOR, z3.Z3_OP_BXOR, z3.Z3_OP_BNOT,
                            z3.Z3_OP_BSHL, z3.Z3_OP_BLSHR, z3.Z3_OP_BASHR})
_SHIFT_KINDS = frozenset({z3.Z3_OP_BSHL, z3.Z3_OP_BLSHR, z3.Z3_OP_BASHR})
#: Operations looked through from a bitwise operation to the input under it.
_THROUGH_KINDS = frozenset({z3.Z3_OP_EXTRACT, z3.Z3_OP_CONCAT, z3.Z3_OP_ZERO_EXT,
                            z3.Z3_OP_SIGN_EXT})


#: The bits an `|` sets or an `&` clears in an input: it gets them clear or set, so the
#: operation's write shows.
Written = tuple[int, int]


def _bitwise_operands(terms: list[z3.ExprRef], model: Model) -> dict[int, Written]:
    """The declarations of the inputs that are operands of a bitwise operation or shift
    in `terms` (looking through extractions, concatenations and extensions), each with the
    bits that an `|` sets in it and an `&` clears in it, where it is an operand itself (the
    other operands as `model` has them)."""
    found: dict[int, Written] = {}
    seen: set[tuple[int, bool]] = set()
    work = [(t, False) for t in terms]
    while work:
        term, under = work.pop()
        key = (term.get_id(), under)
        if key in seen or not z3.is_app(term):
            continue
        seen.add(key)
        kind = term.decl().kind()
        if kind == z3.Z3_OP_UNINTERPRETED:
            if under and term.num_args() == 0:
                found.setdefault(term.decl().get_id(), (0, 0))
            continue
        below = kind in _BITWISE_KINDS or (under and kind in _THROUGH_KINDS)
        children = term.children()
        if kind in (z3.Z3_OP_BOR, z3.Z3_OP_BAND):
            _note_written(found, kind, children, model)
        if kind in _SHIFT_KINDS:  # the count is no mask
            work.append((children[1], False))
            children = children[:1]
        work.extend((child, below) for child in children)
    return found


def _note_written(found: dict[int, Written], kind: int, operands: list[z3.ExprRef],
                  model: Model) -> None:
    """Note the bits an `|` (`kind` BOR) sets, or an `&` clears, in each input among its
    `operands`: those of the other operands' value in `model`."""
    width = operands[0].size()
    for k, operand in enumerate(operands):
        o = operand  # an input, perhaps widened (a uint8_t global | an int)
        while z3.is_app(o) and o.decl().kind() in (z3.Z3_OP_ZERO_EXT, z3.Z3_OP_SIGN_EXT):
            o = o.arg(0)
        if not (z3.is_app(o) and o.decl().kind() == z3.Z3_OP_UNINTERPRETED and
                o.num_args() == 0):
            continue
        others = operands[:k] + operands[k + 1:]
        if not others:
            continue
        other = z3.BitVecVal(0, width) if kind == z3.Z3_OP_BOR else \
            z3.BitVecVal((1 << width) - 1, width)
        for x in others:
            other = other | x if kind == z3.Z3_OP_BOR else other & x
        value = model.eval(other, model_completion=True)
        if not z3.is_bv_value(value):
            continue
        sets, clears = found.get(o.decl().get_id(), (0, 0))
        bits = (1 << o.size()) - 1
        if kind == z3.Z3_OP_BOR:
            sets |= value.as_long() & bits
        else:
            clears |= ~value.as_long() & bits
        found[o.decl().get_id()] = (sets, clears)


def _masked_bytes(n: int, target: z3.BitVecRef, masked: Written, model: Model,
                  conditions: list[z3.ExprRef]) -> z3.BitVecRef | None:
    """An integer the path constrains that the outputs combine bitwise (`(reg >> pos) &
    mask` with a result other than 0): the model's value with its zero bytes filled from
    the mask pattern of `_distinct_value` (`_zero_bytes_filled`), so a wrong mask or shift
    shows beyond the bits the path chose; None when no byte is."""
    mentioned = _mentioning(conditions, target)
    current = model.eval(target, model_completion=True)
    if not mentioned or not z3.is_bv_value(current):
        return None
    before = [model.eval(c, model_completion=True) for c in mentioned]
    sets, clears = masked
    pattern = (_byte_pattern(n, target, _MASK_BYTES).as_long() & ~sets) | clears
    return _zero_bytes_filled(model, target, current.as_long(), pattern, mentioned, before)


def _distinct_bytes(n: int, target: z3.BitVecRef, model: Model,
                    conditions: list[z3.ExprRef]) -> z3.BitVecRef | None:
    """A union or record with bitfields (one input of all its bits) that the path
    constrains, a bitfield or member of it say: the model's value with its zero bytes
    filled from its distinct bytes (`_zero_bytes_filled`), so the members the path leaves
    free are not all 0 (a cleared bitfield must show); None when no byte is."""
    mentioned = _mentioning(conditions, target)
    if not mentioned:
        return None
    before = [model.eval(c, model_completion=True) for c in mentioned]
    current = model.eval(target, model_completion=True)
    if not z3.is_bv_value(current):
        return None
    pattern = sum((1 + (n + k) % _CYCLE) << (8 * k)  # _byte_pattern's, made no term
                  for k in range(min(target.size() // 8, _MOST_BYTES)))
    return _zero_bytes_filled(model, target, current.as_long(), pattern, mentioned, before)


def _zero_bytes_filled(model: Model, target: z3.BitVecRef, value: int, pattern: int,
                       mentioned: list[z3.ExprRef], before: list[z3.ExprRef]
                       ) -> z3.BitVecRef | None:
    """`value`, the input `target`'s in `model`, with each of its first `_MOST_BYTES`
    bytes that is 0 set to that byte of `pattern` where the conditions `mentioned` (which
    were `before`) evaluate as before; None when no byte is. (The callers evaluate
    `before` and `value` in the order they always have: the order in which terms are made
    decides z3's ids, and so the cases.)"""
    changed = False
    for k in range(min(target.size() // 8, _MOST_BYTES)):
        byte = pattern >> (8 * k) & 0xFF
        if value >> (8 * k) & 0xFF or not byte:
            continue
        candidate = value | byte << (8 * k)
        if _keeps(model, target, candidate, mentioned, before):
            value, changed = candidate, True
    return z3.BitVecVal(value, target.size()) if changed else None
