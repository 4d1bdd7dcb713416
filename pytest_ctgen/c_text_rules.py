"""The rules for the C text an export holds (`name.ctgen.json`, DESIGN §2): identifiers,
shown text, side-effect-free expressions, declaration templates and prototypes, what a stub
writes and requirement ids.

Each rule (`*_problem`) says what is wrong with a piece of text, or None; export_schema
reads an export with them, and the export and the harness check what they write with the
same rules. Nothing here knows about cases, the frontend or the code generator.
"""
from __future__ import annotations

import re

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
""", re.VERBOSE | re.ASCII)
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
    return _tokens_problem(tokens, template, in_body=False)


def _tokens_problem(tokens: list[tuple[str, str]], template: bool, in_body: bool
                    ) -> str | None:
    """What is wrong with the tokens of a declarator, or with the member declarations
    of an anonymous struct, union or enum body (`in_body`: `;`, `,`, bit-field widths and
    enumerator values allowed, each checked like the rest)."""
    depth, i = 0, 0
    while i < len(tokens):
        kind, tok = tokens[i]
        if kind in ("string", "char"):
            return "holds a literal"
        if tok == "{" and kind == "punct":
            # the body of an anonymous struct, union or enum type (`struct { int a; } @`):
            # member declarations, checked as declarators (a size is evaluated)
            opener = [t for _, t in tokens[max(0, i - 2):i]]
            end = _closing(tokens, i)
            if not ((opener[-1:] and opener[-1] in _TAG_WORDS) or
                    (opener[:1] and opener[0] in _TAG_WORDS and tokens[i - 1][0] == "name")):
                return "holds '{'"
            if end < 0:
                return "has unbalanced braces"
            problem = _tokens_problem(tokens[i + 1:end], template, in_body=True)
            if problem is not None:
                return problem
            i = end + 1
            continue
        if tok == "[" and kind == "punct":
            end = _closing(tokens, i)
            if end < 0:
                return "has unbalanced brackets"
            inside = tokens[i + 1:end]
            if (template or in_body) and (
                    len(inside) > 1 or any(k != "number" or not t.isdigit() for k, t in inside)):
                return "has an array size that is not a plain number"
            size = expression_problem(" ".join(t for _, t in inside))
            if size is not None:
                return f"has an array size that {size}"
            i = end + 1
            continue
        if in_body and tok in (":", "=") and kind == "punct":
            # a bit-field's width or an enumerator's value: a plain number
            j = i + 1 + (tok == "=" and tokens[i + 1:i + 2] == [("punct", "-")])
            if j >= len(tokens) or tokens[j][0] != "number" or not tokens[j][1].isdigit():
                return f"has a {'width' if tok == ':' else 'value'} that is not a plain number"
            i = j + 1
            continue
        if kind == "punct":
            if tok == "(":
                depth += 1
            elif tok == ")":
                depth -= 1
                if depth < 0:
                    return "has unbalanced parentheses"
            elif tok == "," and depth == 0 and not in_body:
                return "declares more than one name"
            elif tok == ";" and depth == 0 and in_body:
                pass
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
