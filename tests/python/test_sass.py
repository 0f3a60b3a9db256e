"""The layouts keep the paper's memory patterns in the compiled kernels: global loads are as
wide as each layout promises (AoaS float = one 128-bit load per record, ...). Reads the SASS
of the IDW object files with cuobjdump; skipped where cuobjdump or the build is absent."""

import re
import shutil
import subprocess
from pathlib import Path

import pytest

OBJECTS = Path(__file__).resolve().parents[2] / "build" / "CMakeFiles" / "lb_idw.dir" / "kernels" / "idw"
CUOBJDUMP = shutil.which("cuobjdump") or ("/usr/local/cuda/bin/cuobjdump"
                                          if Path("/usr/local/cuda/bin/cuobjdump").exists() else None)

# The widest global load (bits) each layout's kernels use: a whole aligned record (or an
# aligned cluster) is read with 128-bit loads, unaligned layouts never load more than one
# field at a time. (The compiler may narrow a wide load to the fields a kernel uses, e.g.
# only x, y of a prediction point: narrower loads are allowed next to the widest.)
WIDEST = {
    ("soa", "float"): 32, ("soa", "double"): 64,
    ("aos", "float"): 32, ("aos", "double"): 64,
    ("aoas", "float"): 128, ("aoas", "double"): 128,
    ("builtin", "float"): 128, ("builtin", "double"): 128,
    ("soaos", "double"): 128,
    ("hybrid", "double"): 128,
}


def ldg_width(opcode: str) -> int:
    """Bits one LDG moves: LDG.E.128 -> 128, LDG.E.64.CONSTANT -> 64, LDG.E -> 32."""
    parts = set(opcode.split("."))
    for bits in (128, 64):
        if str(bits) in parts:
            return bits
    return 16 if parts & {"U16", "S16"} else 8 if parts & {"U8", "S8"} else 32


def test_ldg_width_parsing():
    assert ldg_width("LDG.E.128") == 128
    assert ldg_width("LDG.E.64.CONSTANT") == 64
    assert ldg_width("LDG.E") == 32
    assert ldg_width("LDG.E.U8") == 8


def load_widths(layout: str) -> dict[tuple[str, str], set[int]]:
    """(kernel kind, precision) -> set of LDG widths in the layout's object file."""
    obj = OBJECTS / f"device_{layout}.cu.o"
    if CUOBJDUMP is None or not obj.exists():
        pytest.skip(f"needs cuobjdump and a build ({obj})")
    sass = subprocess.run([CUOBJDUMP, "--dump-sass", str(obj)], check=True, capture_output=True, text=True).stdout
    widths: dict[tuple[str, str], set[int]] = {}
    key = None
    for line in sass.splitlines():
        if "Function :" in line:
            name = line.split("Function :")[1].strip()
            kind = "naive" if "for_each_index_kernel" in name else "tiled"
            precision = "float" if re.search(r"1XEfE", name) else "double"
            key = (kind, precision)
            widths.setdefault(key, set())
        elif key and (m := re.search(r"\bLDG(\.\S*)?\s", line)):
            widths[key].add(ldg_width(m.group(0).strip()))
    return widths


@pytest.mark.parametrize("layout", ["soa", "aos", "aoas", "builtin", "soaos", "hybrid"])
def test_global_loads_are_as_wide_as_the_layout_promises(layout):
    widths = load_widths(layout)
    assert widths, f"no kernels found for {layout}"
    for (kind, precision), found in widths.items():
        assert max(found) == WIDEST[(layout, precision)], (layout, kind, precision, found)
