"""A preprocessed unit (`.i`) located in itself: its own code at its lines in the `.i`, the
code of system headers still theirs."""
from __future__ import annotations

import subprocess

from pytest_ctgen.frontend.loader import load_unit
from pytest_ctgen.frontend.preprocessed import is_preprocessed, located_in_itself

DOT_I = """\
# 0 "unit.c"
# 1 "/usr/include/stdio.h" 1 3 4
extern int puts(const char *s);
# 2 "unit.c" 2
int f(int *p)
{
    return p ==
# 4 "unit.c" 3 4
           ((void *)0)
# 4 "unit.c"
           ;
}
#line 40 "other.h"
int g;"""


def test_own_markers_name_the_i_at_its_lines() -> None:
    lines = located_in_itself(DOT_I, "src/unit.i").split("\n")
    assert len(lines) == len(DOT_I.split("\n"))  # every line stays where it is
    assert lines[0] == '#line 2 "src/unit.i"'
    assert lines[1] == '# 1 "/usr/include/stdio.h" 3 4'  # a system header keeps its name
    assert lines[2] == "extern int puts(const char *s);"
    assert lines[3] == '#line 5 "src/unit.i"'
    # a system macro expanded in the unit's own code is the unit's code
    assert lines[7] == '#line 9 "src/unit.i"'
    assert lines[9] == '#line 11 "src/unit.i"'
    assert lines[12] == '#line 14 "src/unit.i"'  # a header of the user's: in the .i
    assert is_preprocessed("src/unit.i") and not is_preprocessed("src/unit.c")


def test_a_preprocessed_unit_locates_its_code_in_itself(tmp_path) -> None:
    source = tmp_path / "unit.c"
    source.write_text("#include <string.h>\n\nint f(const char *s)\n{\n"
                      "    return (int)strlen(s);\n}\n")
    unit = tmp_path / "unit.i"
    subprocess.run(["gcc", "-E", str(source), "-o", str(unit)], check=True)
    source.unlink()
    loaded = load_unit(unit)
    f = loaded.functions["f"]
    assert f.location.file == str(unit)
    assert f.location.line == unit.read_text().splitlines().index("int f(const char *s)") + 1
    # strlen is the C library's (modelled), as in the .c
    assert loaded.functions["strlen"].is_library
