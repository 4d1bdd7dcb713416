"""gcc -E with our defines: real headers reach pycparser, errors carry gcc's location."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from pytest_ctgen.c_harness_files import harness_dir
from pytest_ctgen.errors import PreprocessError
from pytest_ctgen.frontend.parse import parse
from pytest_ctgen.frontend.preprocess import (
    analysis_header, compile_flags, preprocess, preprocess_command,
)

HEADERS = ["stdint.h", "stdbool.h", "stddef.h", "limits.h", "string.h", "math.h", "stdio.h",
           "stdlib.h", "ctype.h"]
MORE_HEADERS = ["stdarg.h", "assert.h", "errno.h", "float.h", "inttypes.h", "time.h",
                "signal.h", "setjmp.h", "wchar.h", "unistd.h", "stdalign.h", "stdnoreturn.h",
                "iso646.h", "fenv.h", "sys/types.h"]


@pytest.mark.parametrize("std", [[], ["-std=c11"], ["-std=c99"], ["-std=gnu17", "-O2"]])
@pytest.mark.parametrize("header", HEADERS)
def test_system_header_preprocesses_and_parses(write_c, header, std):
    path = write_c("uses_header.c", f"#include <{header}>\nint ctgen_marker;\n")
    text = preprocess(path, std)
    ast = parse(text, path)
    assert ast.ext[-1].name == "ctgen_marker"
    assert ast.ext[-1].coord.file == str(path)
    assert ast.ext[-1].coord.line == 2


@pytest.mark.parametrize("header", MORE_HEADERS)
def test_more_system_headers_parse(write_c, header):
    path = write_c("more.c", f"#define _GNU_SOURCE\n#include <{header}>\nint ok;\n")
    parse(preprocess(path, []), path)


def test_all_listed_headers_together_with_fortify(write_c):
    includes = "".join(f"#include <{h}>\n" for h in HEADERS)
    path = write_c("all.c", includes + "int main(void) { return 0; }\n")
    parse(preprocess(path, ["-O2", "-D_FORTIFY_SOURCE=2"]), path)


def test_line_markers_are_kept(write_c):
    path = write_c("marked.c", "#include <stdint.h>\nint x;\n")
    text = preprocess(path, [])
    assert f'# 1 "{path}"' in text
    assert f'# 2 "{path}" 2' in text


def test_user_include_dirs_and_defines_apply(write_c, tmp_path):
    write_c("inc/config.h", "#define WIDTH 4\n")
    path = write_c("src/unit.c", '#include "config.h"\nint buf[WIDTH * SCALE];\n')
    text = preprocess(path, [f"-I{tmp_path / 'inc'}", "-DSCALE=3"])
    assert "int buf[4 * 3];" in text


def test_analysis_mode_is_visible_to_the_unit(write_c):
    path = write_c("mode.c", "#ifdef CTGEN_ANALYSIS\nint analysed;\n#endif\n")
    assert "int analysed;" in preprocess(path, [])


ANNOTATED = (
    '#include "ctgen.h"\n'
    "int g;\n"
    "int f(int x) {\n"
    "  __rtt_precondition(x > 0 && __rtt_return == 1);\n"
    "  __rtt_modifies(g);\n"
    "  __rtt_postcondition(g == __rtt_initial(g) + x);\n"
    '  __rtt_testcase(x == 1, g == 1, "REQ-1");\n'
    "  __rtt_aux(int, n);\n"
    "  __rtt_assign(n = 1);\n"
    "  __rtt_assert(x > 0); /* __rtt_assert in a comment stays */\n"
    "  g += __rtt_initial(x);\n"
    "  return 1;\n"
    "}\n"
)

NO_OP_HEADERS = {
    "corpus": (Path(__file__).resolve().parents[3] / "shared" / "corpus" / "ctgen.h"),
    # a project header that defines the annotations as no-ops whatever CTGEN_ANALYSIS says
    "unguarded": "#define __rtt_precondition(...)\n#define __rtt_postcondition(...)\n"
                 "#define __rtt_testcase(...)\n#define __rtt_modifies(...)\n"
                 "#define __rtt_assert(...)\n#define __rtt_aux(...)\n"
                 "#define __rtt_assign(...)\n#define __rtt_initial(x) (x)\n"
                 "#define __rtt_return 0\n",
}


@pytest.mark.parametrize("header", sorted(NO_OP_HEADERS))
def test_annotations_reach_the_parser_as_written_whatever_the_header(write_c, header):
    source = NO_OP_HEADERS[header]
    write_c("ctgen.h", source.read_text() if isinstance(source, Path) else source)
    path = write_c("annot.c", ANNOTATED)
    text = preprocess(path, [])
    body = text[text.index("int f(int x)"):]
    lines = body.splitlines()
    assert "__rtt" not in body.replace("/* __rtt_assert in a comment stays */", "")
    # the same length as written: columns stay those of the user's file
    assert lines[1] == "  __ctg_precondition(x > 0 && __ctg_return == 1);"
    assert lines[2] == "  __ctg_modifies(g);"
    assert lines[3] == "  __ctg_postcondition(g == __ctg_initial(g) + x);"
    assert lines[4] == '  __ctg_testcase(x == 1, g == 1, "REQ-1");'
    assert "int n = __ctg_aux_declaration;" in body
    assert "  __ctg_assign(n = 1);" in lines
    assert "g += __ctg_initial(x);" in body


def test_shipped_headers_exist_and_ctgen_h_compiles_as_no_ops(write_c, tmp_path):
    assert analysis_header().is_file()
    assert (harness_dir() / "ctgen.h").is_file()
    path = write_c("plain.c", (
        '#include "ctgen.h"\n'
        "int inc(int x) {\n"
        "  __rtt_extern(helper);\n"
        "  __rtt_precondition(x < 100);\n"
        "  __rtt_postcondition(__rtt_return == __rtt_initial(x) + 1);\n"
        '  __rtt_testcase(x == 1, __rtt_return == 2, "REQ-7");\n'
        "  __rtt_aux(int, calls);\n"
        "  __rtt_assign(calls = calls + 1);\n"
        "  __rtt_assert(x < 100);\n"
        "  __rtt_modifies(nothing);\n"
        "  return __rtt_initial(x) + 1;\n"
        "}\n"
    ))
    subprocess.run(
        ["gcc", "-std=c11", "-Wall", "-Wextra", "-Werror", "-fsyntax-only",
         f"-I{harness_dir()}", str(path)],
        check=True, capture_output=True,
    )


def test_missing_header_is_located_at_the_include(write_c):
    path = write_c("missing.c", "#include <stdint.h>\n#include \"nothere.h\"\nint x;\n")
    with pytest.raises(PreprocessError) as info:
        preprocess(path, [])
    assert str(info.value) == f"{path}:2:10: nothere.h: No such file or directory"


def test_missing_header_relative_path(write_c, tmp_path, monkeypatch):
    write_c("rel.c", "\n#include <no/such/header.h>\n")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(PreprocessError) as info:
        preprocess(Path("rel.c"), [])
    assert str(info.value) == "rel.c:2:10: no/such/header.h: No such file or directory"
    assert info.value.location is not None and info.value.location.line == 2


def test_error_directive_message(write_c):
    path = write_c("err.c", "int a;\n#if 1\n  #error unsupported target\n#endif\n")
    with pytest.raises(PreprocessError) as info:
        preprocess(path, [])
    assert str(info.value) == f"{path}:3:4: #error unsupported target"


def test_error_inside_included_header_names_the_include_site(write_c):
    write_c("bad.h", "#define OK 1\n#if OK +\n#endif\n")
    path = write_c("user.c", "int a;\n#include \"bad.h\"\n")
    with pytest.raises(PreprocessError) as info:
        preprocess(path, [])
    error = info.value
    assert error.location is not None
    assert error.location.file.endswith("bad.h") and error.location.line == 2
    assert f"(included from {path}:2)" in error.message


def test_bad_flag_is_a_preprocess_error_without_location(write_c):
    path = write_c("ok.c", "int x;\n")
    with pytest.raises(PreprocessError) as info:
        preprocess(path, ["-fno-such-option-ctgen"])
    assert info.value.location is None
    assert "unrecognized command-line option" in info.value.message


def test_compile_flags_drop_outputs_and_keep_meaning():
    flags = compile_flags(["-c", "-o", "out.o", "-Iinc", "-DX=1", "-MD", "-MF", "dep.d",
                           "-Wall", "main.c", "-ofoo"])
    assert flags == ["-std=gnu11", "-Iinc", "-DX=1", "-Wall"]
    assert compile_flags(["-std=c99", "-I."]) == ["-std=c99", "-I."]
    assert compile_flags(["-ansi"]) == ["-ansi"]


def test_command_line_shape(tmp_path):
    command = preprocess_command(tmp_path / "u.c", ["-Iinc"])
    assert command[:2] == ["gcc", "-E"]
    assert "-P" not in command
    assert "-DCTGEN_ANALYSIS" in command
    assert command[command.index("-include") + 1] == str(analysis_header())
    for define in ["-D__extension__=", "-D__restrict=", "-D__inline=inline",
                   "-D__builtin_va_list=__ctgen_va_list"]:
        assert define in command
    # attributes and gcc's floating types reach the parser, which knows what they mean
    assert not [flag for flag in command if flag.startswith(("-D__attribute", "-D_Float"))]
    assert command[-1] == str(tmp_path / "u.c")
