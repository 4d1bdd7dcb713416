"""The compiler flags that take a path (path_flags): reading them in both forms, rewriting
their paths, and the export's allow-list taking the same flags."""
from __future__ import annotations

from pathlib import Path

import pytest

from pytest_ctgen.export_schema import cflags_problem
from pytest_ctgen.path_flags import (
    PATH_FLAGS,
    absolute_flags,
    attached_form,
    flag_paths,
    map_paths,
    path_flag,
)


def mark(path: str) -> str:
    return f"<{path}>"


@pytest.mark.parametrize("word, expected", [
    ("-Iinc", ("-I", "inc")), ("-I", ("-I", None)), ("-I/abs", ("-I", "/abs")),
    ("-iquoteq", ("-iquote", "q")), ("-isystem", ("-isystem", None)),
    ("-idirafter../late", ("-idirafter", "../late")), ("-includecfg.h", ("-include", "cfg.h")),
    ("-imacros", ("-imacros", None)), ("-isysroot/sdk", ("-isysroot", "/sdk")),
    ("--sysroot", ("--sysroot", None)), ("--sysroot=root", ("--sysroot", "root")),
    ("-I-", None), ("-O2", None), ("-DINC=1", None), ("-iprefix", None), ("--sysrootx", None),
    ("inc", None), ("-std=c11", None),
])
def test_path_flag_reads_both_forms(word: str, expected: tuple[str, str | None] | None) -> None:
    assert path_flag(word) == expected


def test_no_path_option_starts_another() -> None:
    for option in PATH_FLAGS:
        others = [o for o in PATH_FLAGS if o != option]
        assert not any(attached_form(o).startswith(attached_form(option)) for o in others)


def test_joined_and_separate_paths_are_rewritten() -> None:
    flags = ["-Iinc", "-I", "inc2", "-isystem", "sys", "-iquoteq", "-include", "pre.h",
             "-imacrosm.h", "-idirafter", "late", "-isysroot", "sdk", "--sysroot=root",
             "--sysroot", "root2"]
    assert map_paths(flags, mark) == [
        "-I<inc>", "-I", "<inc2>", "-isystem", "<sys>", "-iquote<q>", "-include", "<pre.h>",
        "-imacros<m.h>", "-idirafter", "<late>", "-isysroot", "<sdk>", "--sysroot=<root>",
        "--sysroot", "<root2>"]


def test_words_that_are_no_path_are_kept() -> None:
    flags = ["-I-", "-O2", "-DINC=inc", "-UX", "-std=c11", "-Wall", "-m32", "-iprefix",
             "-fshort-enums", "-ansi"]
    assert map_paths(flags, mark) == flags


def test_the_include_split_is_not_a_path() -> None:
    """`-I-` (gcc's obsolete quote/bracket split) was rewritten as if `-` were a path."""
    assert map_paths(["-I-", "-Iinc"], mark) == ["-I-", "-I<inc>"]
    assert absolute_flags(["-Iinc", "-I-", "-Iq"], Path("/base")) == \
        ["-I/base/inc", "-I-", "-I/base/q"]


def test_header_directories_under_the_sysroot_are_kept() -> None:
    flags = ["-I=inc", "-isystem", "$SYSROOT/usr/include", "-iquote=q", "-include", "=x.h"]
    assert map_paths(flags, mark) == [
        "-I=inc", "-isystem", "$SYSROOT/usr/include", "-iquote=q", "-include", "<=x.h>"]


def test_absolute_flags_rebases_relative_paths_only(tmp_path: Path) -> None:
    flags = ["-Iinc", "-I", "../up", "-I/abs/inc", "-isystem", "/usr/local/include",
             "-include", "./cfg.h", "-DX=inc", "--sysroot=root"]
    assert absolute_flags(flags, tmp_path) == [
        f"-I{tmp_path}/inc", "-I", f"{tmp_path.parent}/up", "-I/abs/inc", "-isystem",
        "/usr/local/include", "-include", f"{tmp_path}/cfg.h", "-DX=inc",
        f"--sysroot={tmp_path}/root"]


def test_a_separate_option_at_the_end_keeps_its_form() -> None:
    assert map_paths(["-O0", "-I"], mark) == ["-O0", "-I"]


@pytest.mark.parametrize("option", PATH_FLAGS)
def test_the_export_allow_list_takes_every_path_flag(option: str) -> None:
    """What a replay accepts is what the table reads: both forms of every path option,
    with the path checked as a path."""
    assert cflags_problem([attached_form(option) + "inc/dir"]) is None
    assert cflags_problem([option, "inc/dir"]) is None
    assert cflags_problem([option, "/usr/include"]) is None
    joined = cflags_problem([attached_form(option) + "-wrapper"])
    assert joined is not None and joined[0] == 0 and "starts with '-'" in joined[1]
    separate = cflags_problem(["-O0", option, "-wrapper"])
    assert separate is not None and separate[0] == 2, separate
    missing = cflags_problem(["-O0", option])
    assert missing is not None and missing[0] == 1 and "needs an argument" in missing[1]


def test_the_export_allow_list_takes_the_include_split() -> None:
    assert cflags_problem(["-I-", "-Iinc"]) is None


def test_flag_paths_name_the_word_holding_each_path() -> None:
    flags = ["-O0", "-Iinc", "-include", "cfg.h", "-I-", "--sysroot=/sdk", "-I=sys", "-I"]
    assert list(flag_paths(flags)) == [(1, "-I", "inc"), (3, "-include", "cfg.h"),
                                       (5, "--sysroot", "/sdk"), (6, "-I", "=sys")]
