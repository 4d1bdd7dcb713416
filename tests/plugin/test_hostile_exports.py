"""Exports are data (DESIGN §6): `pytest DIR` refuses a crafted `*.ctgen.json` with a message
that names the file and the field, never runs what a field smuggles into C, the compiler's
command line or a Makefile, and replays the other exports of the session all the same.

A real export of UNIT is edited in one way per case; all of them are replayed in one
session beside an unedited copy, whose cases must pass."""
from __future__ import annotations

import copy
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any
from collections.abc import Callable

import pytest

UNIT = r"""#include <stdint.h>
#include <stddef.h>
#include <stdlib.h>

extern int32_t sensor_read(uint8_t ch);

int32_t g_limit;  /* set by the configuration code: an input */

struct cfg {
    int32_t gain;
    int32_t offset;
};

typedef void (*log_fn)(const char *msg);

int32_t clamp_reading(uint8_t ch)
{
    int32_t r = sensor_read(ch);

    if (r < 0) {
        return -1;
    }
    if (r > g_limit) {
        return g_limit;
    }
    return r;
}

int32_t apply(struct cfg c, int32_t x)
{
    if (c.gain > 2) {
        return x * 2 + c.offset;
    }
    return x + c.offset;
}

size_t copy_name(char dst[10], const char *src)
{
    size_t n = 0u;

    while (n < 9u && src[n] != '\0') {
        dst[n] = src[n];
        n++;
    }
    dst[n] = '\0';
    return n;
}

void run_log(log_fn f, const char *msg)
{
    if (f != NULL) {
        f(msg);
    }
}

enum mode { M_OFF, M_ON, M_AUTO };
enum level { L_LOW = 1, L_HIGH };

enum mode next_mode(enum mode m, enum level l)
{
    if (m == M_AUTO || l == L_HIGH) {
        return M_OFF;
    }
    return (enum mode)(m + 1);
}

uint8_t set_bits(uint8_t reg, uint8_t bits)
{
    if (bits == 0u) {
        return reg;
    }
    return (uint8_t)(reg | bits);
}

struct link { struct link *next; };
struct item { int32_t key; struct link link; int32_t value; };

/* the pointer points into the middle of a larger object: 8 bytes into a struct item */
int32_t item_key(struct link *l)
{
    const struct item *it;

    if (l == NULL) {
        return -1;
    }
    it = (const struct item *)((char *)l - offsetof(struct item, link));
    if (it->key > 10) {
        return 1;
    }
    return 0;
}

_Bool in_window(_Bool enabled, int32_t v)
{
    return enabled && v > 3;
}

/* predicts a pointer beyond its object: a prediction is never dereferenced */
const char *past(const char *s)
{
    if (s[0] == 'x') {
        return s + 20;
    }
    return s;
}
"""

CLAMP, APPLY, COPY, LOG, MODE, BITS, ITEM, WINDOW = range(8)  # the functions' positions
QUIET = ("-p", "no:cacheprovider", "-p", "no:xdist", "-p", "no:hypothesispytest",
         "-p", "no:benchmark")
Doc = dict[str, Any]


def _pytest(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pytest", *QUIET, *args], cwd=cwd,
                          capture_output=True, text=True, timeout=300, check=False)


def _case(doc: Doc, function: int, number: int = 0) -> Doc:
    return doc["functions"][function]["cases"][number]


def _last(doc: Doc, function: int) -> Doc:
    return doc["functions"][function]["cases"][-1]


def _calls(doc: Doc) -> list[Doc]:
    """The stub calls the first case of clamp_reading predicts (sensor_read's)."""
    return _case(doc, CLAMP)["expected"]["calls_in_order"]


def _with_object(doc: Doc, function: int) -> Doc:
    return next(c for c in doc["functions"][function]["cases"] if c["objects"])


def _set(target: Callable[[Doc], Any], key: Any, value: Any) -> Callable[[Doc, str], None]:
    def edit(doc: Doc, pwn: str) -> None:
        container = target(doc)
        container[key] = value(pwn) if callable(value) else value
    return edit


def _nest(depth: int) -> str:
    """A stand-in for a value nested `depth` lists deep, written as text (json.dumps
    itself cannot write it)."""
    return f"@@nest {depth}@@"


def _text(doc: Doc) -> str:
    return re.sub(r'"@@nest (\d+)@@"', lambda m: "[" * int(m.group(1)) + "0" +
                  "]" * int(m.group(1)), json.dumps(doc))


def _many_calls(case: Doc, n: int) -> None:
    """`case` (of clamp_reading) edited to call sensor_read `n` times, consistently."""
    case["stubs"][0]["calls"] = [{"returns": 1, "writes": []}] * n
    case["expected"]["stub_calls"] = {"sensor_read": n}
    case["expected"]["calls_in_order"] = [{"stub": "sensor_read", "arguments": {"ch": 0}}] * n


def _command_bytes(pwn: str) -> list[int]:
    return [*pwn.encode()[:9], 0]


# (id, edit of the document given the injected shell command, the refusal after the
# file's name)
HOSTILE: list[tuple[str, Callable[[Doc, str], None], str]] = [
    # --- the function under test
    ("fn-name-expression", _set(lambda d: d["functions"][CLAMP], "name",
                                lambda p: f'ok(1) + system("{p}") + ok'),
     r"functions\[0\]\.name: .* is not a C identifier"),
    ("fn-name-twice", _set(lambda d: d["functions"][APPLY], "name", "clamp_reading"),
     r"functions\[1\]\.name: clamp_reading is listed twice"),
    ("fn-prototype-body", _set(lambda d: d["functions"][CLAMP], "prototype",
                               lambda p: f'int32_t clamp_reading(uint8_t ch) {{ system("{p}"); }}'
                                         " int32_t x(uint8_t ch)"),
     r"functions\[0\]\.prototype: is not a prototype: it holds '\{'"),
    ("fn-prototype-vla", _set(lambda d: d["functions"][CLAMP], "prototype",
                              "int32_t clamp_reading(uint8_t ch[system(0)])"),
     r"functions\[0\]\.prototype: is not a prototype: it has an array size that calls "
     r"system\(\)"),
    ("fn-prototype-other", _set(lambda d: d["functions"][CLAMP], "prototype",
                                "int32_t other(uint8_t ch)"),
     r"functions\[0\]\.prototype: is not a prototype of clamp_reading"),
    ("fn-line-string", _set(lambda d: d["functions"][CLAMP], "line", "7"),
     r"functions\[0\]\.line: expected an integer, found a string"),
    ("fn-not-a-list", _set(lambda d: d, "functions", {}),
     r"functions: expected a list, found an object"),
    # --- setup calls (--ctgen-setup)
    ("setup-undefined", _set(lambda d: _case(d, CLAMP), "setup", [
        {"function": "system", "handle": 0, "params": [
            {"name": "cmd", "declaration": "const char *@", "value": None}]}]),
     r"cases\[0\]\.setup\[0\]\.function: system is not a function the unit defines"),
    ("setup-expression", _set(lambda d: _case(d, CLAMP), "setup", lambda p: [
        {"function": f'clamp_reading(0); system("{p}")', "handle": 0, "params": []}]),
     r"setup\[0\]\.function: .* is not a C identifier"),
    ("setup-declaration", _set(lambda d: _case(d, CLAMP), "setup", lambda p: [
        {"function": "clamp_reading", "handle": 0, "params": [
            {"name": "ch", "declaration": f'uint8_t @ = system("{p}")', "value": 1}]}]),
     r"setup\[0\]\.params\[0\]\.declaration: is not a declaration template"),
    ("setup-arguments", _set(lambda d: _case(d, CLAMP), "setup", [
        {"function": "clamp_reading", "handle": 0, "params": [
            {"name": "ch", "declaration": "uint8_t @", "value": 1},
            {"name": "extra", "declaration": "uint8_t @", "value": 2}]}]),
     r"setup\[0\]\.params: clamp_reading takes 1 parameter, not 2"),
    ("setup-handle", _set(lambda d: _case(d, CLAMP), "setup", [
        {"function": "clamp_reading", "handle": 3, "params": [
            {"name": "ch", "declaration": "uint8_t @", "value": 1}]}]),
     r"setup\[0\]\.handle: 3 is out of range \[0, 0\]"),
    # --- declarations of parameters, globals, objects
    ("param-initializer", _set(lambda d: _case(d, CLAMP)["params"][0], "declaration",
                               lambda p: f'uint8_t @ = system("{p}")'),
     r"functions\[0\]\.cases\[0\]\.params\[0\]\.declaration: is not a declaration template"),
    ("param-vla", _set(lambda d: _case(d, CLAMP)["params"][0], "declaration",
                       "uint8_t @[system(0)]"),
     r"params\[0\]\.declaration: is not a declaration template: it has an array size that "
     r"is not a plain number"),
    ("param-attribute", _set(lambda d: _case(d, CLAMP)["params"][0], "declaration",
                             "uint8_t @ __attribute__((cleanup(system)))"),
     r"params\[0\]\.declaration: is not a declaration template: it holds an attribute"),
    ("param-two-names", _set(lambda d: _case(d, CLAMP)["params"][0], "declaration",
                             "uint8_t @, x"),
     r"params\[0\]\.declaration: is not a declaration template: it declares more than one"),
    ("param-no-name", _set(lambda d: _case(d, CLAMP)["params"][0], "declaration",
                           "uint8_t x"),
     r"params\[0\]\.declaration: is not a declaration template with '@' once"),
    ("param-statement", _set(lambda d: _case(d, CLAMP)["params"][0], "declaration",
                             lambda p: f'int @; system("{p}"); int y'),
     r"params\[0\]\.declaration: is not a declaration template"),
    ("global-name-statement", _set(lambda d: _last(d, CLAMP)["globals"][0], "name",
                                   lambda p: f'g_limit = 0; system("{p}")'),
     r"globals\[0\]\.name: .* is not a C identifier"),
    ("global-unknown", _set(lambda d: _last(d, CLAMP)["globals"][0], "name", "environ"),
     r"globals\[0\]\.name: environ is not a global of the unit"),
    ("object-unprefixed", _set(lambda d: _with_object(d, COPY)["objects"][0], "name",
                               "g_limit"),
     r"objects\[0\]\.name: g_limit is not an object's name \(ctgen_obj_\.\.\.\)"),
    ("object-too-long", _set(lambda d: _with_object(d, COPY)["objects"][0], "value",
                             [1] * 11),
     r"objects\[0\]\.value: has 11 elements, the array 10"),
    ("string-too-long", _set(lambda d: _with_object(d, COPY)["objects"][0], "value",
                             {"@string": "ABCDEFGHIJK"}),
     r"objects\[0\]\.value\.@string: 11 characters do not fit in the array \(10 bytes\)"),
    ("string-not-ascii", _set(lambda d: _with_object(d, COPY)["objects"][0], "value",
                              {"@string": "\u00e9t\u00e9"}),
     r"objects\[0\]\.value\.@string: holds U\+00E9, which is not ASCII"),
    ("string-surrogate", _set(lambda d: _with_object(d, COPY)["objects"][0], "value",
                              {"@string": "a\ud800"}),
     r"objects\[0\]\.value\.@string: holds U\+D800, which is not ASCII"),
    ("string-for-an-integer", _set(lambda d: _case(d, CLAMP)["params"][0], "value",
                                   {"@string": "7"}),
     r"params\[0\]\.value: expected an integer, found a string"),
    ("string-for-bytes", lambda d, p: _with_object(d, COPY)["objects"][0].update(
        declaration="unsigned char @[10]", value={"@string": "ab"}),
     r"objects\[0\]\.value: a string gives an array of plain char"),
    ("enum-not-an-enumerator", _set(lambda d: _case(d, MODE)["params"][0], "value",
                                    {"@enum": "M_BOGUS"}),
     r"params\[0\]\.value\.@enum: M_BOGUS is not an enumerator of the value's enum type "
     r"\(M_OFF, M_ON, M_AUTO\)"),
    ("enum-of-another-enum", _set(lambda d: _case(d, MODE)["expected"], "returns",
                                  {"@enum": "L_HIGH"}),
     r"expected\.returns\.@enum: L_HIGH is not an enumerator of the value's enum type"),
    ("enum-expression", _set(lambda d: _case(d, MODE)["params"][1], "value",
                             lambda p: {"@enum": f'L_LOW + system("{p}")'}),
     r"params\[1\]\.value\.@enum: \"L_LOW \+ system\(.* is not a C identifier"),
    ("enum-for-an-integer", _set(lambda d: _case(d, CLAMP)["params"][0], "value",
                                 {"@enum": "M_ON"}),
     r"params\[0\]\.value\.@enum: M_ON names an enumerator, but the value's type is no "
     r"enum the unit declares"),
    ("enum-with-a-value", _set(lambda d: _case(d, MODE)["params"][0], "value",
                               {"@enum": "M_ON", "value": 1}),
     r"params\[0\]\.value: an enumerator is \{\"@enum\": name\} alone"),
    ("hex-out-of-range", _set(lambda d: _case(d, BITS)["params"][0], "value", "0x100"),
     r"params\[0\]\.value: 0x100 is out of range \[0, 255\]"),
    ("hex-beyond-a-member", _set(lambda d: _case(d, APPLY)["params"][0]["value"], "gain",
                                 "0x80000000"),
     r"params\[0\]\.value\.gain: 0x80000000 is out of range \[-2147483648, 2147483647\]"),
    ("hex-for-a-pointer", _set(lambda d: _with_object(d, COPY)["params"][0], "value", "0x10"),
     r"params\[0\]\.value: expected a pointer, found an integer"),
    ("param-placed", _set(lambda d: _case(d, CLAMP)["params"][0], "placement", 8),
     r"params\[0\]\.placement: only an object of a case is placed"),
    # --- values
    ("int-out-of-range", _set(lambda d: _case(d, CLAMP)["params"][0], "value", 300),
     r"params\[0\]\.value: 300 is out of range \[0, 255\]"),
    ("int-beyond-64-bits", _set(lambda d: _case(d, APPLY)["params"][0]["value"], "gain",
                                1 << 70),
     r"params\[0\]\.value\.gain: \d+ is out of range"),
    ("int-as-boolean", _set(lambda d: _case(d, CLAMP)["params"][0], "value", True),
     r"params\[0\]\.value: expected an integer, found a boolean"),
    ("member-as-boolean", _set(lambda d: _case(d, APPLY)["params"][0]["value"], "gain",
                               False),
     r"params\[0\]\.value\.gain: expected an integer, found a boolean"),
    ("element-as-boolean", _set(lambda d: _with_object(d, COPY)["objects"][0], "value",
                                [True] * 10),
     r"objects\[0\]\.value\[0\]: expected an integer, found a boolean"),
    ("returns-boolean", _set(lambda d: _case(d, CLAMP)["expected"], "returns", False),
     r"expected\.returns: expected an integer, found a boolean"),
    ("stub-returns-boolean", _set(lambda d: _case(d, CLAMP)["stubs"][0]["calls"][0],
                                  "returns", True),
     r"stubs\[0\]\.calls\[0\]\.returns: expected an integer, found a boolean"),
    ("pointer-as-boolean", _set(lambda d: _with_object(d, COPY)["params"][0], "value", True),
     r"params\[0\]\.value: expected a pointer, found a boolean"),
    ("bool-as-boolean", _set(lambda d: _case(d, WINDOW)["params"][0], "value", True),
     r"params\[0\]\.value: expected an integer, found a boolean \(a _Bool is 0 or 1\)"),
    ("int-as-string", _set(lambda d: _case(d, CLAMP)["params"][0], "value", "7"),
     r"params\[0\]\.value: not a case value: \"7\""),
    ("int-as-double", _set(lambda d: _case(d, CLAMP)["params"][0], "value", {"double": 1.5}),
     r"params\[0\]\.value: expected an integer, found a double"),
    ("float-too-big", _set(lambda d: _case(d, APPLY)["params"], 0,
                           {"name": "c", "declaration": "float @", "value": {"float": 1e300}}),
     r"params\[0\]\.value\.float: 1e\+300 does not fit in a float"),
    ("nan-without-bits", _set(lambda d: _case(d, APPLY)["params"], 0,
                              {"name": "c", "declaration": "double @",
                               "value": {"double": "nan"}}),
     r"params\[0\]\.value: missing \"bits\""),
    ("member-of-another-type", _set(lambda d: _case(d, APPLY)["params"][0]["value"], "gain",
                                    {"float": 1.5}),
     r"params\[0\]\.value\.gain: expected an integer, found a float"),
    ("bytes-not-hex", _set(lambda d: _case(d, APPLY)["params"], 0,
                           {"name": "c", "declaration": "struct cfg @",
                            "value": {"@bytes": "zz"}}),
     r"params\[0\]\.value\.@bytes: \"zz\" is not bytes in hexadecimal"),
    ("member-name", _set(lambda d: _case(d, APPLY)["params"][0], "value",
                         lambda p: {f'gain = system("{p}"), .offset': 1}),
     r"params\[0\]\.value\.gain = .*: .* is not a C identifier"),
    ("member-unknown", _set(lambda d: _case(d, APPLY)["params"][0]["value"], "bogus", 1),
     r"params\[0\]\.value\.bogus: struct cfg has no member named bogus"),
    ("member-unknown-nested", _set(lambda d: _with_object(d, ITEM)["objects"][0]["value"]
                                   ["link"], "prev", None),
     r"objects\[0\]\.value\.link\.prev: struct link has no member named prev"),
    ("returns-beyond-int32", _set(lambda d: _case(d, CLAMP)["expected"], "returns", 1 << 40),
     r"expected\.returns: \d+ is out of range \[-2147483648, 2147483647\]"),
    ("void-returns", _set(lambda d: _case(d, LOG)["expected"], "void", False),
     r"functions\[3\]\.cases\[0\]\.expected\.returns: a void function returns nothing"),
    ("number-bool", _set(lambda d: _case(d, CLAMP), "number", True),
     r"cases\[0\]\.number: expected an integer, found a boolean"),
    ("number-twice", _set(lambda d: _case(d, CLAMP, 1), "number", 1),
     r"cases\[1\]\.number: case 1 of clamp_reading is listed twice"),
    ("deep-nesting", _set(lambda d: _case(d, APPLY)["params"][0], "value", _nest(100000)),
     r"nested more than 64 levels deep"),
    ("moderate-nesting", _set(lambda d: _case(d, APPLY)["params"][0], "value", _nest(100)),
     r"nested more than 64 levels deep"),
    # --- pointers
    ("pointer-expression", _set(lambda d: _with_object(d, COPY)["params"][0], "value",
                                lambda p: {"@pointer": f'ctgen_obj_dst); system("{p}"',
                                           "offset": 0}),
     r"params\[0\]\.value\.@pointer: .* is not an object of the case"),
    ("pointer-star-input", _set(lambda d: _with_object(d, COPY)["params"][0], "value",
                                {"@pointer": "*", "offset": 0}),
     r"params\[0\]\.value\.@pointer: an input cannot point to an object the case does not"),
    ("pointer-unknown-global", _set(lambda d: _with_object(d, COPY)["params"][0], "value",
                                    {"@pointer": "&environ", "offset": 0}),
     r"params\[0\]\.value\.@pointer: environ is not a global of the unit"),
    ("pointer-offset-string", _set(lambda d: _with_object(d, COPY)["params"][0], "value",
                                   {"@pointer": "ctgen_obj_dst", "offset": "4"}),
     r"params\[0\]\.value\.offset: expected an integer, found a string"),
    ("pointer-offset-beyond", _set(lambda d: _with_object(d, COPY)["params"][0]["value"],
                                   "offset", 11),
     r"params\[0\]\.value\.offset: 11 is outside ctgen_obj_dst \(10 bytes\): an input "
     r"points into its object or just past its end, 0 to 10"),
    ("pointer-offset-before", _set(lambda d: _with_object(d, COPY)["params"][0]["value"],
                                   "offset", -1),
     r"params\[0\]\.value\.offset: -1 is outside ctgen_obj_dst \(10 bytes\)"),
    ("pointer-offset-in-record", _set(lambda d: _with_object(d, ITEM)["params"][0]["value"],
                                      "offset", 25),
     r"params\[0\]\.value\.offset: 25 is outside ctgen_obj_l \(24 bytes\)"),
    ("pointer-offset-in-object", _set(lambda d: _with_object(d, ITEM)["objects"][0]["value"]
                                      ["link"], "next",
                                      {"@pointer": "ctgen_obj_l", "offset": 1 << 40}),
     r"objects\[0\]\.value\.link\.next\.offset: 1099511627776 is outside ctgen_obj_l "
     r"\(24 bytes\)"),
    ("pointer-offset-global", _set(lambda d: _with_object(d, COPY)["params"][0], "value",
                                   {"@pointer": "&g_limit", "offset": 8}),
     r"params\[0\]\.value\.offset: 8 is outside g_limit \(4 bytes\)"),
    ("function-system", lambda d, p: (
        _with_object(d, LOG)["params"][0].update(value={"@function": "system"}),
        _with_object(d, LOG)["objects"][0].update(value=_command_bytes(p))),
     r"functions\[3\]\.cases\[\d\]\.params\[0\]\.value\.@function: system is neither a "
     r"function the unit defines nor a stub or callback"),
    ("function-expression", _set(lambda d: _with_object(d, LOG)["params"][0], "value",
                                 {"@function": "run_log); system(0"}),
     r"params\[0\]\.value\.@function: .* is not a C identifier"),
    ("function-unlisted-callback", _set(lambda d: _with_object(d, LOG)["params"][0], "value",
                                        {"@function": "ctgen_cb_other"}),
     r"params\[0\]\.value\.@function: points to the callback ctgen_cb_other, which the file"),
    # --- stubs and callbacks
    ("stub-prototype-body", _set(lambda d: d["stubs"][0], "prototype",
                                 lambda p: f'int32_t sensor_read(uint8_t ch) {{ system("{p}");'
                                           " return 0; } int32_t x(uint8_t ch)"),
     r"stubs\[0\]\.prototype: is not a prototype: it holds '\{'"),
    ("stub-prototype-attribute", _set(lambda d: d["stubs"][0], "prototype",
                                      "__attribute__((constructor)) int32_t "
                                      "sensor_read(uint8_t ch)"),
     r"stubs\[0\]\.prototype: is not a prototype: it holds an attribute"),
    ("stub-name", _set(lambda d: d["stubs"][0], "name", "sensor_read(x) system"),
     r"stubs\[0\]\.name: .* is not a C identifier"),
    ("stub-defined-in-unit", _set(lambda d: d["stubs"][0], "name", "apply"),
     r"stubs\[0\]\.name: apply is defined in the unit: it is no stub"),
    ("stub-param-name", _set(lambda d: d["stubs"][0], "params",
                             [['ch); system("x"', "signed"]]),
     r"stubs\[0\]\.params\[0\]\[0\]: .* is not a C identifier"),
    ("stub-param-kind", _set(lambda d: d["stubs"][0], "params", [["ch", "shell"]]),
     r"stubs\[0\]\.params\[0\]\[1\]: \"shell\" is not one of"),
    ("stub-param-global", _set(lambda d: d["stubs"][0], "params", [["g_limit", "signed"]]),
     r"stubs\[0\]\.params\[0\]: g_limit is not a parameter of sensor_read"),
    ("stub-precondition-call", _set(lambda d: d["stubs"][0], "preconditions",
                                    lambda p: [{"condition": f'system("{p}")', "at": "x:1"}]),
     r"stubs\[0\]\.preconditions\[0\]\.condition: calls system\(\)"),
    ("stub-precondition-assigns", _set(lambda d: d["stubs"][0], "preconditions",
                                       [{"condition": "g_limit = 0", "at": "x:1"}]),
     r"stubs\[0\]\.preconditions\[0\]\.condition: assigns \(=\)"),
    ("stub-precondition-pointer-call", _set(lambda d: d["stubs"][0], "preconditions",
                                            [{"condition": "(abort)()", "at": "x:1"}]),
     r"stubs\[0\]\.preconditions\[0\]\.condition: (calls a function through|names abort)"),
    ("script-not-a-stub", _set(lambda d: _case(d, CLAMP)["stubs"][0], "name", "system"),
     r"stubs\[0\]\.name: scripts system, which is no stub or callback of the file"),
    ("script-write-target", _set(lambda d: _case(d, CLAMP)["stubs"][0]["calls"][0], "writes",
                                 lambda p: [{"name": f'x; system("{p}")',
                                             "declaration": "int @", "value": 1}]),
     r"calls\[0\]\.writes\[0\]\.name: .* is not what a stub writes"),
    ("script-write-global", _set(lambda d: _case(d, CLAMP)["stubs"][0]["calls"][0], "writes",
                                 [{"name": "environ", "declaration": "int @", "value": 1}]),
     r"calls\[0\]\.writes\[0\]\.name: environ is not a global of the unit"),
    ("stub-calls-unknown", _set(lambda d: _case(d, CLAMP)["expected"]["stub_calls"],
                                "system", 1),
     r"expected\.stub_calls\.system: counts calls of system, which is no stub"),
    ("callback-prototype", _set(lambda d: d["functions"][LOG]["callbacks"][0], "prototype",
                                "void ctgen_cb_run_log_f(const char *msg) { abort(); }"),
     r"functions\[3\]\.callbacks\[0\]\.prototype: is not a prototype: it holds '\{'"),
    # --- predictions, annotations
    ("violation-kind", _set(lambda d: _case(d, CLAMP), "violations",
                            [{"kind": "reboot", "at": "x:1", "detail": ""}]),
     r"violations\[0\]\.kind: \"reboot\" is not one of"),
    ("ending", _set(lambda d: _case(d, CLAMP)["expected"], "ends",
                    {"how": "halt and catch fire", "status": 0}),
     r"expected\.ends\.how: \"halt and catch fire\" is not one of"),
    ("ending-status", _set(lambda d: _case(d, CLAMP)["expected"], "ends",
                           {"how": "exit", "status": 1 << 40}),
     r"expected\.ends\.status: \d+ is out of range"),
    ("contract-condition-call", _set(lambda d: d["functions"][CLAMP], "contract",
                                     lambda p: {"checks": [{
                                         "kind": "postcondition", "text": "x", "at": "x:1",
                                         "condition": f'system("{p}") == 0'}]}),
     r"functions\[0\]\.contract\.checks\[0\]\.condition: calls system\(\)"),
    ("contract-condition-name", _set(lambda d: d["functions"][CLAMP], "contract",
                                     {"checks": [{"kind": "postcondition", "text": "x",
                                                  "at": "x:1", "condition": "(system)(0)"}]}),
     r"contract\.checks\[0\]\.condition: (calls a function through|names system)"),
    ("contract-initial-assigns", _set(lambda d: d["functions"][CLAMP], "contract",
                                      {"initials": [{"declaration": "int @",
                                                     "expression": "g_limit = 0"}]}),
     r"contract\.initials\[0\]\.expression: assigns \(=\)"),
    ("contract-kind", _set(lambda d: d["functions"][CLAMP], "contract",
                           {"checks": [{"kind": "shell", "text": "x", "at": "x:1"}]}),
     r"contract\.checks\[0\]\.kind: \"shell\" is not one of"),
    ("contract-unmodified", _set(lambda d: d["functions"][CLAMP], "contract",
                                 {"unmodified": ["environ"]}),
     r"contract\.unmodified\[0\]: environ is not a global of the unit"),
    ("requirement-id", _set(lambda d: _case(d, CLAMP), "requirements", ["REQ 1, REQ 2"]),
     r"requirements\[0\]: is not a requirement id"),
    ("source-newline", _set(lambda d: d, "source", "src/sensor.c\nPASSED"),
     r"source: holds the control character '\\n'"),
    ("note-surrogate", _set(lambda d: _case(d, CLAMP), "notes", ["\ud800"]),
     r"notes\[0\]: is not valid Unicode"),
    ("format", _set(lambda d: d, "format", "something else"),
     r"format: not a pytest-ctgen cases file"),
    ("version-string", _set(lambda d: d, "version", "1"),
     r"version: expected an integer, found a string"),
    ("missing-expected", lambda d, p: _case(d, CLAMP).pop("expected"),
     r"functions\[0\]\.cases\[0\]: missing \"expected\""),
    # --- the stub calls a case predicts, with their arguments
    ("calls-no-stub", _set(lambda d: _calls(d)[0], "stub", "system"),
     r"expected\.calls_in_order\[0\]\.stub: system is no stub or callback of the file"),
    ("calls-no-parameter", _set(lambda d: _calls(d)[0], "arguments", {"cmd": 1}),
     r"calls_in_order\[0\]\.arguments\.cmd: \"cmd\" is not a parameter of sensor_read"),
    ("calls-out-of-range", _set(lambda d: _calls(d)[0], "arguments", {"ch": 256}),
     r"calls_in_order\[0\]\.arguments\.ch: 256 is out of range \[0, 255\]"),
    ("calls-boolean", _set(lambda d: _calls(d)[0], "arguments", {"ch": True}),
     r"calls_in_order\[0\]\.arguments\.ch: expected an integer, found a boolean"),
    ("calls-expression", _set(lambda d: _calls(d)[0], "arguments",
                              lambda p: {"ch": f'0); system("{p}"'}),
     r"calls_in_order\[0\]\.arguments\.ch: not a case value"),
    ("calls-pointer-for-integer", _set(lambda d: _calls(d)[0], "arguments",
                                       {"ch": {"@pointer": "*"}}),
     r"calls_in_order\[0\]\.arguments\.ch: expected an integer, found a pointer"),
    ("contents-not-a-pointer", _set(lambda d: _calls(d)[0], "contents", [
        {"name": "ch", "declaration": "unsigned char @[2]", "value": [1, 2]}]),
     r"calls_in_order\[0\]\.contents\[0\]\.name: ch is not a pointer parameter of "
     r"sensor_read"),
    ("contents-declaration", _set(lambda d: _calls(d)[0], "contents", lambda p: [
        {"name": "ch", "declaration": f'char @[2]; int x = system("{p}")', "value": [1, 2]}]),
     r"calls_in_order\[0\]\.contents\[0\]\.declaration: is not a declaration template"),
    ("calls-more-than-counted", _set(lambda d: _case(d, CLAMP)["expected"], "calls_in_order",
                                     lambda p: [{"stub": "sensor_read", "arguments": {}}] * 2),
     r"expected\.calls_in_order: lists calls \{\"sensor_read\": 2\}, which \"stub_calls\" "
     r"counts \{\"sensor_read\": 1\}"),
    # --- as many stub calls as the harness logs of a case (CTGEN_MAX_STUB_CALLS), no more
    ("stub-calls-beyond-the-log", _set(lambda d: _case(d, CLAMP)["expected"]["stub_calls"],
                                       "sensor_read", 4097),
     r"expected\.stub_calls: counts 4097 stub calls, more than the 4096 the harness logs "
     r"and checks of a case \(CTGEN_MAX_STUB_CALLS\): no such case passes"),
    ("stub-calls-200000", lambda d, p: _many_calls(_case(d, CLAMP), 200000),
     r"functions\[0\]\.cases\[0\]\.expected\.stub_calls: counts 200000 stub calls"),
    ("calls-beyond-the-log", _set(lambda d: _case(d, CLAMP)["expected"], "calls_in_order",
                                  lambda p: [{"stub": "sensor_read", "arguments": {}}] * 5000),
     r"expected\.calls_in_order: lists 5000 stub calls, more than the 4096"),
    ("script-beyond-the-count", _set(lambda d: _case(d, CLAMP)["stubs"][0], "calls",
                                     lambda p: [{"returns": 1, "writes": []}] * 5000),
     r"cases\[0\]\.stubs\[0\]\.calls: scripts 5000 calls of sensor_read, which "
     r"\"stub_calls\" counts 1"),
    # --- the build recipe
    ("cflags-wrapper", _set(lambda d: d["build"], "cflags",
                            lambda p: ["-wrapper", f"/bin/sh,-c,{p}"]),
     r"build\.cflags\[0\]: \"-wrapper\" is not an allowed compiler flag"),
    ("cflags-B", _set(lambda d: d["build"], "cflags", ["-B/tmp/evil"]),
     r"build\.cflags\[0\]: \"-B/tmp/evil\" is not an allowed compiler flag"),
    ("cflags-plugin", _set(lambda d: d["build"], "cflags", ["-fplugin=./evil.so"]),
     r"build\.cflags\[0\]: \"-fplugin=\./evil\.so\" is not an allowed compiler flag"),
    ("cflags-response-file", _set(lambda d: d["build"], "cflags", ["@args.txt"]),
     r"build\.cflags\[0\]: \"@args\.txt\" is not an allowed compiler flag"),
    ("cflags-specs", _set(lambda d: d["build"], "cflags", ["-specs=evil.specs"]),
     r"build\.cflags\[0\]: \"-specs=evil\.specs\" is not an allowed compiler flag"),
    ("cflags-output", _set(lambda d: d["build"], "cflags", ["-o", "/tmp/x"]),
     r"build\.cflags\[0\]: \"-o\" is not an allowed compiler flag"),
    ("cflags-linker", _set(lambda d: d["build"], "cflags", ["-Wl,-plugin,evil.so"]),
     r"build\.cflags\[0\]: \"-Wl,-plugin,evil\.so\" is not an allowed compiler flag"),
    ("cflags-define-call", _set(lambda d: d["build"], "cflags",
                                lambda p: [f'-Dg_limit=system("{p}")']),
     r"build\.cflags\[0\]: .* defines g_limit as a value that calls system\(\)"),
    ("cflags-define-function-like", _set(lambda d: d["build"], "cflags",
                                         lambda p: [f'-Dsensor_read(x)=system("{p}")']),
     r"build\.cflags\[0\]: .* defines sensor_read as a value that calls system\(\)"),
    ("cflags-define-harness", _set(lambda d: d["build"], "cflags",
                                   ['-DCTGEN_UNIT_SRC="/etc/passwd"']),
     r"build\.cflags\[0\]: .* defines CTGEN_UNIT_SRC, a name of pytest-ctgen's harness"),
    ("cflags-define-renames-a-call", _set(lambda d: d["build"], "cflags",
                                          ["-Dsensor_read=popen"]),
     r"build\.cflags: built with them, \S+ uses popen, which the export neither stubs "
     r"nor models"),
    ("cflags-path-option", _set(lambda d: d["build"], "cflags", ["-isystem", "-wrapper"]),
     r"build\.cflags\[1\]: the argument of -isystem \"-wrapper\" starts with '-'"),
    ("cflags-not-strings", _set(lambda d: d["build"], "cflags", [["-O0"]]),
     r"build\.cflags\[0\]: expected a string, found a list"),
    ("unit-option", _set(lambda d: d["build"], "unit", "-wrapper.c"),
     r"build\.unit: starts with '-'"),
    ("unit-absolute", _set(lambda d: d["build"], "unit", "/etc/passwd"),
     r"build\.unit: is not a relative path"),
    ("unit-not-c", _set(lambda d: d["build"], "unit", "../../src/sensor.sh"),
     r"build\.unit: \"\.\./\.\./src/sensor\.sh\" is not a C unit"),
    ("unit-quote", _set(lambda d: d["build"], "unit", '../../src/a"b.c'),
     r"build\.unit: holds a '\"', which #include"),
    ("sources-option", _set(lambda d: d["build"], "sources", ["-fplugin=evil.so"]),
     r"build\.sources\[0\]: starts with '-'"),
    # --- files outside the project (pytest's rootdir, where it runs, the export's own)
    ("unit-outside", _set(lambda d: d["build"], "unit", "../../../sensor.c"),
     r"build\.unit: \"\.\./\.\./\.\./sensor\.c\" is /\S+/sensor\.c, outside the "
     r"directories a replay reads files from \(/\S+, /\S+/exports/unit-outside\)"),
    ("sources-outside", _set(lambda d: d["build"], "sources", ["../../../evil.c"]),
     r"build\.sources\[0\]: \"\.\./\.\./\.\./evil\.c\" is /\S+/evil\.c, outside"),
    ("cflags-include-outside", _set(lambda d: d["build"], "cflags",
                                    ["-include", "../../../evil.h"]),
     r"build\.cflags\[1\]: the argument of -include \"\.\./\.\./\.\./evil\.h\" is "
     r"/\S+/evil\.h, outside"),
    ("cflags-include-absolute", _set(lambda d: d["build"], "cflags", ["-include/etc/passwd"]),
     r"build\.cflags\[0\]: the argument of -include \"/etc/passwd\" is /etc/passwd, "
     r"outside"),
    ("cflags-imacros", _set(lambda d: d["build"], "cflags", ["-O0", "-imacros", "/etc/hosts"]),
     r"build\.cflags\[2\]: the argument of -imacros \"/etc/hosts\" is /etc/hosts, outside"),
    ("cflags-include-dir-outside", _set(lambda d: d["build"], "cflags", ["-I../../.."]),
     r"build\.cflags\[0\]: the argument of -I \"\.\./\.\./\.\.\" is /\S+, outside"),
    ("cflags-sysroot-outside", _set(lambda d: d["build"], "cflags", ["--sysroot", "../../.."]),
     r"build\.cflags\[1\]: the argument of --sysroot \"\.\./\.\./\.\.\" is /\S+, outside"),
]


def test_the_bound_is_the_runtimes() -> None:
    """The most stub calls a case may have, and the most bytes their pointer arguments may
    point to, are what the runtime's log keeps of them."""
    from pytest_ctgen.c_harness_files import (
        MAX_RECEIVED_BYTES,
        MAX_STUB_CALLS,
        RUNTIME_SOURCE,
        harness_dir,
    )

    text = (harness_dir() / RUNTIME_SOURCE).read_text()
    assert f"#define CTGEN_MAX_STUB_CALLS {MAX_STUB_CALLS}\n" in text
    assert f"#define CTGEN_MAX_STUB_BYTES {MAX_RECEIVED_BYTES}\n" in text


@pytest.fixture(scope="module")
def replayed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str], str]:
    """The hostile exports of HOSTILE, replayed in one session beside a valid one: the
    project's root, each export's message by id, and the session's output."""
    root = tmp_path_factory.mktemp("hostile")
    (root / "pytest.ini").write_text("[pytest]\n")
    (root / "src").mkdir()
    (root / "src" / "sensor.c").write_text(UNIT)
    done = _pytest(root, "--ctgen", "-q", "--ctgen-export", "out", "src/sensor.c")
    assert done.returncode == 0, done.stdout + done.stderr
    valid = json.loads((root / "out/sensor/sensor.ctgen.json").read_text())
    pwn = f"touch {root}/INJECTED"
    (root / "exports").mkdir()
    for name, edit, _ in [("valid", lambda d, p: None, ""), *HOSTILE]:
        doc = copy.deepcopy(valid)
        edit(doc, pwn)
        (root / "exports" / name).mkdir()
        (root / "exports" / name / "x.ctgen.json").write_text(_text(doc))
    done = _pytest(root, "-v", "exports")
    text = done.stdout + done.stderr
    messages = {m.group(1): m.group(2) for m in re.finditer(
        r"exports/([\w-]+)/x\.ctgen\.json: (.*)", text)}
    return root, messages, text


@pytest.mark.parametrize("name, message", [(n, m) for n, _, m in HOSTILE],
                         ids=[n for n, _, _ in HOSTILE])
def test_a_hostile_export_is_refused_with_its_field(
        replayed: tuple[Path, dict[str, str], str], name: str, message: str) -> None:
    root, messages, text = replayed
    assert name in messages, text
    assert re.search(message, messages[name]), messages[name]
    assert not (root / "INJECTED").exists()


def _valid_cases(root: Path) -> int:
    """How many cases the valid export has (every one of them passes)."""
    doc = json.loads((root / "out/sensor/sensor.ctgen.json").read_text())
    count = sum(len(f["cases"]) for f in doc["functions"])
    assert count >= 20, doc  # the functions of UNIT, each with its cases
    return count


def test_hostile_exports_end_no_session_and_run_nothing(
        replayed: tuple[Path, dict[str, str], str]) -> None:
    """One collection error per hostile file, no traceback, and the valid export's cases
    all run and pass."""
    root, _messages, text = replayed
    assert "Traceback" not in text and "INTERNALERROR" not in text, text
    assert len(HOSTILE) >= 40
    assert re.search(rf"\b{len(HOSTILE)} errors\b", text), text
    passed = re.findall(r"exports/valid/x\.ctgen\.json::\S+ PASSED", text)
    assert len(passed) == _valid_cases(root), text
    assert not (root / "INJECTED").exists()


def test_a_function_the_unit_does_not_define_is_never_called(
        replayed: tuple[Path, dict[str, str], str]) -> None:
    """An export whose function under test is `system`, with a parameter pointing to a
    command: a function the unit does not define fails its cases, naming it; it is never
    compiled into a call."""
    root, _, _ = replayed
    doc = json.loads((root / "out/sensor/sensor.ctgen.json").read_text())
    fn = doc["functions"][COPY]
    fn["name"] = "system"
    fn["prototype"] = "int system(const char *command)"
    for case in fn["cases"]:
        case["params"] = case["params"][1:]
        for o in case["objects"]:
            o["value"] = _command_bytes(f"touch {root}/INJECTED")
    (root / "renamed").mkdir()
    (root / "renamed" / "x").mkdir()
    (root / "renamed" / "x" / "x.ctgen.json").write_text(json.dumps(doc))
    done = _pytest(root, "-v", "renamed")
    text = done.stdout + done.stderr
    assert done.returncode == 1, text
    failed = re.findall(r"::(\w+)\[\w+\] FAILED", text)
    assert failed and set(failed) == {"system"}, text
    assert "system is not defined in sensor.c any more" in text, text
    assert not (root / "INJECTED").exists()


def test_a_member_left_out_is_zero(replayed: tuple[Path, dict[str, str], str]) -> None:
    """A struct value may leave members out, as a designated initializer does: they are
    zero (the generator leaves out what a value cannot show, an anonymous union of
    pointers). Only a member the struct does not have is refused."""
    root, _, _ = replayed
    doc = json.loads((root / "out/sensor/sensor.ctgen.json").read_text())
    case = doc["functions"][APPLY]["cases"][0]
    # apply returns x (times 2) + c.offset: left out, the offset is 0
    case["expected"]["returns"] -= case["params"][0]["value"].pop("offset")
    for c in doc["functions"][ITEM]["cases"]:
        # item_key reads only the key; its case checks that the item kept its value
        for o in [*c["objects"], *c["expected"]["objects"]]:
            del o["value"]["value"]
    # an absolute include directory may lie outside the project (an SDK's)
    doc["build"]["cflags"] = ["-isystem", str(root.parent)]
    (root / "lenient" / "x").mkdir(parents=True)
    (root / "lenient" / "x" / "x.ctgen.json").write_text(json.dumps(doc))
    done = _pytest(root, "-q", "lenient")
    text = done.stdout + done.stderr
    assert done.returncode == 0, text
    assert f"{_valid_cases(root)} passed" in text, text


def test_a_symbolic_link_out_of_the_project_is_followed(
        replayed: tuple[Path, dict[str, str], str]) -> None:
    """A file the export names in its own directory that a symbolic link takes out of the
    project is a file outside it: refused."""
    root, _, _ = replayed
    doc = json.loads((root / "out/sensor/sensor.ctgen.json").read_text())
    elsewhere = root.parent / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "sensor.c").write_text(UNIT)
    here = root / "linked" / "x"
    here.mkdir(parents=True)
    (here / "src").symlink_to(elsewhere)
    doc["build"]["unit"] = "src/sensor.c"
    (here / "x.ctgen.json").write_text(json.dumps(doc))
    done = _pytest(root, "-q", "linked")
    text = done.stdout + done.stderr
    assert re.search(r"linked/x/x\.ctgen\.json: build\.unit: \"src/sensor\.c\" is "
                     r"/\S+/elsewhere/sensor\.c, outside", text), text
    assert "Traceback" not in text, text


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_the_valid_export_still_runs_under_make(
        replayed: tuple[Path, dict[str, str], str]) -> None:
    root, _, _ = replayed
    done = subprocess.run(["make", "-s", "-C", str(root / "out/sensor"), "run"],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines()[-1] == f"{_valid_cases(root)} passed, 0 failed"
