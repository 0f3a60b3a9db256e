"""The layouts keep the paper's memory patterns in the compiled kernels: global loads are as
wide as each layout promises (AoaS float = one 128-bit load per record, ...), checked kernel by
kernel. Reads the SASS of the IDW object files of the build folder (`BUILD`, as `make` takes it;
default build/) with cuobjdump. Skipped where cuobjdump or the build is absent, unless
LB_REQUIRE_GPU=1 says this machine is meant to run every GPU-side check: then that is a failure."""

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.python.gpu import skip_or_fail
from tests.python.nvidia_tools import wheel_bins_on_path

ROOT = Path(__file__).resolve().parents[2]
LAYOUTS = ["soa", "aos", "aoas", "builtin", "soaos", "hybrid", "aosoa32", "xy-aosoa32"]

# The widest global load (bits) each layout's kernels use: a whole aligned record (or an
# aligned cluster) is read with 128-bit loads, unaligned layouts never load more than one
# field at a time. Every IDW kernel of a layout's object file reads whole data records, so
# each one's widest load must be exactly this (the compiler may narrow a wide load to the
# fields a kernel uses, e.g. only x, y of a prediction point: narrower loads may sit next to
# the widest).
WIDEST = {
    ("soa", "float"): 32, ("soa", "double"): 64,
    ("aos", "float"): 32, ("aos", "double"): 64,
    ("aoas", "float"): 128, ("aoas", "double"): 128,
    ("builtin", "float"): 128, ("builtin", "double"): 128,
    ("soaos", "double"): 128,
    ("hybrid", "double"): 128,
    # beyond the paper (Kofler's method's choices): AoSoA runs, one field at a time
    ("aosoa32", "float"): 32, ("aosoa32", "double"): 64,
    ("xy-aosoa32", "float"): 32, ("xy-aosoa32", "double"): 64,
}


def build_dir() -> Path:
    """The build folder `make test BUILD=...` used (make exports command-line variables)."""
    build = Path(os.environ.get("BUILD", "build"))
    return build if build.is_absolute() else ROOT / build


def find_tool(name: str) -> str | None:
    """On PATH, in /usr/local/cuda/bin, or from NVIDIA's wheel (nvidia-cuda-cuobjdump, which
    .ci/deps.sh installs into its venv: the CPU machines' CUDA has nvcc but no cuobjdump)."""
    wheel_bins_on_path()  # cuobjdump calls nvdisasm, which it finds on PATH
    cuda = Path("/usr/local/cuda/bin") / name
    return shutil.which(name) or (str(cuda) if cuda.exists() else None)


def ldg_width(opcode: str) -> int:
    """Bits one LDG moves: LDG.E.128 -> 128, LDG.E.64.CONSTANT -> 64, LDG.E -> 32."""
    parts = set(opcode.split("."))
    for bits in (128, 64):
        if str(bits) in parts:
            return bits
    return 16 if parts & {"U16", "S16"} else 8 if parts & {"U8", "S8"} else 32


def demangle(names: list[str]) -> list[str]:
    """Demangled names (cu++filt, else c++filt: device names use the Itanium scheme)."""
    tool = find_tool("cu++filt") or find_tool("c++filt")
    if tool is None or not names:
        return names
    out = subprocess.run([tool], input="\n".join(names) + "\n", check=True, capture_output=True, text=True)
    demangled = out.stdout.splitlines()
    return demangled if len(demangled) == len(names) else names


KINDS = {"for_each_index_kernel": "naive", "tiled_kernel": "tiled", "roofline_kernel": "roofline",
         "roofline_combine_kernel": "roofline-combine"}


def kernel_kind(demangled: str) -> str | None:
    """Which IDW kernel a demangled function is, or None for helpers (no template to read)."""
    m = re.match(r"void (?:[\w:]*::)?(\w+)<", demangled)
    return KINDS.get(m.group(1)) if m else None


def precision_of(demangled: str) -> str:
    """The point record's field type: every IDW kernel is a template over its views, whose
    record is Record<Field<X, T>, ...>."""
    found = set(re.findall(r"Field<lb::idw::[XYZ], (float|double)>", demangled))
    assert len(found) == 1, f"cannot tell the precision of {demangled[:200]}"
    return found.pop()


def parse_sass(sass: str) -> dict[str, set[int]]:
    """Mangled function name -> the widths of its global loads."""
    widths: dict[str, set[int]] = {}
    name = None
    for line in sass.splitlines():
        if "Function :" in line:
            name = line.split("Function :")[1].strip()
            widths.setdefault(name, set())
        elif name and (m := re.search(r"\bLDG(\.\S*)?\s", line)):
            widths[name].add(ldg_width(m.group(0).strip()))
    return widths


def kernel_loads(sass: str) -> list[tuple[str, str, str, set[int]]]:
    """(kind, precision, demangled name, load widths) of every IDW kernel in a SASS dump."""
    widths = parse_sass(sass)
    kernels = []
    for mangled, demangled in zip(widths, demangle(list(widths))):
        kind = kernel_kind(demangled)
        if kind is None:
            assert "Field<lb::idw::" not in demangled, f"unrecognised IDW kernel {demangled[:200]}"
            continue
        kernels.append((kind, precision_of(demangled), demangled, widths[mangled]))
    return kernels


def test_ldg_width_parsing():
    assert ldg_width("LDG.E.128") == 128
    assert ldg_width("LDG.E.64.CONSTANT") == 64
    assert ldg_width("LDG.E") == 32
    assert ldg_width("LDG.E.U8") == 8


# A SASS dump in cuobjdump's shape: a float tiled kernel that regressed to 32-bit loads next to
# a float roofline kernel with 128-bit loads (the old one-bucket check passed this), and a
# double naive kernel whose mangled name has no "1XEfE".
FAKE_SASS = """
	code for sm_90
		Function : _ZN2lb3idw12tiled_kernelIfNS_6layout4ViewINS2_10AoSMappingINS2_6RecordIJNS2_5FieldINS0_1XEfEENS6_INS0_1YEfEENS6_INS0_1ZEfEEEEELm16EEEEESF_NS0_8PowerTwoEEEvT0_T1_T2_
        /*0010*/                   LDG.E R4, desc[UR4][R2.64] ;
        /*0020*/                   LDG.E R5, desc[UR4][R2.64+0x4] ;
		Function : _ZN2lb3idw15roofline_kernelILi4ELi1EfNS_6layout4ViewINS2_10AoSMappingINS2_6RecordIJNS2_5FieldINS0_1XEfEENS6_INS0_1YEfEENS6_INS0_1ZEfEEEEELm16EEEEESF_NS0_8PowerTwoEEEvT2_T3_T4_NS0_16RooflinePartialsIT1_EE
        /*0010*/                   LDG.E.128 R4, desc[UR4][R2.64] ;
		Function : _ZN2lb4exec21for_each_index_kernelINS_3idw9NaiveBodyINS_6layout4ViewINS4_10AoSMappingINS4_6RecordIJNS4_5FieldINS2_1XEdEENS8_INS2_1YEdEENS8_INS2_1ZEdEEEEELm16EEEEESH_NS2_8PowerTwoEEEEEvT_m
        /*0010*/                   LDG.E.128 R4, desc[UR4][R2.64] ;
		Function : __internal_accurate_pow
        /*0010*/                   LDG.E.64 R4, desc[UR4][R2.64] ;
"""


@pytest.mark.skipif(shutil.which("c++filt") is None and find_tool("cu++filt") is None, reason="needs c++filt")
def test_each_kernel_is_checked_on_its_own():
    kernels = {(kind, precision): widths for kind, precision, _, widths in kernel_loads(FAKE_SASS)}
    assert kernels == {("tiled", "float"): {32}, ("roofline", "float"): {128}, ("naive", "double"): {128}}
    assert kernel_problems("aoas", kernel_loads(FAKE_SASS)) == [("tiled", "float", 32, 128)]


def kernel_problems(layout: str, kernels) -> list[tuple[str, str, int, int]]:
    """(kind, precision, widest found, widest promised) of each kernel that breaks the promise."""
    problems = []
    for kind, precision, _, widths in kernels:
        widest = max(widths, default=0)
        if widest != WIDEST[(layout, precision)]:
            problems.append((kind, precision, widest, WIDEST[(layout, precision)]))
    return problems


def test_build_folder_follows_make():
    os.environ["BUILD"] = "/tmp/elsewhere"
    try:
        assert build_dir() == Path("/tmp/elsewhere")
    finally:
        del os.environ["BUILD"]
    assert build_dir() == ROOT / "build"


@pytest.mark.parametrize("layout", LAYOUTS)
def test_global_loads_are_as_wide_as_the_layout_promises(layout):
    cuobjdump = find_tool("cuobjdump")
    if cuobjdump is None:
        skip_or_fail("needs cuobjdump (CUDA toolkit), not found on PATH or in /usr/local/cuda/bin")
    obj = build_dir() / "CMakeFiles" / "lb_idw.dir" / "kernels" / "idw" / f"device_{layout.replace('-', '_')}.cu.o"
    if not obj.exists():
        skip_or_fail(f"needs a build: {obj} does not exist")
    sass = subprocess.run([cuobjdump, "--dump-sass", str(obj)], check=True, capture_output=True, text=True).stdout
    kernels = kernel_loads(sass)
    kinds = {(kind, precision) for kind, precision, _, _ in kernels}
    expected = {(kind, precision) for kind in KINDS.values() for (l, precision) in WIDEST if l == layout}
    assert kinds == expected, f"{layout}: kernels found {sorted(kinds)}, expected {sorted(expected)}"
    assert kernel_problems(layout, kernels) == [], f"{layout}: (kernel, precision, widest load, promised)"
