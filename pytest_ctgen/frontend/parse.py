"""Parsing preprocessed C with pycparser. Every failure becomes a `ParseError` located at
`file:line:col` in the user's own files (line markers are followed), never a pycparser
exception."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, Final, NoReturn, cast

from pycparser import c_ast, c_parser
from pycparser.c_lexer import CLexer
from pycparser.c_parser import Coord, CParser

from ..errors import ParseError, SourceLocation, UnsupportedError
from .ctype import EXTENDED_FLOATS, PREDEFINED_TYPEDEFS
from .gnu_ast import (
    ASM_MARKER, AUTO_TYPE, TYPES_COMPATIBLE, ComputedGoto, GenericSelection, LocalLabels,
    TypeofSpecifier)
from .locations import coord_location, include_site, unescape_marker_file

if TYPE_CHECKING:
    # pycparser's token: `type`, `value`, `lineno`, `column` (private, but what its lexer
    # returns and its parser buffers)
    from pycparser.c_lexer import _Token as Token

Position = tuple[str, int, int]


@dataclass(frozen=True)
class ParsedFile:
    """An AST plus what pycparser does not record: where each `{` block closes, and the
    declarations and function definitions that use a construct the lexer drops although
    the generator cannot model it (see `_UNMODELLED_ATTRIBUTES`), by `id` of their node."""

    ast: c_ast.FileAST
    block_ends: dict[Position, Position] = field(default_factory=dict)
    unsupported: dict[int, UnsupportedError] = field(default_factory=dict)

    def block_end(self, compound: c_ast.Compound) -> Position | None:
        """Position of the `}` that closes `compound`."""
        coord = compound.coord
        if coord is None:
            return None
        key = (unescape_marker_file(coord.file), coord.line, coord.column or 0)
        return self.block_ends.get(key)


#: Token types of GNU C's type specifiers `__typeof__(...)`, `__auto_type` and of gcc's
#: further floating types (`_Float32`, `__float128`, `_Decimal64`, ...), which pycparser's
#: lexer reads as identifiers; `_TrackingLexer` gives them these types.
_TYPEOF, _AUTO_TYPE, _FLOAT_TYPE = "CTGEN_TYPEOF", "CTGEN_AUTO_TYPE", "CTGEN_FLOAT_TYPE"
# pycparser keeps its token classes in module-level sets; only our lexer makes these token
# types, so other users of pycparser in the process (cffi) see no difference.
c_parser._TYPE_SPEC_SIMPLE.update((_TYPEOF, _AUTO_TYPE, _FLOAT_TYPE))
c_parser._DECL_START.update((_TYPEOF, _AUTO_TYPE, _FLOAT_TYPE))

#: Attributes the lexer drops although they change what the code means, by name (without
#: surrounding underscores): the declaration or function using one is not supported.
_UNMODELLED_ATTRIBUTES: Final = {
    "cleanup": "attribute 'cleanup' (a function runs when the variable goes out of scope)",
    "vector_size": "vector type (attribute 'vector_size')",
    "mode": "attribute 'mode' (it changes the width of the type)",
    "scalar_storage_order": "attribute 'scalar_storage_order' (it changes the byte order)",
}
#: Attributes that change the layout of a type, which only the layout probe measures: it
#: sees the file-scope types, not those a function defines.
_LAYOUT_ATTRIBUTES: Final = {
    "packed": "attribute 'packed' on a type defined in a function (its layout is not probed)",
}
#: gcc's x86 named address spaces: objects in another segment, which no model holds.
_ADDRESS_SPACES: Final = frozenset({"__seg_fs", "__seg_gs"})
# the rest of a preprocessing number after the part pycparser's lexer takes (`f32` of
# `1.0f32`, `i` of the imaginary `2.0i`): C makes it one token
#: The tokens of string literals: plain, `L`, `u8`, `u` and `U`.
_STRING_TOKENS: Final = frozenset({"STRING_LITERAL", "WSTRING_LITERAL", "U8STRING_LITERAL",
                                   "U16STRING_LITERAL", "U32STRING_LITERAL"})
_HEX_DIGITS: Final = frozenset("0123456789abcdefABCDEF")
#: The end of a string literal's text that is a hexadecimal or octal escape a digit after
#: it would continue (`\\x1`, `\\12`; not `\\\\1`, an escaped backslash and a 1).
_OPEN_ESCAPE: Final = re.compile(r"(?<!\\)(?:\\\\)*\\(?:x[0-9a-fA-F]*|[0-7]{1,2})$")
_NUMBER_TAIL = re.compile(r"[0-9A-Za-z_]+")
_NUMBER_TOKENS: Final = frozenset({"INT_CONST_DEC", "INT_CONST_OCT", "INT_CONST_HEX",
                                   "INT_CONST_BIN", "FLOAT_CONST", "HEX_FLOAT_CONST"})


class _ParserFailure(Exception):
    def __init__(self, message: str, coord: Coord | None) -> None:
        super().__init__(message)
        self.message = message
        self.coord = coord


class _TrackingLexer(CLexer):
    """A CLexer that remembers the file each token came from and pairs braces; it gives
    GNU keywords pycparser does not know their own token types, reads `asm` itself and
    drops attributes (`__attribute__((...))`, `[[...]]`) and named address spaces,
    remembering in `flags` those that change what the code means."""

    #: Whether `typeof` and `asm` are keywords (GNU dialects), besides `__typeof__` and
    #: `__asm__`.
    gnu_keywords = True
    #: the lexer's position in `_lexdata` (CLexer's own state, which `_next_token` moves
    #: past the tail of a preprocessing number)
    _pos: int

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.origins: dict[int, tuple[str, int]] = {}
        self.block_ends: dict[Position, Position] = {}
        self._open: list[Position] = []
        self._pending: list[Token | None] = []
        self._previous: str | None = None
        #: (text offset, location, what, only in a block) of each dropped construct the
        #: generator cannot model (in a function's declarations only, for the last); the
        #: parser gives each to the declaration that holds it
        self.flags: list[tuple[int, SourceLocation, str, bool]] = []
        super().__init__(*args, **kwargs)

    def token(self) -> Token | None:
        if self._pending:
            tok = self._pending.pop(0)
        else:
            tok = self._next_token()
            while tok is not None and self._dropped(tok):
                tok = self._next_token()
            if tok is not None and tok.type == "ID" and (tok.value in ("__asm__", "__asm") or (
                    tok.value == "asm" and self.gnu_keywords)):
                return self._asm(tok)
        self._previous = tok.type if tok is not None else None
        return tok

    def _dropped(self, tok: Token) -> bool:
        """Whether `tok` starts what C's meaning does not need to see (an attribute, a
        named address space), which is then consumed; what changes the meaning is
        flagged."""
        if tok.type == "ID" and tok.value in _ADDRESS_SPACES:
            self._flag(tok, f"named address space '{tok.value}'")
            return True
        if tok.type == "ID" and tok.value in ("__attribute__", "__attribute"):
            depth = 0
        elif tok.type == "LBRACKET":
            after = self._next_token()
            if after is None or after.type != "LBRACKET":  # not a standard attribute
                self._pending.append(after)
                return False
            depth = 2
        else:
            return False
        while True:  # to the bracket closing `__attribute__((` or `[[`
            inner = self._next_token()
            if inner is None:
                return True
            if inner.type in ("LPAREN", "LBRACKET"):
                depth += 1
            elif inner.type in ("RPAREN", "RBRACKET"):
                depth -= 1
                if depth == 0:
                    return True
            elif depth == 2 and inner.type in ("ID", "TYPEID"):  # an attribute's name
                name = inner.value.strip("_")
                if name in _UNMODELLED_ATTRIBUTES:
                    self._flag(tok, _UNMODELLED_ATTRIBUTES[name])
                elif name in _LAYOUT_ATTRIBUTES:
                    self._flag(tok, _LAYOUT_ATTRIBUTES[name], in_block=True)

    def _flag(self, tok: Token, what: str, in_block: bool = False) -> None:
        origin = self.origins.get(id(tok), (self._filename, 0))
        location = SourceLocation(origin[0], tok.lineno, tok.column)
        self.flags.append((origin[1], location, what, in_block))

    def _next_token(self) -> Token | None:
        tok = super().token()
        if tok is None:
            return None
        if tok.type == "ID":
            if tok.value in ("__typeof__", "__typeof") or (
                    tok.value == "typeof" and self.gnu_keywords):
                tok.type = _TYPEOF
            elif tok.value == AUTO_TYPE:
                tok.type = _AUTO_TYPE
        if tok.type in ("ID", "TYPEID") and tok.value in EXTENDED_FLOATS:
            tok.type = _FLOAT_TYPE
        elif tok.type in _NUMBER_TOKENS:
            tail = _NUMBER_TAIL.match(self._lexdata, self._pos)
            if tail is not None:
                tok.value += tail.group()
                self._pos = tail.end()
        filename = unescape_marker_file(self._filename)
        self.origins[id(tok)] = (filename, self._line_start + tok.column - 1)
        if tok.type == "LBRACE":
            self._open.append((filename, tok.lineno, tok.column))
        elif tok.type == "RBRACE" and self._open:
            self.block_ends[self._open.pop()] = (filename, tok.lineno, tok.column)
        return tok

    def _asm(self, keyword: Token) -> Token | None:
        """GNU `asm [volatile|inline|goto] (template : outputs : inputs : clobbers :
        labels)`. An asm label on a declarator (`int f(void) asm("name")`) and a file-scope
        asm say nothing about C objects: they are dropped. An asm statement becomes the
        marker call `__ctgen_asm(1)` when it has operands or labels, else
        `__ctgen_asm(0)` (see ASM_MARKER)."""
        tok = self._next_token()
        while tok is not None and tok.type in ("VOLATILE", "INLINE", "GOTO"):
            tok = self._next_token()
        if tok is None or tok.type != "LPAREN":  # not GNU asm: let the parser report it
            self._pending.append(tok)
            self._previous = keyword.type
            return keyword
        depth, section, used = 1, 0, [False] * 5
        while depth:
            tok = self._next_token()
            if tok is None:
                return None
            if tok.type == "LPAREN":
                depth += 1
            elif tok.type == "RPAREN":
                depth -= 1
            if depth == 1 and tok.type == "COLON":
                section = min(section + 1, 4)
            elif depth:
                used[section] = True
        in_function = bool(self._open) and self._previous not in ("ID", "TYPEID", "RBRACKET")
        if not in_function:
            return self.token()
        operands = "1" if used[1] or used[2] or used[4] else "0"
        origin = self.origins.get(id(keyword))
        for kind, value in (("ID", ASM_MARKER), ("LPAREN", "("), ("INT_CONST_DEC", operands),
                            ("RPAREN", ")")):
            marker = type(keyword)(kind, value, keyword.lineno, keyword.column)
            if origin is not None:
                self.origins[id(marker)] = origin
            self._pending.append(marker)
        return self.token()

    def file_of(self, tok: Token) -> str:
        origin = self.origins.get(id(tok))
        return origin[0] if origin else self._filename


class _Parser(CParser):
    """CParser whose coordinates use each token's own file, and whose errors always carry a
    line and column."""

    def __init__(self, gnu_keywords: bool = True) -> None:
        super().__init__(lexer=_TrackingLexer)
        self.lexer.gnu_keywords = gnu_keywords
        #: why each declaration or definition holding a flagged construct is unsupported
        self.flagged: dict[int, UnsupportedError] = {}
        self._claimed: set[int] = set()

    @property
    def lexer(self) -> _TrackingLexer:
        return cast(_TrackingLexer, self.clex)

    def _advance(self) -> Token:
        tok = super()._advance()
        if tok.type == _TYPEOF:  # its operand belongs to the specifier
            self._expect("LPAREN")
            operand = self._parse_type_name() if self._starts_declaration() \
                else self._parse_expression()
            self._expect("RPAREN")
            tok.value = TypeofSpecifier(operand)
        return tok

    def _parse_assignment_expression(self) -> c_ast.Node:
        # pycparser takes a GNU statement expression `({ ... })` only as a whole assignment
        # expression; it is a primary expression (`({ ... }) + 1`, `-({ ... })`)
        expr = self._parse_conditional_expression()
        if self._is_assignment_op():
            op = self._advance().value
            rhs = self._parse_assignment_expression()
            return c_ast.Assignment(op, expr, rhs, expr.coord)
        return expr

    def _parse_conditional_expression(self) -> c_ast.Node:
        expr = self._parse_binary_expression()
        if not self._accept("CONDOP"):
            return expr
        if self._accept("COLON"):  # GNU `a ?: b`: see `is_elvis`
            return c_ast.TernaryOp(expr, expr, self._parse_conditional_expression(),
                                   expr.coord)
        iftrue = self._parse_expression()
        self._expect("COLON")
        return c_ast.TernaryOp(expr, iftrue, self._parse_conditional_expression(), expr.coord)

    def _parse_labeled_statement(self) -> c_ast.Node:
        if self._peek_type() != "CASE":
            return super()._parse_labeled_statement()
        case_tok = self._advance()
        expr = self._parse_constant_expression()
        if self._accept("ELLIPSIS"):  # GNU `case low ... high:`: see `case_range`
            expr = c_ast.ExprList([expr, self._parse_constant_expression()], expr.coord)
        self._expect("COLON")
        if self._starts_statement():
            stmt = self._parse_pragmacomp_or_statement()
        else:
            stmt = c_ast.EmptyStatement(self._tok_coord(case_tok))
        return c_ast.Case(expr, [stmt], self._tok_coord(case_tok))

    def _parse_designator(self) -> c_ast.Node:
        if self._peek_type() != "LBRACKET":
            return super()._parse_designator()
        self._advance()
        expr = self._parse_constant_expression()
        if self._accept("ELLIPSIS"):  # GNU `[first ... last] = value`: see `index_range`
            expr = c_ast.ExprList([expr, self._parse_constant_expression()], expr.coord)
        self._expect("RBRACKET")
        return expr

    def _parse_unified_string_literal(self) -> c_ast.Node:
        """Adjacent string literals as one, with the prefix of those that have one
        (`L"a" "b"` is `L"ab"`, `u8"a" "b"` is `u8"ab"`; pycparser rejected the first and
        made `u8"a"b"` of `u8"a" u8"b"`). Each literal's escapes end where it ends: a
        hexadecimal digit that begins the next one is written as an octal escape of its
        own when the literal before ends in an escape it would continue (`"\\x1" "2"` is
        two characters, not `"\\x12"`)."""
        first = self._advance()
        if first.type not in _STRING_TOKENS:
            self._parse_error("Invalid string literal", self._tok_coord(first))
        prefixes: set[str] = set()
        bodies: list[str] = []
        tok = first
        while True:
            quote = tok.value.index('"')
            if quote:
                prefixes.add(tok.value[:quote])
            body = tok.value[quote + 1:-1]
            if bodies and body[:1] in _HEX_DIGITS and _OPEN_ESCAPE.search(bodies[-1]):
                body = f"\\{ord(body[0]):03o}{body[1:]}"
            bodies.append(body)
            if self._peek_type() not in _STRING_TOKENS:
                break
            tok = self._advance()
        if len(prefixes) > 1:  # gcc: "unsupported non-standard concatenation"
            self._parse_error("concatenation of string literals of different prefixes",
                              self._tok_coord(tok))
        value = f'{"".join(prefixes)}"{"".join(bodies)}"'
        return c_ast.Constant("string", value, self._tok_coord(first))

    _parse_unified_wstring_literal = _parse_unified_string_literal

    def _parse_primary_expression(self) -> c_ast.Node:
        if self._peek_type() == "LPAREN" and self._peek_type(2) == "LBRACE":
            self._advance()
            compound = self._parse_compound_statement()
            self._expect("RPAREN")
            return compound
        tok = self._peek()
        if tok is not None and tok.type == "ID" and self._peek_type(2) == "LPAREN":
            if tok.value == "_Generic":
                return self._parse_generic_selection()
            if tok.value == TYPES_COMPATIBLE:
                self._advance()
                self._expect("LPAREN")
                first = self._parse_type_name()
                self._expect("COMMA")
                second = self._parse_type_name()
                self._expect("RPAREN")
                coord = self._tok_coord(tok)
                return c_ast.FuncCall(c_ast.ID(tok.value, coord),
                                      c_ast.ExprList([first, second], coord), coord)
        return super()._parse_primary_expression()

    def _parse_generic_selection(self) -> GenericSelection:
        keyword = self._advance()
        self._expect("LPAREN")
        expr = self._parse_assignment_expression()
        types: list[c_ast.Node | None] = []
        exprs: list[c_ast.Node] = []
        while self._accept("COMMA"):
            types.append(None if self._accept("DEFAULT") else self._parse_type_name())
            self._expect("COLON")
            exprs.append(self._parse_assignment_expression())
        self._expect("RPAREN")
        return GenericSelection(expr, types, exprs, self._tok_coord(keyword))

    def _parse_unary_expression(self) -> c_ast.Node:
        tok = self._peek()
        if tok is not None and tok.type == "LAND" and self._peek_type(2) in ("ID", "TYPEID"):
            self._advance()  # GNU `&&label`, the address of a label
            label = self._advance()
            return c_ast.UnaryOp("&&", c_ast.ID(label.value, self._tok_coord(label)),
                                 self._tok_coord(tok))
        if tok is not None and tok.type == "ID" and tok.value.strip("_") in ("real", "imag") \
                and tok.value.startswith("__"):
            self._advance()  # GNU `__real__ x`, `__imag__ x`
            operand = self._parse_cast_expression()
            coord = self._tok_coord(tok)
            name = f"__{tok.value.strip('_')}__"
            return c_ast.FuncCall(c_ast.ID(name, coord), c_ast.ExprList([operand], coord),
                                  coord)
        return super()._parse_unary_expression()

    def _parse_jump_statement(self) -> c_ast.Node:
        if self._peek_type() == "GOTO" and self._peek_type(2) == "TIMES":
            keyword = self._advance()  # GNU `goto *expr;`
            self._advance()
            expr = self._parse_expression()
            self._expect("SEMI")
            return ComputedGoto(expr, self._tok_coord(keyword))
        return super()._parse_jump_statement()

    def _parse_block_item(self) -> c_ast.Node | list[c_ast.Node]:
        tok = self._peek()
        if tok is not None and tok.type == "ID" and tok.value == "__label__":
            self._advance()
            names = [self._parse_identifier_or_typeid().name]
            while self._accept("COMMA"):
                names.append(self._parse_identifier_or_typeid().name)
            self._expect("SEMI")
            return LocalLabels(names, self._tok_coord(tok))
        if self._starts_declaration() and self._function_definition_ahead():
            return self._parse_external_declaration()  # a GNU nested function
        return super()._parse_block_item()

    def _function_definition_ahead(self) -> bool:
        """Whether the declaration ahead is a function definition: its first `{` outside
        parentheses and brackets comes before any `;`, `=`, `,` or `:` and right after a
        `)`. Looks no further than that token."""
        depth, k, previous = 0, 1, None
        while (tok := self._peek(k)) is not None:
            if tok.type in ("LPAREN", "LBRACKET"):
                depth += 1
            elif tok.type in ("RPAREN", "RBRACKET"):
                depth -= 1
            elif depth == 0 and tok.type in ("SEMI", "EQUALS", "COMMA", "COLON"):
                return False
            elif depth == 0 and tok.type == "LBRACE":
                return previous == "RPAREN"
            previous, k = tok.type, k + 1
        return False

    def _parse_struct_declaration(self) -> list[c_ast.Node] | None:
        if self._peek_type() == "_STATIC_ASSERT":  # in a struct: gcc checks it
            self._parse_static_assert()
            return None
        return super()._parse_struct_declaration()

    def _parse_external_declaration(self) -> list[c_ast.Node]:
        return self._claiming(super()._parse_external_declaration, in_block=False)

    def _parse_decl_body(self) -> list[c_ast.Node]:
        return self._claiming(super()._parse_decl_body, in_block=True)

    def _claiming(self, parse: Callable[[], list[c_ast.Node]], in_block: bool
                  ) -> list[c_ast.Node]:
        """Parse a declaration or definition (`in_block`: one in a function); it takes the
        lexer's flags from just after the token before it to its last token that no inner
        declaration has taken."""
        start = self._consumed_offset() + 1
        nodes = parse()
        flags = self.lexer.flags
        if len(self._claimed) == len(flags):
            return nodes
        end = self._consumed_offset()
        in_block = in_block or any(isinstance(node, c_ast.FuncDef) for node in nodes)
        for index, (offset, location, what, only_in_block) in enumerate(flags):
            if index not in self._claimed and start <= offset <= end:
                self._claimed.add(index)
                if only_in_block and not in_block:
                    continue
                for node in nodes:
                    self.flagged.setdefault(id(node), UnsupportedError(
                        f"unsupported construct: {what}", location))
        return nodes

    def _consumed_offset(self) -> int:
        """Text offset of the last token the parser consumed (-1 before the first)."""
        index: int = self._tokens._index
        if index == 0:
            return -1
        origin = self.lexer.origins.get(id(self._tokens._buffer[index - 1]))
        return origin[1] if origin else -1

    def _tok_coord(self, tok: Token) -> Coord:
        return Coord(file=self.lexer.file_of(tok), line=tok.lineno, column=tok.column)

    def _lex_type_lookup_func(self, name: str) -> bool:
        if name in PREDEFINED_TYPEDEFS and not any(name in s for s in self._scope_stack):
            return True  # gcc's own typedef names, unless the program declares the name
        return bool(super()._lex_type_lookup_func(name))

    def _lex_on_rbrace_func(self) -> None:
        if len(self._scope_stack) <= 1:
            lexer = self.lexer
            coord = Coord(
                file=lexer.filename, line=lexer._lineno, column=lexer._pos - lexer._line_start
            )
            raise _ParserFailure("syntax error: unmatched '}'", coord)
        super()._lex_on_rbrace_func()

    def _parse_error(self, msg: str, coord: Coord | str | None) -> NoReturn:
        if not isinstance(coord, Coord) or not coord.line:
            coord = self.current_coord(at_end=msg == "At end of input")
        elif not coord.column:
            here = self.current_coord()
            same_line = here is not None and (here.file, here.line) == (coord.file, coord.line)
            coord = Coord(coord.file, coord.line, here.column if same_line and here else 1)
        raise _ParserFailure(msg, coord)

    def current_coord(self, at_end: bool = False) -> Coord | None:
        """Where the parser stands: the next unread token, or just after the last one."""
        buffer: list[Token | None] = self._tokens._buffer
        index: int = self._tokens._index
        upcoming = buffer[index] if index < len(buffer) else None
        if upcoming is not None and not at_end:
            return self._tok_coord(upcoming)
        last = next((tok for tok in reversed(buffer) if tok is not None), None)
        if last is None:
            return None
        coord = self._tok_coord(last)
        coord.column = (last.column or 0) + len(last.value)
        return coord

    def offset_of(self, coord: Coord) -> int | None:
        """Absolute text offset of the token at `coord`, if it was lexed."""
        for tok in self._tokens._buffer:
            if tok is not None and tok.lineno == coord.line and tok.column == coord.column:
                origin = self.lexer.origins.get(id(tok))
                if origin and origin[0] == unescape_marker_file(coord.file):
                    return origin[1]
        return None


def nodes_under(node: c_ast.Node) -> Iterator[c_ast.Node]:
    """`node` and every node under it, in source order, without recursion (expressions
    nest deeper than Python's stack)."""
    todo = [node]
    while todo:
        current = todo.pop()
        yield current
        todo.extend(child for _, child in reversed(current.children()))


def parse(text: str, path: Path, gnu_keywords: bool = True) -> c_ast.FileAST:
    """Parse preprocessed `text` (from `path`) into a pycparser AST; `gnu_keywords` tells
    whether the dialect makes `typeof` and `asm` keywords (see `preprocess.gnu_keywords`).

    Raises:
        ParseError: located at the offending token in the user's file or header.
    """
    return parse_file(text, path, gnu_keywords).ast


def parse_file(text: str, path: Path, gnu_keywords: bool = True) -> ParsedFile:
    """Like `parse`, also returning where each block closes."""
    parser = _Parser(gnu_keywords)
    try:
        ast = parser.parse(text, str(path))
    except _ParserFailure as failure:
        raise _parse_error(parser, text, path, _readable(failure.message), failure.coord) from None
    except RecursionError:
        raise _parse_error(
            parser, text, path, "nesting too deep for the parser", parser.current_coord()
        ) from None
    except Exception as exc:  # pycparser's own assertions, e.g. on an unbalanced '}'
        message = f"syntax error ({type(exc).__name__}: {exc})"
        raise _parse_error(parser, text, path, message, parser.current_coord()) from None
    return ParsedFile(ast, dict(parser.lexer.block_ends), dict(parser.flagged))


def _readable(message: str) -> str:
    if message.startswith("before: "):
        return f"syntax error before '{message[len('before: '):]}'"
    if message == "At end of input":
        return "syntax error: unexpected end of input"
    return message


def _parse_error(
    parser: _Parser, text: str, path: Path, message: str, coord: Coord | None
) -> ParseError:
    if coord is None:
        return ParseError(message, SourceLocation(str(path), 1, 1))
    location = coord_location(coord, str(path))
    if location.file != str(path):
        offset = parser.offset_of(coord)
        site = include_site(text, offset, str(path)) if offset is not None else None
        if site is not None:
            message += f" (included from {site})"
    return ParseError(message, location)
