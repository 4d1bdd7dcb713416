"""Reading compile_commands.json (CMake and Bear styles) into per-file preprocessing flags."""
from __future__ import annotations

import json
import pickle
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from pytest_ctgen.compile_db import CompileDatabase, CompileDatabaseError, read_compile_database
from pytest_ctgen.errors import CtgenError


def write_db(tmp_path: Path, entries: Any, name: str = "compile_commands.json") -> Path:
    db = tmp_path / name
    db.write_text(json.dumps(entries, indent=2), encoding="utf-8")
    return db


def test_cmake_style_command(tmp_path: Path) -> None:
    build = tmp_path / "build"
    build.mkdir()
    src = tmp_path / "src" / "motor.c"
    db = write_db(build, [{
        "directory": str(build),
        "command": f"/usr/bin/cc -DMOTOR=1 -I{tmp_path}/inc -isystem /opt/sdk/include"
                   f" -O2 -g -Wall -Wextra -std=gnu99 -o CMakeFiles/m.dir/motor.c.o"
                   f" -c {src}",
        "file": str(src),
        "output": "CMakeFiles/m.dir/motor.c.o",
    }])
    cdb = read_compile_database(db)
    assert cdb.path == db
    assert cdb.flags_for(src) == (
        "-DMOTOR=1", f"-I{tmp_path}/inc", "-isystem", "/opt/sdk/include", "-std=gnu99")
    assert cdb.files() == (src,)


def test_bear_style_arguments(tmp_path: Path) -> None:
    db = write_db(tmp_path, [{
        "arguments": ["/usr/bin/arm-none-eabi-gcc", "-c", "-mcpu=cortex-m4", "-m32",
                      "-funsigned-char", "-fshort-enums", "-fpack-struct=4", "-ansi",
                      "-UNDEBUG", "-nostdinc", "--sysroot=/opt/sysroot", "-o", "a.o",
                      "a.c"],
        "directory": str(tmp_path),
        "file": "a.c",
        "output": "a.o",
    }])
    assert read_compile_database(db).flags_for(tmp_path / "a.c") == (
        "-m32", "-funsigned-char", "-fshort-enums", "-fpack-struct=4", "-ansi", "-UNDEBUG",
        "-nostdinc", "--sysroot=/opt/sysroot")


@pytest.mark.parametrize("launcher", ["ccache", "/usr/bin/sccache"])
def test_compiler_launcher_is_dropped(tmp_path: Path, launcher: str) -> None:
    db = write_db(tmp_path, [{"directory": str(tmp_path), "file": "a.c",
                              "arguments": [launcher, "gcc", "-DX", "-c", "a.c"]}])
    assert read_compile_database(db).flags_for(tmp_path / "a.c") == ("-DX",)


def test_relative_paths_resolved_against_directory(tmp_path: Path) -> None:
    build = tmp_path / "build"
    build.mkdir()
    (tmp_path / "cfg").mkdir()
    (tmp_path / "cfg" / "config.h").write_text("#define CFG 1\n")
    db = write_db(tmp_path, [{
        "directory": "build",  # relative directory: taken from the database's folder
        "file": "../src/x.c",
        "command": "gcc -Iinc -I ../common -iquote q -idirafter late -imacros ../cfg/config.h"
                   " -include stdint.h -c ../src/x.c",
    }])
    flags = read_compile_database(db).flags_for(tmp_path / "src" / "x.c")
    assert flags == (
        f"-I{build}/inc", f"-I{tmp_path}/common", "-iquote", f"{build}/q",
        "-idirafter", f"{build}/late", "-imacros", f"{tmp_path}/cfg/config.h",
        # not next to "directory": left for gcc to find along the include chain
        "-include", "stdint.h")


def test_separate_argument_forms(tmp_path: Path) -> None:
    (tmp_path / "cfg.h").write_text("")
    db = write_db(tmp_path, [{
        "directory": str(tmp_path), "file": "a.c",
        "arguments": ["cc", "-I", "inc", "-D", "X=1", "-U", "Y", "-include", "cfg.h",
                      "-isystem", "sys", "--sysroot", "root", "-isysroot", "/sdk", "a.c"],
    }])
    assert read_compile_database(db).flags_for(tmp_path / "a.c") == (
        f"-I{tmp_path}/inc", "-DX=1", "-UY", "-include", f"{tmp_path}/cfg.h",
        "-isystem", f"{tmp_path}/sys", f"--sysroot={tmp_path}/root", "-isysroot", "/sdk")


def test_include_split_and_sysroot_directories_kept(tmp_path: Path) -> None:
    db = write_db(tmp_path, [{
        "directory": str(tmp_path), "file": "a.c",
        "arguments": ["cc", "-I-", "-I=inc", "-isystem", "$SYSROOT/sys", "-isysroot", "sdk",
                      "-isysroot/abs", "a.c"],
    }])
    assert read_compile_database(db).flags_for(tmp_path / "a.c") == (
        "-I-", "-I=inc", "-isystem", "$SYSROOT/sys", "-isysroot", f"{tmp_path}/sdk",
        "-isysroot", "/abs")


def test_quoted_defines_in_command(tmp_path: Path) -> None:
    db = tmp_path / "compile_commands.json"
    # the JSON text as CMake writes it: backslash-escaped quotes inside the command string
    db.write_text(
        '[{"directory": "' + str(tmp_path) + '", "file": "a.c",\n'
        '  "command": "gcc -DNAME=\\\\\\"str\\\\\\" -D\'SP=a b\' -c a.c"}]')
    assert json.loads(db.read_text())[0]["command"] == (
        'gcc -DNAME=\\"str\\" -D\'SP=a b\' -c a.c')
    assert read_compile_database(db).flags_for(tmp_path / "a.c") == (
        '-DNAME="str"', "-DSP=a b")


def test_output_and_dependency_flags_dropped(tmp_path: Path) -> None:
    db = write_db(tmp_path, [{
        "directory": str(tmp_path), "file": "a.c",
        "command": "gcc -MD -MF a.d -MT a.o -MQ '$(objs)' -o -DNOT_A_DEFINE -c a.c -Wall"
                   " -Werror=format -W -O3 -Os -g3 -x c -L lib -lm -pipe -fPIC -DKEPT",
    }])
    assert read_compile_database(db).flags_for(tmp_path / "a.c") == ("-DKEPT",)


def test_first_entry_wins(tmp_path: Path) -> None:
    db = write_db(tmp_path, [
        {"directory": str(tmp_path), "file": "a.c", "command": "gcc -DFIRST -c a.c"},
        {"directory": str(tmp_path), "file": "b.c", "command": "gcc -DB -c b.c"},
        {"directory": str(tmp_path), "file": str(tmp_path / "a.c"),
         "command": "gcc -DSECOND -c a.c"},
    ])
    cdb = read_compile_database(db)
    assert cdb.flags_for(tmp_path / "a.c") == ("-DFIRST",)
    assert cdb.files() == (tmp_path / "a.c", tmp_path / "b.c")


def test_matching_uses_resolved_paths(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "src")
    db = write_db(tmp_path, [{"directory": str(tmp_path / "link"), "file": "./a.c",
                              "command": "gcc -DX -c a.c"}])
    cdb = read_compile_database(db)
    monkeypatch.chdir(tmp_path)
    assert cdb.flags_for(Path("src/../src/a.c")) == ("-DX",)
    assert cdb.flags_for("link/a.c") == ("-DX",)


def test_unknown_file_is_none(tmp_path: Path) -> None:
    db = write_db(tmp_path, [{"directory": str(tmp_path), "file": "a.c",
                              "command": "gcc -c a.c"}])
    cdb = read_compile_database(db)
    assert cdb.flags_for(tmp_path / "a.c") == ()
    assert cdb.flags_for(tmp_path / "other.c") is None


def test_directory_argument(tmp_path: Path) -> None:
    db = write_db(tmp_path, [{"directory": str(tmp_path), "file": "a.c",
                              "arguments": ["gcc", "-DX", "a.c"]}])
    cdb = read_compile_database(tmp_path)
    assert cdb.path == db
    assert cdb.flags_for(tmp_path / "a.c") == ("-DX",)


def test_database_is_value_like(tmp_path: Path) -> None:
    write_db(tmp_path, [{"directory": str(tmp_path), "file": "a.c",
                         "arguments": ["gcc", "-DX", "a.c"]}])
    cdb = read_compile_database(tmp_path)
    clone = pickle.loads(pickle.dumps(cdb))  # crosses to pytest-xdist workers
    assert clone == cdb and hash(clone) == hash(cdb)
    assert clone.flags_for(tmp_path / "a.c") == ("-DX",)
    assert isinstance(cdb, CompileDatabase)


# ---- errors: always a CtgenError whose message starts with the database path ------------

def test_error_missing_file(tmp_path: Path) -> None:
    missing = tmp_path / "nope.json"
    with pytest.raises(CompileDatabaseError) as info:
        read_compile_database(missing)
    assert str(info.value).startswith(f"{missing}: ")
    assert "not found" in str(info.value)
    assert isinstance(info.value, CtgenError)


def test_error_directory_without_database(tmp_path: Path) -> None:
    with pytest.raises(CompileDatabaseError, match=r"no compile_commands\.json") as info:
        read_compile_database(tmp_path)
    assert str(info.value).startswith(f"{tmp_path}: ")


def test_error_invalid_json_has_line_and_column(tmp_path: Path) -> None:
    db = tmp_path / "compile_commands.json"
    db.write_text('[\n  {"directory": "/x",\n   "file": "a.c" "command": "gcc"}\n]\n')
    with pytest.raises(CompileDatabaseError) as info:
        read_compile_database(db)
    assert str(info.value).startswith(f"{db}:3:18: invalid JSON: ")


def test_error_deeply_nested_json_is_no_traceback(tmp_path: Path) -> None:
    db = tmp_path / "compile_commands.json"
    db.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(CompileDatabaseError) as info:
        read_compile_database(db)
    assert str(info.value) == f"{db}: invalid JSON: nested too deeply"


def test_error_not_a_list(tmp_path: Path) -> None:
    db = write_db(tmp_path, {"directory": "/x"})
    with pytest.raises(CompileDatabaseError) as info:
        read_compile_database(db)
    assert str(info.value) == f"{db}: expected a JSON list of entries, found an object"


@pytest.mark.parametrize("entry, problem", [
    ({"directory": "/x", "command": "gcc -c a.c"}, 'missing "file"'),
    ({"file": "a.c", "command": "gcc -c a.c"}, 'missing "directory"'),
    ({"directory": "/x", "file": "a.c"}, 'missing "arguments" or "command"'),
    ({"directory": "/x", "file": "a.c", "arguments": "gcc -c a.c"},
     '"arguments" must be a list of strings'),
    ({"directory": "/x", "file": "a.c", "arguments": []}, "empty command"),
    ({"directory": "/x", "file": "a.c", "command": "gcc -DX=\"a -c a.c"},
     'cannot split "command": No closing quotation'),
    ({"directory": "/x", "file": "a.c", "arguments": ["gcc", "a.c", "-I"]},
     "-I needs an argument"),
    ("gcc -c a.c", "expected an object, found a string"),
])
def test_error_bad_entry_names_path_and_index(tmp_path: Path, entry: Any, problem: str) -> None:
    good = {"directory": str(tmp_path), "file": "ok.c", "command": "gcc -c ok.c"}
    db = write_db(tmp_path, [good, entry])
    with pytest.raises(CompileDatabaseError) as info:
        read_compile_database(db)
    message = str(info.value)
    assert message.startswith(f"{db}: entry 1")
    assert message.endswith(problem)
    assert "Traceback" not in message


# ---- the flags work with a real compiler ------------------------------------------------

@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not installed")
def test_flags_drive_real_gcc_preprocessor(tmp_path: Path) -> None:
    (tmp_path / "include").mkdir()
    (tmp_path / "include" / "board.h").write_text(
        "#define BOARD_LIMIT (LIMIT_BASE * 2)\n#define BOARD_NAME NAME\n")
    (tmp_path / "src").mkdir()
    src = tmp_path / "src" / "unit.c"
    src.write_text('#include "board.h"\n'
                   "int limit = BOARD_LIMIT;\n"
                   "const char *name = BOARD_NAME;\n"
                   "#ifdef DROPPED\nint dropped;\n#endif\n")
    build = tmp_path / "build"
    build.mkdir()
    db = write_db(build, [{
        "directory": str(build),
        "command": "gcc -I ../include -DLIMIT_BASE=21 -DNAME=\\\"motor\\\" -DDROPPED"
                   " -UDROPPED -std=c99 -Wall -o unit.o -MD -MF unit.d -c ../src/unit.c",
        "file": "../src/unit.c",
    }])
    flags = read_compile_database(db).flags_for(src)
    assert flags is not None
    # run somewhere else: the include dir must be absolute to be found
    result = subprocess.run(["gcc", "-E", "-P", *flags, str(src)], cwd=tmp_path,
                            capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    assert "int limit = (21 * 2);" in result.stdout
    assert 'const char *name = "motor";' in result.stdout
    assert "dropped" not in result.stdout
    assert not (build / "unit.d").exists() and not (tmp_path / "unit.d").exists()
