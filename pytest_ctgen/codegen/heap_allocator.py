"""The harness allocator: what the unit's malloc, calloc, realloc, aligned_alloc and free
are in the run (the harness renames those the unit calls, `FileCases.allocator`).

It counts the allocation calls of the running case (the four allocating functions in one
count, as the generator numbers them, symbolic/heap.py), returns NULL on the calls the
case fails (`Case.failing_allocations`), and otherwise lets the C library allocate,
keeping every block so that the checks after the call reach the objects the case
predicts (`ctgen_heap_K`, the object of call K). Its free frees the blocks it made and
leaves alone what it did not make: the case's own objects, which the function under test
may free as its caller's.
"""
from __future__ import annotations

import re

from ..cases import HEAP_PREFIX, LEAK, Case, FileCases, declare, leak_message
from .c_values import INDENT, c_string, pointer_targets

#: What the unit's allocation functions are renamed to.
RENAMED = "ctgen_"

_PROTOTYPES = {
    "malloc": ("void *@(ctgen_size ctgen_n)", "ctgen_n"),
    "calloc": ("void *@(ctgen_size ctgen_count, ctgen_size ctgen_each)",
               "ctgen_count * ctgen_each"),
    "realloc": ("void *@(void *ctgen_p, ctgen_size ctgen_n)", "ctgen_n"),
    "aligned_alloc": ("void *@(ctgen_size ctgen_alignment, ctgen_size ctgen_n)", "ctgen_n"),
    "free": ("void @(void *ctgen_p)", ""),
}

# the functions have external linkage: a unit that calls no free uses no ctgen_heap_find
_COMMON = """\
typedef struct ctgen_heap_entry {
    void *block;
    ctgen_size size;
    int live;
} ctgen_heap_entry;
static ctgen_heap_entry *ctgen_heap;
static unsigned long ctgen_heap_calls;
static unsigned long ctgen_heap_room;
static const unsigned long *ctgen_heap_failing;
static unsigned long ctgen_heap_failing_count;
static unsigned char ctgen_heap_scratch[SCRATCH];

/* Before a case: the blocks of the one before are freed, the count starts again. */
void ctgen_heap_reset(void)
{
    unsigned long ctgen_k;
    for (ctgen_k = 0; ctgen_k < ctgen_heap_calls; ctgen_k++)
        if (ctgen_heap[ctgen_k].live)
            free(ctgen_heap[ctgen_k].block);
    ctgen_heap_calls = 0;
    ctgen_heap_failing = 0;
    ctgen_heap_failing_count = 0;
}

/* The calls (by number, from 0) the running case fails. */
void ctgen_heap_fail_calls(const unsigned long *ctgen_calls, unsigned long ctgen_count)
{
    ctgen_heap_failing = ctgen_calls;
    ctgen_heap_failing_count = ctgen_count;
}

/* Whether the next allocation call fails. */
int ctgen_heap_fails(void)
{
    unsigned long ctgen_j;
    for (ctgen_j = 0; ctgen_j < ctgen_heap_failing_count; ctgen_j++)
        if (ctgen_heap_failing[ctgen_j] == ctgen_heap_calls)
            return 1;
    return 0;
}

/* Counts an allocation call and keeps its block (0 when it failed). */
void *ctgen_heap_record(void *ctgen_block, ctgen_size ctgen_n)
{
    if (ctgen_heap_calls == ctgen_heap_room) {
        unsigned long ctgen_room = ctgen_heap_room ? 2 * ctgen_heap_room : 16;
        ctgen_heap_entry *ctgen_grown =
            (ctgen_heap_entry *)realloc(ctgen_heap, ctgen_room * sizeof *ctgen_grown);
        if (!ctgen_grown)
            abort();
        ctgen_heap = ctgen_grown;
        ctgen_heap_room = ctgen_room;
    }
    ctgen_heap[ctgen_heap_calls].block = ctgen_block;
    ctgen_heap[ctgen_heap_calls].size = ctgen_n;
    ctgen_heap[ctgen_heap_calls].live = ctgen_block != 0;
    ctgen_heap_calls++;
    return ctgen_block;
}

/* The entry of the live block `p`, or 0 (an object of the case, or no block). */
ctgen_heap_entry *ctgen_heap_find(void *ctgen_p)
{
    unsigned long ctgen_k;
    for (ctgen_k = ctgen_heap_calls; ctgen_k-- > 0;)
        if (ctgen_heap[ctgen_k].live && ctgen_heap[ctgen_k].block == ctgen_p)
            return &ctgen_heap[ctgen_k];
    return 0;
}

/* The block of allocation call k of the running case, of at least n bytes, for the
 * checks after the call; a case that predicts one the call did not make fails. */
void *ctgen_heap_block(ctgen_ctx *ctgen_c, unsigned long ctgen_k, ctgen_size ctgen_n)
{
    if (ctgen_k < ctgen_heap_calls && ctgen_heap[ctgen_k].block &&
            ctgen_heap[ctgen_k].size >= ctgen_n)
        return ctgen_heap[ctgen_k].block;
    ctgen_fail(ctgen_c, "allocation call %lu made no block of %lu bytes", ctgen_k,
               (unsigned long)ctgen_n);
    return ctgen_heap_scratch;
}
"""

# only where a case predicts a leak (--ctgen-leaks fail)
_LEAK_CHECK = """\
/* A case predicted to leak the block of allocation call k fails, naming the leak. */
void ctgen_heap_leak(ctgen_ctx *ctgen_c, unsigned long ctgen_k, const char *ctgen_what)
{
    if (ctgen_k < ctgen_heap_calls && ctgen_heap[ctgen_k].live)
        ctgen_fail(ctgen_c, "%s", ctgen_what);
    else
        ctgen_fail(ctgen_c, "%s: predicted, but the run freed it or never made it",
                   ctgen_what);
}
"""

_BODIES = {
    "malloc": ["void *ctgen_b = ctgen_heap_fails() ? 0 : malloc(ctgen_n);"],
    "calloc": ["void *ctgen_b = ctgen_heap_fails() ? 0 : calloc(ctgen_count, ctgen_each);"],
    "aligned_alloc": ["void *ctgen_b = ctgen_heap_fails() ? 0 : "
                      "aligned_alloc(ctgen_alignment, ctgen_n);"],
    "realloc": ["ctgen_heap_entry *ctgen_old = ctgen_p ? ctgen_heap_find(ctgen_p) : 0;",
                "void *ctgen_b = 0;",
                "if (!ctgen_heap_fails() && (ctgen_old || !ctgen_p)) {",
                f"{INDENT}ctgen_b = realloc(ctgen_p, ctgen_n);",
                f"{INDENT}if (ctgen_b && ctgen_old)",
                f"{INDENT * 2}ctgen_old->live = 0;",
                "}"],
}


def renames(fc: FileCases) -> list[str]:
    """The macros that rename the unit's allocation functions to the allocator's."""
    return [f"#define {name} {RENAMED}{name}" for name in fc.allocator]


def _logged(name: str) -> str:
    if name == "free":
        return 'ctgen_log_call("free(%p)", (const void *)ctgen_p);'
    size = _PROTOTYPES[name][1]
    return (f'ctgen_log_call("{name}(%llu)%s", (unsigned long long)({size}), '
            f'ctgen_heap_fails() ? " fails" : "");')


def allocator_lines(fc: FileCases, cases: list[Case]) -> list[str]:
    """The allocator's definitions ([] when the unit allocates nothing), after the unit."""
    if not fc.allocator:
        return []
    used = set(fc.allocator) | {"malloc", "realloc", "free"}
    out = ["", "/* ------------------------------------------------------------- the heap */",
           "/* The unit's allocation functions: they count the allocation calls of the "
           "running case,", " * fail those it names and keep its blocks "
           "(codegen/heap_allocator.py). */"]
    out += [f"extern {declare(_PROTOTYPES[name][0], name)};"
            for name in ("malloc", "calloc", "realloc", "aligned_alloc", "free")
            if name in used]
    out += ["extern void abort(void);"]
    out += _COMMON.replace("SCRATCH", str(max(1, _largest_block(cases)))).splitlines()
    if any(v.kind == LEAK for c in cases for v in c.violations):
        out += ["", *_LEAK_CHECK.splitlines()]
    for name in fc.allocator:
        out += ["", declare(_PROTOTYPES[name][0], RENAMED + name), "{", f"{INDENT}{_logged(name)}"]
        if name == "free":
            out += [f"{INDENT}{{",
                    f"{INDENT * 2}ctgen_heap_entry *ctgen_e = ctgen_p ? "
                    "ctgen_heap_find(ctgen_p) : 0;",
                    f"{INDENT * 2}if (ctgen_e) {{",
                    f"{INDENT * 3}ctgen_e->live = 0;",
                    f"{INDENT * 3}free(ctgen_p);",
                    f"{INDENT * 2}}}", f"{INDENT}}}"]
        else:
            size = _PROTOTYPES[name][1]
            out += [f"{INDENT}{{"] + [f"{INDENT * 2}{line}" for line in _BODIES[name]]
            out += [f"{INDENT * 2}return ctgen_heap_record(ctgen_b, {size});", f"{INDENT}}}"]
        out.append("}")
    return out


#: A heap object's name: the number of its allocation call, and for a part of it the
#: byte it starts at (`ctgen_heap_2_at_8`).
HEAP_NAME = re.compile(re.escape(HEAP_PREFIX) + r"(\d+)(?:_at_(\d+))?")
_ARRAY = re.compile(r"@\[(\d+)\]$")


def _end(name: str, declaration: str) -> int:
    """How far into its block a heap object reaches (pointers taken as 8 bytes)."""
    match = HEAP_NAME.fullmatch(name)
    start = int(match.group(2) or 0) if match else 0
    array = _ARRAY.search(declaration)
    return start + (int(array.group(1)) if array else 1) * (8 if "*" in declaration else 1)


def _largest_block(cases: list[Case]) -> int:
    return max((_end(o.name, o.declaration) for c in cases for o in c.expected.objects
                if HEAP_NAME.fullmatch(o.name)), default=0)


def heap_names(c: Case) -> dict[str, str | None]:
    """The heap objects case `c` names after its call, each with the declaration it is
    checked as (None: it is only pointed to)."""
    names: dict[str, str | None] = {o.name: o.declaration for o in c.expected.objects
                                    if HEAP_NAME.fullmatch(o.name)}
    values = [b.value for b in (*c.expected.globals, *c.expected.objects)]
    if c.expected.returns is not None:
        values.append(c.expected.returns)
    for v in values:
        for target in pointer_targets(v):
            if HEAP_NAME.fullmatch(target):
                names.setdefault(target, None)
    return dict(sorted(names.items()))


def case_heap_lines(c: Case, ctx: str) -> tuple[list[str], list[str], list[str]]:
    """What case `c` needs of the allocator: the macros naming its heap objects (before
    its function: a part of the block of its allocation call, of its declaration's
    type), the statements naming the calls it fails (first in it), and the `#undef`s
    after it."""
    names = heap_names(c)
    before = []
    for name, declaration in names.items():
        match = HEAP_NAME.fullmatch(name)
        assert match is not None
        number, start = match.group(1), int(match.group(2) or 0)
        kind = declare(declaration or "unsigned char @[1]", "")
        size = f"{start}u + sizeof ({kind})" if declaration else f"{start}u"
        block = f"(unsigned char *)ctgen_heap_block({ctx}, {number}UL, {size})"
        if start:
            block = f"({block} + {start})"
        before.append(f"#define {name} (*({declare(declaration or 'unsigned char @[1]', '(*)')})"
                      f"{block})")
    body = []
    if c.failing_allocations:
        calls = ", ".join(f"{k}UL" for k in c.failing_allocations)
        body = [f"static const unsigned long ctgen_failing[] = {{ {calls} }};",
                f"ctgen_heap_fail_calls(ctgen_failing, {len(c.failing_allocations)}UL);"]
    return before, body, [f"#undef {name}" for name in names]


def leak_lines(c: Case, ctx: str) -> list[str]:
    """The checks of the leaks case `c` predicts (`--ctgen-leaks fail`): each fails the
    case, naming the allocation."""
    out = []
    for v in c.violations:
        match = HEAP_NAME.match(v.detail) if v.kind == LEAK else None
        if match is not None:
            out.append(f"ctgen_heap_leak({ctx}, {match.group(1)}UL, "
                       f"{c_string(leak_message(v))});")
    return out
