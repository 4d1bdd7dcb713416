"""The C library functions the generator executes itself instead of stubbing them: their
names, for the layers that do without z3 (a replay checks what a unit calls against
them). Their meaning is in symbolic/libc.py and symbolic/heap.py, whose tables must name
exactly these (tests/symbolic/test_library_models.py).
"""
from __future__ import annotations

from .cases import PROGRAM_ENDS

#: The functions of the C library with a model (symbolic/libc.py MODELS).
MODELLED_FUNCTIONS = frozenset({
    "abs", "labs", "llabs", "fabs", "fabsf",
    "memset", "memcpy", "memmove", "memcmp",
    "strlen", "strcmp", "strncmp", "strchr", "strcpy", "strncpy",
    "isalnum", "isalpha", "isblank", "iscntrl", "isdigit", "isgraph", "islower",
    "isprint", "ispunct", "isspace", "isupper", "isxdigit", "tolower", "toupper",
    "malloc", "calloc", "realloc", "aligned_alloc", "free",
})


def is_modelled(name: str, library: bool) -> bool:
    """Whether the undefined function `name` needs no stub: it ends the path (the harness
    intercepts those), or it is a modelled function of the C library (`library`: declared
    in the system's headers only)."""
    return name in PROGRAM_ENDS or (library and name in MODELLED_FUNCTIONS)
