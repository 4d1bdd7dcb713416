"""Constant expressions of the AST evaluated as gcc folds them on x86-64 (integer constant
expressions of array sizes, enumerators, bit-field widths and case labels; arithmetic and
address constants), and the types of expressions as `sizeof` and `__typeof__` see them.
The arithmetic itself is constant_eval.py's; names and types come from the TypeResolver."""
from __future__ import annotations

from typing import TYPE_CHECKING

from pycparser import c_ast

from ..errors import UnsupportedError
from .builtins import BIT_BUILTINS
from .builtins import evaluate as evaluate_builtin
from .constant_eval import (
    COMPARISONS, compare, convert_constant, float_binary, integer_binary, unary)
from .ctype import (
    INT, PTRDIFF_T, SIZE_T, VOID, ArrayType, CType, FloatType, FunctionType, IntType,
    PointerType, RecordType, compatible, decay, integer_promotion, member_offset,
    usual_arithmetic_conversion)
from .gnu_ast import CHOOSE_EXPR, TYPES_COMPATIBLE, GenericSelection
from .literals import char_literal, float_literal, int_literal, is_imaginary, string_literal
from .locations import node_location, unsupported
from .scopes import TYPEDEF

if TYPE_CHECKING:
    from .typeresolve import TypeResolver

Value = tuple[int | float, CType]


class ConstantEvaluator:
    """C constant folding on (value, type) pairs: operands are converted by the usual
    arithmetic conversions and results wrap in their type, as gcc folds them."""

    def __init__(self, resolver: TypeResolver) -> None:
        self.resolver = resolver

    def evaluate(self, node: c_ast.Node) -> Value:
        method = getattr(self, f"_eval_{type(node).__name__}", None)
        if method is None:
            raise unsupported("expression is not a constant", node)
        result: Value = method(node)
        return result

    def _eval_Constant(self, node: c_ast.Constant) -> Value:
        try:
            if node.type == "string":
                raise unsupported("string literal in a constant expression", node)
            if node.type == "char" or node.value.endswith("'"):  # 'ab' is an int to pycparser
                return char_literal(node.value)
            if is_imaginary(node.value):
                raise unsupported(f"imaginary constant '{node.value}'", node)
            try:
                return int_literal(node.value)
            except ValueError:
                value, ctype = float_literal(node.value)
        except (ValueError, IndexError):
            raise unsupported(f"invalid constant {node.value}", node) from None
        return convert(value, ctype, ctype, node)

    def _eval_ID(self, node: c_ast.ID) -> Value:
        found = self.resolver.lookup_enum_constant(node.name)
        if found is None:
            raise unsupported(f"'{node.name}' is not a constant", node)
        return found

    def _eval_UnaryOp(self, node: c_ast.UnaryOp) -> Value:
        op = node.op
        if op == "sizeof":
            ctype = self._operand_type(node.expr)
            self._note_layout(ctype)
            if isinstance(ctype, FunctionType) or ctype == VOID:
                return 1, SIZE_T
            if not ctype.is_complete:
                raise unsupported(f"sizeof of incomplete type '{ctype}'", node)
            return ctype.size, SIZE_T
        if op in ("_Alignof", "alignof"):
            ctype = self._operand_type(node.expr)
            self._note_layout(ctype)
            return (1 if isinstance(ctype, FunctionType) else ctype.align), SIZE_T
        if op == "&":
            self.resolver.layout_constants += 1
            address, ctype = self._address(node.expr)
            return address, PointerType(ctype)
        value, ctype = self.evaluate(node.expr)
        if isinstance(ctype, IntType):
            ctype = integer_promotion(ctype)
        result = unary(op, value, ctype)
        if op == "!" and result is not None:
            return result, INT
        if result is None:
            where = "on a floating constant" if isinstance(ctype, FloatType) \
                else "in a constant expression"
            raise unsupported(f"operator {op} {where}", node)
        return result, ctype

    def _note_layout(self, ctype: CType) -> None:
        while isinstance(ctype, ArrayType):
            ctype = ctype.element
        if isinstance(ctype, RecordType):
            self.resolver.layout_constants += 1

    def _operand_type(self, operand: c_ast.Node) -> CType:
        if isinstance(operand, c_ast.Typename):
            return self.resolver.resolve(operand)
        return self.type_of(operand)

    def _eval_Cast(self, node: c_ast.Cast) -> Value:
        target = self.resolver.resolve(node.to_type)
        return convert(*self.evaluate(node.expr), target, node)

    def _eval_TernaryOp(self, node: c_ast.TernaryOp) -> Value:
        cond, _ = self.evaluate(node.cond)
        chosen, other = (node.iftrue, node.iffalse) if cond else (node.iffalse, node.iftrue)
        value, ctype = self.evaluate(chosen)
        try:
            other_type = decay(self.type_of(other))
        except UnsupportedError:
            other_type = ctype
        if ctype.is_arithmetic and other_type.is_arithmetic:
            return convert(value, ctype, usual_arithmetic_conversion(ctype, other_type), node)
        return value, ctype

    def _eval_BinaryOp(self, node: c_ast.BinaryOp) -> Value:
        op = node.op
        if op in ("&&", "||"):
            left, _ = self.evaluate(node.left)
            if (op == "&&") != bool(left):
                return (1 if left else 0), INT
            right, _ = self.evaluate(node.right)
            return (1 if right else 0), INT
        lv, lt = self.evaluate(node.left)
        rv, rt = self.evaluate(node.right)
        if not (lt.is_arithmetic and rt.is_arithmetic):
            raise unsupported(f"operator {op} on non-arithmetic constants", node)
        if op in ("<<", ">>"):
            return self._shift(node, op, lv, lt, rv, rt)
        common = usual_arithmetic_conversion(lt, rt)
        a, _ = convert(lv, lt, common, node)
        b, _ = convert(rv, rt, common, node)
        if op in COMPARISONS:
            return compare(op, a, b), INT
        if isinstance(common, FloatType):
            result = float_binary(op, float(a), float(b), common)
            if result is None:
                raise unsupported(f"operator {op} on floating constants", node)
            return result, common
        assert isinstance(common, IntType)
        value = integer_binary(op, int(a), int(b), common)
        if value is None:
            if op in ("/", "%") and b == 0:
                raise unsupported("division by zero in a constant expression", node)
            raise unsupported(f"operator {op} in a constant expression", node)
        return value, common

    def _shift(self, node: c_ast.Node, op: str, lv: int | float, lt: CType, rv: int | float,
               rt: CType) -> Value:
        if not isinstance(lt, IntType) or not isinstance(rt, IntType):
            raise unsupported(f"operator {op} on floating constants", node)
        promoted = integer_promotion(lt)
        value = integer_binary(op, int(lv), int(rv), promoted)
        if value is None:
            raise unsupported("negative shift count in a constant expression", node)
        return value, promoted

    def _eval_GenericSelection(self, node: GenericSelection) -> Value:
        return self.evaluate(self._association(node))

    def _type_GenericSelection(self, node: GenericSelection) -> CType:
        return self.type_of(self._association(node))

    def _association(self, node: GenericSelection) -> c_ast.Node:
        operand = self.type_of(node.expr)
        # the pointed-to type's qualifiers are known for a named object, a cast, a string
        known = isinstance(node.expr, (c_ast.Cast, c_ast.ID, c_ast.Constant))
        if isinstance(operand, ArrayType):  # decays to a pointer to its qualified elements
            entry = self.resolver.lookup(node.expr.name) \
                if isinstance(node.expr, c_ast.ID) else None
            quals = entry.quals if entry is not None else frozenset()
            operand = PointerType(operand.element, target_const="const" in quals,
                                  target_volatile="volatile" in quals)
        return generic_association(self.resolver, node, decay(operand), known)

    def _eval_FuncCall(self, node: c_ast.FuncCall) -> Value:
        name = node.name.name if isinstance(node.name, c_ast.ID) else None
        args = node.args.exprs if node.args is not None else []
        if name == TYPES_COMPATIBLE:
            return types_compatible(self.resolver, node), INT
        if name == CHOOSE_EXPR and len(args) == 3:
            return self.evaluate(self._chosen(node))
        if isinstance(node.name, c_ast.ID) and node.name.name == "offsetof" and node.args:
            typename, designator = node.args.exprs
            self.resolver.layout_constants += 1
            offset, _ = self._designator(self.resolver.resolve(typename), designator)
            return offset, SIZE_T
        builtin = BIT_BUILTINS.get(node.name.name) if isinstance(node.name, c_ast.ID) else None
        if builtin is not None and node.args is not None and len(node.args.exprs) == 1:
            operand, _ = convert(*self.evaluate(node.args.exprs[0]), builtin.argument, node)
            result = evaluate_builtin(builtin, int(operand))
            if result is None:
                raise unsupported(f"{node.name.name} of 0, which gcc leaves undefined", node)
            return result, builtin.result
        raise unsupported("function call in a constant expression", node)

    def _designator(self, ctype: CType, node: c_ast.Node) -> tuple[int, CType]:
        if isinstance(node, c_ast.ID):
            return self._member(ctype, node.name, node)
        if isinstance(node, c_ast.StructRef) and node.type == ".":
            offset, inner = self._designator(ctype, node.name)
            extra, member = self._member(inner, node.field.name, node)
            return offset + extra, member
        if isinstance(node, c_ast.ArrayRef):
            offset, inner = self._designator(ctype, node.name)
            if not isinstance(inner, ArrayType):
                raise unsupported("subscript of a non-array in offsetof", node)
            index = self.resolver.eval_int_constant(node.subscript)
            return offset + index * inner.element.size, inner.element
        raise unsupported("member designator in offsetof", node)

    def _member(self, ctype: CType, name: str, node: c_ast.Node) -> tuple[int, CType]:
        if not isinstance(ctype, RecordType) or not ctype.is_complete:
            raise unsupported(f"member '{name}' of a non-record or incomplete type", node)
        found = member_offset(ctype, name)
        if found is None:
            raise unsupported(f"'{ctype}' has no member named '{name}'", node)
        offset, f = found
        if f.is_bitfield:
            raise unsupported(f"address of bit-field '{name}'", node)
        return offset, f.type

    def _address(self, node: c_ast.Node) -> tuple[int, CType]:
        """Address constants built on an integer cast to a pointer (`&((T *)0)->m`)."""
        if isinstance(node, c_ast.StructRef):
            if node.type == "->":
                base, ptr = self.evaluate(node.name)
                if not isinstance(ptr, PointerType):
                    raise unsupported("'->' on a non-pointer constant", node)
                offset, member = self._member(ptr.target, node.field.name, node)
                return int(base) + offset, member
            base, record = self._address(node.name)
            offset, member = self._member(record, node.field.name, node)
            return base + offset, member
        if isinstance(node, c_ast.ArrayRef):
            base, array = self._address(node.name)
            element = array.element if isinstance(array, ArrayType) else None
            if element is None:
                raise unsupported("subscript in an address constant", node)
            return base + self.resolver.eval_int_constant(node.subscript) * element.size, element
        if isinstance(node, c_ast.UnaryOp) and node.op == "*":
            value, ptr = self.evaluate(node.expr)
            if isinstance(ptr, PointerType):
                return int(value), ptr.target
        raise unsupported("address in a constant expression", node)

    # ----------------------------------------------------------------- types

    def type_of(self, node: c_ast.Node) -> CType:
        method = getattr(self, f"_type_{type(node).__name__}", None)
        if method is None:
            raise unsupported(f"cannot determine the type of {type(node).__name__}", node)
        result: CType = method(node)
        return result

    def _type_Constant(self, node: c_ast.Constant) -> CType:
        if node.type == "string":
            units, element = string_literal(node.value)
            return ArrayType(element, len(units) + 1)
        if node.type in ("float", "double", "long double") and not is_imaginary(node.value):
            try:
                return float_literal(node.value)[1]
            except ValueError:
                pass
        return self.evaluate(node)[1]

    def _type_ID(self, node: c_ast.ID) -> CType:
        entry = self.resolver.lookup(node.name)
        if entry is None or entry.kind == TYPEDEF:
            raise unsupported(f"'{node.name}' undeclared", node)
        return entry.type

    def _type_UnaryOp(self, node: c_ast.UnaryOp) -> CType:
        op = node.op
        if op in ("sizeof", "_Alignof", "alignof"):
            return SIZE_T
        if op == "!":
            return INT
        operand = self.type_of(node.expr)
        if op == "*":
            target = decay(operand)
            if not isinstance(target, PointerType):
                raise unsupported("dereference of a non-pointer", node)
            return target.target
        if op == "&":
            return PointerType(operand)
        if op in ("-", "+", "~"):
            return integer_promotion(operand) if isinstance(operand, IntType) else operand
        return operand

    def _type_ArrayRef(self, node: c_ast.ArrayRef) -> CType:
        base = decay(self.type_of(node.name))
        if not isinstance(base, PointerType):
            base = decay(self.type_of(node.subscript))
        if not isinstance(base, PointerType):
            raise unsupported("subscript of a non-array", node)
        return base.target

    def _type_StructRef(self, node: c_ast.StructRef) -> CType:
        base = self.type_of(node.name)
        if node.type == "->":
            pointer = decay(base)
            if not isinstance(pointer, PointerType):
                raise unsupported("'->' on a non-pointer", node)
            base = pointer.target
        if not isinstance(base, RecordType):
            raise unsupported(f"member '{node.field.name}' of a non-record", node)
        found = member_offset(base, node.field.name)
        if found is None:
            raise unsupported(f"'{base}' has no member named '{node.field.name}'", node)
        return found[1].type

    def _type_Cast(self, node: c_ast.Cast) -> CType:
        return self.resolver.resolve(node.to_type)

    def _type_CompoundLiteral(self, node: c_ast.CompoundLiteral) -> CType:
        return self.resolver.compound_literal_type(node)

    def _type_BinaryOp(self, node: c_ast.BinaryOp) -> CType:
        op = node.op
        if op in COMPARISONS or op in ("&&", "||"):
            return INT
        left, right = decay(self.type_of(node.left)), decay(self.type_of(node.right))
        if op in ("<<", ">>"):
            return integer_promotion(left) if isinstance(left, IntType) else left
        if op in ("+", "-"):
            if isinstance(left, PointerType) and isinstance(right, PointerType):
                return PTRDIFF_T
            if isinstance(left, PointerType):
                return left
            if isinstance(right, PointerType):
                return right
        if left.is_arithmetic and right.is_arithmetic:
            return usual_arithmetic_conversion(left, right)
        raise unsupported(f"operator {op} on these operands", node)

    def _type_Assignment(self, node: c_ast.Assignment) -> CType:
        return self.type_of(node.lvalue)

    def _type_TernaryOp(self, node: c_ast.TernaryOp) -> CType:
        a, b = decay(self.type_of(node.iftrue)), decay(self.type_of(node.iffalse))
        if a.is_arithmetic and b.is_arithmetic:
            return usual_arithmetic_conversion(a, b)
        return a

    def _chosen(self, node: c_ast.FuncCall) -> c_ast.Node:
        """The operand `__builtin_choose_expr(const, a, b)` stands for."""
        condition, then, otherwise = node.args.exprs
        return then if self.resolver.eval_int_constant(condition) else otherwise

    def _type_FuncCall(self, node: c_ast.FuncCall) -> CType:
        name = node.name.name if isinstance(node.name, c_ast.ID) else None
        if name == TYPES_COMPATIBLE:
            return INT
        if name == CHOOSE_EXPR and node.args is not None and len(node.args.exprs) == 3:
            return self.type_of(self._chosen(node))
        if isinstance(node.name, c_ast.ID) and node.name.name == "offsetof":
            return SIZE_T
        if isinstance(node.name, c_ast.ID) and node.name.name in BIT_BUILTINS:
            return BIT_BUILTINS[node.name.name].result
        callee = decay(self.type_of(node.name))
        if isinstance(callee, PointerType) and isinstance(callee.target, FunctionType):
            return callee.target.result
        raise unsupported("call of a non-function", node)

    def _type_ExprList(self, node: c_ast.ExprList) -> CType:
        return self.type_of(node.exprs[-1])


def types_compatible(resolver: TypeResolver, node: c_ast.FuncCall) -> int:
    """GNU `__builtin_types_compatible_p(type1, type2)`: 1 when the type names denote
    compatible types (top-level qualifiers aside), else 0."""
    operands = node.args.exprs if node.args is not None else []
    if len(operands) != 2 or not all(isinstance(t, c_ast.Typename) for t in operands):
        raise unsupported(f"{TYPES_COMPATIBLE} takes two type names", node)
    first, second = (resolver.resolve(t) for t in operands)
    return 1 if compatible(first, second) else 0


def generic_association(resolver: TypeResolver, node: GenericSelection, operand: CType,
                        target_qualifiers_known: bool = True) -> c_ast.Node:
    """The expression a C11 generic selection stands for: that of the association whose
    type is compatible with `operand` (the controlling expression's type after lvalue
    conversion: decayed, unqualified), else the default one. When `operand` is a pointer
    whose target's qualifiers are not known, the choice must not depend on them."""
    types = [None if t is None else resolver.resolve(t) for t in node.types]
    candidates = [operand]
    if isinstance(operand, PointerType) and not target_qualifiers_known:
        candidates = [PointerType(operand.target, target_const=const, target_volatile=volatile)
                      for const in (False, True) for volatile in (False, True)]
    chosen: set[int] = set()
    for candidate in candidates:
        matches = [i for i, t in enumerate(types) if t is not None and compatible(candidate, t)]
        defaults = [i for i, t in enumerate(types) if t is None]
        if matches or defaults:
            chosen.add((matches or defaults)[0])
    if not chosen:
        raise UnsupportedError(
            f"_Generic: no association matches the controlling type '{operand}'",
            node_location(node))
    if len(chosen) > 1:
        raise unsupported("_Generic selection that depends on the qualifiers of what its "
                           "controlling pointer points to", node)
    return node.exprs[chosen.pop()]


def convert(value: int | float, source: CType, target: CType,
            node: c_ast.Node | None = None) -> Value:
    """A constant of type `source` converted to `target` as by a cast (constant_eval's
    rules); a conversion C leaves undefined is unsupported."""
    if isinstance(target, FloatType) and target.unmodelled is not None:
        raise unsupported(f"constant of type '{target}' ({target.unmodelled})", node)
    result = convert_constant(value, source, target)
    if result is not None:
        return result, target
    if isinstance(target, IntType):
        raise unsupported(f"conversion of a value out of the range of {target} ({value})",
                           node)
    if isinstance(target, PointerType) and isinstance(value, float):
        raise unsupported("conversion of a floating constant to a pointer", node)
    raise unsupported(f"conversion to '{target}' in a constant expression", node)
