"""The rules an export (`name.ctgen.json`, DESIGN §2) is read with.

An export is data: replay compiles C text, passes flags to the compiler and names files
from it, so every field that reaches C, a command line or a Makefile is checked here, and
a refusal names its field the way the JSON spells it:
`functions[0].cases[2].params[1].declaration: ...`.

`Field` reads a JSON document with its position; the rules (`*_problem`) say what is wrong
with a piece of text, or None, and are also used where the same text is written (the
export, the harness). Nothing here knows about cases, the frontend or the code generator.
"""
from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from typing import Any, Callable, Collection, Iterator, NoReturn

#: How deep the values of an export may nest (a struct of arrays of structs...): deeper
#: documents are refused before anything recursive reads them.
MAX_NESTING = 64

#: The widest integer a case holds: every value fits in 64 bits, signed or unsigned.
INT_MIN, INT_MAX = -(1 << 63), (1 << 64) - 1


class SchemaError(ValueError):
    """A field of an export that is not what the format allows: `where` is its position
    (`functions[0].name`), empty for the document as a whole."""

    def __init__(self, where: str, message: str) -> None:
        super().__init__(f"{where}: {message}" if where else message)
        self.where = where
        self.message = message


def load_json(text: str) -> Any:
    """The document of `text`. Raises json.JSONDecodeError (with its line and column) for
    text that is no JSON, SchemaError for a document nested more than MAX_NESTING deep."""
    try:
        doc = json.loads(text)
    except RecursionError:
        raise SchemaError("", f"nested more than {MAX_NESTING} levels deep") from None
    stack: list[tuple[Any, int]] = [(doc, 0)]
    while stack:  # without recursion: the limit holds whatever the depth
        node, depth = stack.pop()
        if depth > MAX_NESTING + 8:  # the document's own levels above the values
            raise SchemaError("", f"nested more than {MAX_NESTING} levels deep")
        children = node.values() if isinstance(node, dict) else \
            node if isinstance(node, list) else ()
        stack.extend((child, depth + 1) for child in children)
    return doc


def _json_kind(value: Any) -> str:
    names = {dict: "an object", list: "a list", str: "a string", bool: "a boolean",
             int: "an integer", float: "a number", type(None): "null"}
    return names.get(type(value), type(value).__name__)


def shown(value: Any, limit: int = 60) -> str:
    """`value` as a message quotes it: JSON, cut short."""
    try:
        text = json.dumps(value)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


class Field:
    """A value of an export's document and where it is in it."""

    def __init__(self, value: Any, where: str = "") -> None:
        self.value = value
        self.where = where

    def fail(self, message: str) -> NoReturn:
        raise SchemaError(self.where, message)

    def _child(self, key: str | int, value: Any) -> "Field":
        if isinstance(key, int):
            return Field(value, f"{self.where}[{key}]")
        return Field(value, f"{self.where}.{key}" if self.where else key)

    # ------------------------------------------------------------------ structure

    def obj(self) -> dict[str, Any]:
        if not isinstance(self.value, dict):
            self.fail(f"expected an object, found {_json_kind(self.value)}")
        return self.value

    def __getitem__(self, key: str) -> "Field":
        """The member `key`, which must be there."""
        members = self.obj()
        if key not in members:
            self.fail(f'missing "{key}"')
        return self._child(key, members[key])

    def get(self, key: str, default: Any = None) -> "Field":
        """The member `key`, or a field holding `default` when it is absent."""
        return self._child(key, self.obj().get(key, default))

    def has(self, key: str) -> bool:
        return key in self.obj()

    def items(self) -> list["Field"]:
        """The elements of a list."""
        if not isinstance(self.value, list):
            self.fail(f"expected a list, found {_json_kind(self.value)}")
        return [self._child(i, v) for i, v in enumerate(self.value)]

    def members(self) -> Iterator[tuple[str, "Field"]]:
        """The members of an object, in order."""
        for key, value in self.obj().items():
            yield key, self._child(key, value)

    # ---------------------------------------------------------------- scalars

    def string(self) -> str:
        """A string without control characters (it may reach a terminal, C or make)."""
        if not isinstance(self.value, str):
            self.fail(f"expected a string, found {_json_kind(self.value)}")
        problem = text_problem(self.value)
        if problem:
            self.fail(problem)
        return self.value

    def optional_string(self) -> str | None:
        return None if self.value is None else self.string()

    def strings(self) -> tuple[str, ...]:
        return tuple(f.string() for f in self.items())

    def integer(self, low: int = INT_MIN, high: int = INT_MAX) -> int:
        if isinstance(self.value, bool) or not isinstance(self.value, int):
            self.fail(f"expected an integer, found {_json_kind(self.value)}")
        if not low <= self.value <= high:
            self.fail(f"{self.value} is out of range [{low}, {high}]")
        return self.value

    def boolean(self) -> bool:
        if not isinstance(self.value, bool):
            self.fail(f"expected true or false, found {_json_kind(self.value)}")
        return self.value

    def one_of(self, allowed: Collection[str]) -> str:
        text = self.string()
        if text not in allowed:
            self.fail(f"{shown(text)} is not one of {', '.join(sorted(allowed))}")
        return text

    def identifier(self) -> str:
        text = self.string()
        if not is_identifier(text):
            self.fail(f"{shown(text)} is not a C identifier")
        return text

    def checked(self, problem: Callable[[str], str | None]) -> str:
        """The string, refused with the message `problem(string)` returns, if any."""
        text = self.string()
        message = problem(text)
        if message:
            self.fail(message)
        return text


# ------------------------------------------------------------------------- text rules

_IDENTIFIER = re.compile(r"[A-Za-z_]\w*", re.ASCII)
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def is_identifier(text: object) -> bool:
    return isinstance(text, str) and bool(_IDENTIFIER.fullmatch(text))


def text_problem(text: str) -> str | None:
    """Text of an export that is shown or written into comments and strings: one line,
    no control characters."""
    m = _CONTROL.search(text)
    if m is not None:
        return f"holds the control character {m.group()!r}"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return "is not valid Unicode (a lone surrogate)"
    return None


# C's keywords and GCC's spellings of them: never a function, never a variable.
_TYPE_WORDS = frozenset("""
    void char short int long float double signed unsigned _Bool _Complex _Imaginary
    const volatile restrict _Atomic struct union enum __int128 __int128_t __uint128_t
    _Float16 _Float32 _Float64 _Float128 _Float32x _Float64x __float128 __fp16 bool
    __restrict __restrict__ __const __const__ __volatile__ __signed __signed__
    __complex__ __builtin_va_list
""".split())
_SIZE_WORDS = frozenset("sizeof _Alignof alignof __alignof__ __alignof typeof __typeof__ "
                        "__typeof _Alignas".split())
KEYWORDS = _TYPE_WORDS | _SIZE_WORDS | frozenset("""
    auto break case continue default do else extern for goto if inline register return
    static switch typedef while _Generic _Noreturn _Static_assert _Thread_local
    __extension__ __inline __inline__ __label__ true false nullptr
""".split())
#: Words a `(` may follow in C text of an export: sizes, alignments, types of casts; any
#: other name followed by `(` is a call (or a macro, or an attribute).
_PAREN_WORDS = _TYPE_WORDS | _SIZE_WORDS
_TAG_WORDS = frozenset({"struct", "union", "enum"})

_TOKEN = re.compile(r"""
    (?P<space>\s+)
  | (?P<number>\.?[0-9](?:[eEpP][+-]|[0-9A-Za-z_.])*)
  | (?P<name>[A-Za-z_][A-Za-z_0-9]*)
  | (?P<string>"(?:[^"\\\n]|\\[^\n])*")
  | (?P<char>'(?:[^'\\\n]|\\[^\n])+')
  | (?P<punct>\.\.\.|->|\+\+|--|<<=|>>=|<<|>>|&&|\|\||[<>=!+\-*/%&|^]=
              |[-+*/%<>=!&|^~?:.,;()\[\]{}\#])
""", re.X | re.ASCII)
_ASSIGNMENTS = frozenset({"=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="})


def c_tokens(text: str) -> list[tuple[str, str]] | str:
    """The tokens of C text as (kind, text), kind one of number, name, string, char,
    punct; or what stops `text` from being tokens (a stray character)."""
    out: list[tuple[str, str]] = []
    position = 0
    while position < len(text):
        m = _TOKEN.match(text, position)
        if m is None:
            return f"has the unexpected character {text[position]!r}"
        kind = m.lastgroup
        assert kind is not None
        if kind != "space":
            out.append((kind, m.group()))
        position = m.end()
    return out


def _closing(tokens: list[tuple[str, str]], start: int) -> int:
    """The index of the bracket closing the one at `start`, or -1."""
    pairs = {"(": ")", "[": "]", "{": "}"}
    stack: list[str] = []
    for i in range(start, len(tokens)):
        kind, tok = tokens[i]
        if kind != "punct":
            continue
        if tok in pairs:
            stack.append(pairs[tok])
        elif tok in pairs.values():
            if not stack or stack.pop() != tok:
                return -1
            if not stack:
                return i
    return -1


def _opening(tokens: list[tuple[str, str]], end: int) -> int:
    """The index of the `(` that the `)` at `end` closes, or -1."""
    depth = 0
    for i in range(end, -1, -1):
        tok = tokens[i][1] if tokens[i][0] == "punct" else ""
        depth += {")": 1, "(": -1}.get(tok, 0)
        if depth == 0:
            return i
    return -1


def _is_type_name(group: list[tuple[str, str]], typedefs: frozenset[str] | None) -> bool:
    """Whether tokens that stand in parentheses before another `(` are a type name (a
    cast: `(uint8_t)(x + 1)`) and not a function or a pointer to one being called.
    With `typedefs` None (not known), any name may be one."""
    if not group or group[0][0] != "name":
        return False
    after_tag = False
    for kind, tok in group:
        if kind == "name":
            if not (after_tag or tok in _TYPE_WORDS or
                    (tok in typedefs if typedefs is not None else tok not in KEYWORDS)):
                return False
            after_tag = tok in _TAG_WORDS
        elif kind == "number" or tok in ("*", "(", ")", "[", "]", ",", "..."):
            after_tag = False
        else:
            return False
    return True


def expression_problem(text: str, *, typedefs: frozenset[str] | None = None,
                       known: frozenset[str] | None = None, strings: bool = False,
                       braces: bool = False) -> str | None:
    """What makes `text` more than a side-effect-free C expression, or None: it may not
    assign, increment, call (a name, a parenthesized expression or an element followed
    by `(`, except sizeof, alignments and casts), hold `;`, `#`, trigraphs or (unless
    `strings`, `braces`) string literals and braces.

    `typedefs`: the type names of the unit, when known; unknown, `(T)(x)` is taken for a
    cast, while `T(x)` is always refused. `known`: when given, every name that is not a
    keyword, a type, a tag or a member (after `.`, `->`) must be one of these."""
    tokens = c_tokens(text)
    if isinstance(tokens, str):
        return tokens
    for i, (kind, tok) in enumerate(tokens):
        after = tokens[i + 1][1] if i + 1 < len(tokens) else ""
        before = tokens[i - 1][1] if i > 0 else ""
        if kind == "string" and not strings:
            return "holds a string literal"
        if "??" in tok or (tok == "?" and after == "?"):
            return "holds a trigraph (??)"
        if kind == "punct":
            if tok in _ASSIGNMENTS:
                return f"assigns ({tok})"
            if tok in ("++", "--"):
                return f"increments or decrements ({tok})"
            if tok in (";", "#") or (tok in "{}" and not braces):
                return f"holds {tok!r}"
            if tok == "]" and after == "(":
                return "calls a function through an array element"
            if tok == ")" and after == "(":
                start = _opening(tokens, i)
                if start < 0 or not _is_type_name(tokens[start + 1:i], typedefs):
                    return "calls a function through an expression"
        elif kind == "name":
            if after == "(" and tok not in _PAREN_WORDS and \
                    not (typedefs is not None and tok in typedefs):
                return f"calls {tok}()"
            if known is not None and before not in (".", "->") and \
                    tok not in KEYWORDS and before not in _TAG_WORDS and \
                    tok not in known and not (typedefs is not None and tok in typedefs):
                return f"names {tok}, which the unit does not declare here"
    depth = 0
    for kind, tok in tokens:
        if kind == "punct":
            depth += {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}.get(tok, 0)
            if depth < 0:
                return "has unbalanced brackets"
    return "has unbalanced brackets" if depth else None


_ATTRIBUTE_WORDS = re.compile(r"\b(__attribute|__attribute__|__asm|__asm__|asm|_Pragma|"
                              r"__declspec)\b")


def _declarator_problem(text: str, template: bool) -> str | None:
    """The shared part of templates and prototypes: type words, pointers, parameter
    lists and array sizes, nothing else. A template's sizes are plain numbers (a size
    expression would be evaluated: a variable length array); a prototype's, as the unit
    writes them (`char out[N + 1]`, `int a[static 4]`), side-effect-free expressions."""
    tokens = c_tokens(text.replace("@", " "))
    if isinstance(tokens, str):
        return tokens
    if _ATTRIBUTE_WORDS.search(text):
        return "holds an attribute, asm or pragma"
    if "??" in text:
        return "holds a trigraph (??)"
    depth, i = 0, 0
    while i < len(tokens):
        kind, tok = tokens[i]
        if kind in ("string", "char"):
            return "holds a literal"
        if tok == "{" and kind == "punct":
            # the body of an anonymous struct, union or enum type (`struct { int a; } @`):
            # member declarations, whose sizes and values the compiler requires constant
            opener = [t for _, t in tokens[max(0, i - 2):i]]
            end = _closing(tokens, i)
            if not (opener[-1:] and opener[-1] in _TAG_WORDS or
                    opener[:1] and opener[0] in _TAG_WORDS and tokens[i - 1][0] == "name"):
                return "holds '{'"
            if end < 0:
                return "has unbalanced braces"
            i = end + 1
            continue
        if tok == "[" and kind == "punct":
            end = _closing(tokens, i)
            if end < 0:
                return "has unbalanced brackets"
            inside = tokens[i + 1:end]
            if template and (len(inside) > 1 or
                             any(k != "number" or not t.isdigit() for k, t in inside)):
                return "has an array size that is not a plain number"
            size = expression_problem(" ".join(t for _, t in inside))
            if size is not None:
                return f"has an array size that {size}"
            i = end + 1
            continue
        if kind == "punct":
            if tok == "(":
                depth += 1
            elif tok == ")":
                depth -= 1
                if depth < 0:
                    return "has unbalanced parentheses"
            elif tok == "," and depth == 0:
                return "declares more than one name"
            elif tok not in ("*", "...", ","):
                return f"holds {tok!r}"
        i += 1
    if depth:
        return "has unbalanced parentheses"
    return None


def template_problem(text: str) -> str | None:
    """What makes `text` no declaration template (`const uint8_t @[4]`, `int (*@)(int)`:
    `@` once for the declared name), or None."""
    if text.count("@") != 1:
        return "is not a declaration template with '@' once for the name"
    problem = _declarator_problem(text, True)
    return None if problem is None else f"is not a declaration template: it {problem}"


def prototype_problem(text: str, name: str) -> str | None:
    """What makes `text` no prototype of the function `name`, or None."""
    if "@" in text:
        return "is not a prototype: it holds '@'"
    problem = _declarator_problem(text, False)
    if problem is not None:
        return f"is not a prototype: it {problem}"
    if not re.search(rf"(?<![\w$]){re.escape(name)}\s*\(", text):
        return f"is not a prototype of {name}"
    return None


_WRITE_TARGETS = (
    ("global", re.compile(r"([A-Za-z_]\w*)", re.ASCII)),
    ("parameter", re.compile(r"\*\(unsigned char \*\)([A-Za-z_]\w*)", re.ASCII)),
    ("parameter", re.compile(r"\(\*([A-Za-z_]\w*)\)|\*([A-Za-z_]\w*)", re.ASCII)),
    ("parameter", re.compile(r"([A-Za-z_]\w*)\[[0-9]+\]", re.ASCII)),
)


def write_target(text: str) -> tuple[str, str] | None:
    """What a stub's write names: ("global", name), or ("parameter", name) for
    `*(unsigned char *)buf`, `(*out)`, `*out` and `out[2]`; None for anything else."""
    for kind, pattern in _WRITE_TARGETS:
        m = pattern.fullmatch(text)
        if m:
            return kind, next(g for g in m.groups() if g)
    return None


def requirement_problem(text: str) -> str | None:
    """A requirement id as annotations write them: no spaces, no commas."""
    if not text or any(ch.isspace() or ch in ",[]" for ch in text):
        return "is not a requirement id (no spaces, commas or brackets)"
    return text_problem(text)


# ------------------------------------------------------------------ files and flags

#: Options whose argument is a path, attached (`-Iinc`) or the next word (`-isystem inc`).
PATH_FLAGS = ("-I", "-iquote", "-isystem", "-idirafter", "-include", "-imacros")
_SEPARATE_PATH_FLAGS = (*PATH_FLAGS, "-isysroot")
#: Unit suffixes a replay builds: C files, preprocessed files, headers.
UNIT_SUFFIXES = (".c", ".i", ".h")
#: Names the harness defines for itself (a -D of them would steer the harness).
_RESERVED_MACROS = ("CTGEN_", "ctgen_", "__ctg_")

# -f flags of the language and the ABI, with and without `no-`.
_F_SWITCHES = frozenset("""
    signed-char unsigned-char short-enums short-wchar pack-struct builtin common wrapv
    trapv strict-aliasing strict-overflow ms-extensions plan9-extensions gnu89-inline asm
    gnu-keywords freestanding hosted signed-bitfields unsigned-bitfields
    dollars-in-identifiers extended-identifiers inline omit-frame-pointer
    stack-protector stack-protector-strong stack-protector-all PIC pic PIE pie
    delete-null-pointer-checks math-errno fast-math single-precision-constant
    lax-vector-conversions zero-initialized-in-bss data-sections function-sections
    diagnostics-color permissive strict-volatile-bitfields ident allow-parameterless-variadic-functions
""".split())
_F_VALUED = frozenset("""
    excess-precision fp-contract exec-charset input-charset wide-exec-charset pack-struct
    diagnostics-color max-errors trivial-auto-var-init strict-flex-arrays
    stack-protector-guard tabstop
""".split())
_FLAG_PATTERNS = re.compile(r"""
    -nostdinc | -ansi | -pedantic | -pedantic-errors | -w | -trigraphs | -undef | -I-
  | --?std=[A-Za-z0-9+]+
  | -O[0-3sgz]? | -Ofast
  | -g[A-Za-z0-9-]*
  | -W[A-Za-z0-9_=+-]+
  | -m[A-Za-z0-9_=.+-]+
  | -fno-builtin-[A-Za-z0-9_]+
  | -f(?:no-)?(?P<switch>[A-Za-z0-9-]+)
  | -f(?P<valued>[a-z0-9-]+)=[A-Za-z0-9_.+-]+
""", re.X | re.ASCII)


def path_problem(path: str, *, relative: bool = True) -> str | None:
    """What makes `path` (a file an export names) unsafe to hand to the compiler, a
    Makefile or `#include`: not relative (when it must be), taken for an option,
    control characters, or characters an `#include "..."` cannot name."""
    if not path:
        return "is an empty path"
    if relative and (os.path.isabs(path) or path.startswith("~")):
        return "is not a relative path"
    if path.startswith("-"):
        return "starts with '-' (it would be read as an option)"
    return text_problem(path) or include_problem(path)


def include_problem(path: str) -> str | None:
    """What stops `#include "path"` from naming `path` (and make and the shell from
    passing it on), or None."""
    for ch, why in (('"', "a '\"'"), ("\\", "a backslash"), ("\n", "a line break")):
        if ch in path:
            return f"holds {why}, which #include \"...\" cannot name"
    if "??" in path:
        return "holds '??', which a compiler may read as a trigraph"
    return None


_MACRO = re.compile(r"([A-Za-z_]\w*)(?:\((\s*(?:[A-Za-z_]\w*\s*,\s*)*"
                    r"(?:[A-Za-z_]\w*|\.\.\.)?\s*)\))?", re.ASCII)


def _macro_problem(text: str) -> str | None:
    """A `-D`/`-U` argument: a macro's name (not the harness's), with its parameters for a
    function-like one, and a value that is a side-effect-free expression (it may call
    nothing: `-Dread_sensor(x)=system(x)` is refused)."""
    head, _, value = text.partition("=")
    m = _MACRO.fullmatch(head)
    if m is None:
        return f"defines {shown(head)}, which is not a macro's name"
    name = m.group(1)
    if name.startswith(_RESERVED_MACROS):
        return f"defines {name}, a name of pytest-ctgen's harness"
    problem = expression_problem(value, typedefs=frozenset(), strings=True, braces=True)
    return None if problem is None else f"defines {name} as a value that {problem}"


def flag_problem(flag: str) -> str | None:
    """Whether one word of `build.cflags` that takes no argument is allowed: the
    preprocessor's and the language's options, warnings, optimisation, debug info and
    the ABI (`-m*`). Everything else (`-wrapper`, `-B`, `-fplugin`, `@file`, `-specs`,
    `-o`, `-x`...) is refused."""
    if text_problem(flag):
        return text_problem(flag)
    m = _FLAG_PATTERNS.fullmatch(flag)
    if m is None:
        return "is not an allowed compiler flag"
    switch, valued = m.group("switch"), m.group("valued")
    if switch is not None and switch not in _F_SWITCHES:
        return "is not an allowed compiler flag"
    if valued is not None and valued not in _F_VALUED:
        return "is not an allowed compiler flag"
    return None


def cflags_problem(flags: list[str] | tuple[str, ...]) -> tuple[int, str] | None:
    """The first word of `flags` that a replay does not pass to the compiler, and why:
    (its index, the problem); None when all are allowed."""
    i = 0
    while i < len(flags):
        flag = flags[i]
        if not isinstance(flag, str):
            return i, f"expected a string, found {_json_kind(flag)}"
        if flag in _SEPARATE_PATH_FLAGS or flag in ("-D", "-U"):
            if i + 1 >= len(flags) or not isinstance(flags[i + 1], str):
                return i, f"{flag} needs an argument"
            argument = flags[i + 1]
            problem = _macro_problem(argument) if flag in ("-D", "-U") else \
                path_problem(argument, relative=False)
            if problem:
                return i + 1, f"the argument of {flag} {shown(argument)} {problem}"
            i += 2
            continue
        attached = next((o for o in PATH_FLAGS if flag.startswith(o) and flag != "-I-"),
                        None)
        if flag.startswith(("-D", "-U")):
            problem = _macro_problem(flag[2:])
        elif flag.startswith("--sysroot="):
            problem = path_problem(flag[len("--sysroot="):], relative=False)
        elif attached is not None:
            problem = path_problem(flag[len(attached):], relative=False)
        else:
            problem = flag_problem(flag)
        if problem:
            return i, f"{shown(flag)} {problem}"
        i += 1
    return None


# ---------------------------------------------------------------------- the unit


@dataclass(frozen=True)
class UnitNames:
    """What a replay knows of the unit an export tests, read from its source: which
    names C text of the export may use, and the prototypes it takes from the unit
    instead of the export's text."""

    defined: frozenset[str]  # the functions the unit defines
    prototypes: dict[str, str]  # of every function declared or defined
    params: dict[str, tuple[str, ...]]  # parameter names of every function
    globals: frozenset[str]  # file-scope objects
    extern_globals: frozenset[str]  # declared extern, defined nowhere in the unit
    enum_constants: frozenset[str]
    typedefs: frozenset[str]

    def values(self) -> frozenset[str]:
        """The file-scope names an expression may read."""
        return self.globals | self.enum_constants | frozenset(self.prototypes)


# -------------------------------------------------------------- what a template holds

_QUALIFIERS = frozenset("const volatile restrict __restrict __restrict__ _Atomic __const "
                        "__volatile__ register".split())
_FIXED = {"int8_t": (8, True), "uint8_t": (8, False), "int16_t": (16, True),
          "uint16_t": (16, False), "int32_t": (32, True), "uint32_t": (32, False),
          "int64_t": (64, True), "uint64_t": (64, False), "intptr_t": (64, True),
          "uintptr_t": (64, False), "size_t": (64, False), "ssize_t": (64, True),
          "ptrdiff_t": (64, True), "intmax_t": (64, True), "uintmax_t": (64, False)}
_INT_WORDS = frozenset({"signed", "unsigned", "char", "short", "int", "long", "__signed__"})


@dataclass(frozen=True)
class Shape:
    """What a value of a declared type looks like, as far as its template shows it:
    kind "int" (within `low`..`high`), "float", "double", "pointer", "array" (of
    `count` `element`s, None: unsized) or "any" (a record, a typedef of the unit...).
    The ranges are those of LP64, the widest target (an ABI flag only narrows them)."""

    kind: str
    low: int = INT_MIN
    high: int = INT_MAX
    count: int | None = None
    element: "Shape | None" = None


ANY = Shape("any")


def _scalar_shape(words: list[str]) -> Shape:
    if len(words) == 1 and words[0] in _FIXED:
        bits, signed = _FIXED[words[0]]
    elif words in (["_Bool"], ["bool"]):
        return Shape("int", 0, 1)
    elif words == ["float"]:
        return Shape("float")
    elif words == ["double"]:
        return Shape("double")
    elif words and set(words) <= _INT_WORDS:
        signed = "unsigned" not in words
        bits = 8 if "char" in words else 16 if "short" in words else \
            64 if "long" in words else 32
        if words == ["char"]:  # plain char: either signedness
            return Shape("int", -128, 255)
    else:
        return ANY
    if signed:
        return Shape("int", -(1 << (bits - 1)), (1 << (bits - 1)) - 1)
    return Shape("int", 0, (1 << bits) - 1)


def template_shape(template: str) -> Shape:
    """The shape of the values of a declaration template (one that passed
    `template_problem`): `uint8_t @` an int in 0..255, `int @[4]` an array of four,
    `char *@` and `int (*@)(int)` pointers."""
    at = template.index("@")
    before, after = template[:at], template[at + 1:].lstrip()
    m = re.match(r"\[\s*(\d*)\s*\]", after)
    if m:  # the suffix binds first: `char *@[4]` is an array of pointers
        element = template_shape(before + "@" + after[m.end():])
        return Shape("array", count=int(m.group(1)) if m.group(1) else None,
                     element=element)
    if after.startswith("("):  # a function: no object
        return ANY
    words = [w for w in re.findall(r"[A-Za-z_]\w*|\S", before) if w not in _QUALIFIERS]
    if words and words[-1] == "*":  # `char *@`, `int (*@)(int)`, `int (*@)[3]`
        return Shape("pointer")
    if after:
        return ANY
    return _scalar_shape(words)
