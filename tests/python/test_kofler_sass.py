"""N-body's compiled kernel does what its declared work assumes: per interaction one 128-bit
shared-memory load of the staged body and one MUFU.RSQ (kernels/kofler/nbody.cu), so each of
the kChunk = 64 unrolled interactions issues 14 instructions, 12 of them on the FP32 pipe.
Reads the SASS of build/.../nbody.cu.o with cuobjdump (skipped without it, as test_sass.py)."""

import re
import subprocess

from tests.python.gpu import skip_or_fail
from tests.python.test_sass import build_dir, find_tool

CHUNK = 64  # kChunk in kernels/kofler/lb/kofler/nbody.hpp
PARTIAL_LOADS = 9  # the kLanes - 1 = 3 float3 partial sums read back, at most 3 loads each


def shared_loads(sass: str) -> dict[str, dict[str, int]]:
    """Per N-body kernel (mangled name): how many LDS.128, other LDS and MUFU.RSQ."""
    counts: dict[str, dict[str, int]] = {}
    name = None
    for line in sass.splitlines():
        if "Function :" in line:
            name = line.split("Function :")[1].strip()
            if "nbody_step_kernel" not in name:
                name = None
            else:
                counts[name] = {"lds128": 0, "lds_other": 0, "rsq": 0}
        elif name and (m := re.search(r"\bLDS(\.[A-Z0-9]+)*\s", line)):
            counts[name]["lds128" if ".128" in m.group(0) else "lds_other"] += 1
        elif name and re.search(r"\bMUFU\.RSQ\b", line):
            counts[name]["rsq"] += 1
    return counts


FAKE = """
		Function : _ZN2lb6kofler17nbody_step_kernelINS_6layout10AoSMappingEEEvv
        /*0010*/                   LDS.128 R4, [R2] ;
        /*0020*/                   MUFU.RSQ R5, R6 ;
        /*0030*/                   LDS R7, [R2+0xc] ;
		Function : _ZN2lb3idw12tiled_kernelEv
        /*0010*/                   LDS.128 R4, [R2] ;
"""


def test_shared_load_parsing():
    assert shared_loads(FAKE) == {"_ZN2lb6kofler17nbody_step_kernelINS_6layout10AoSMappingEEEvv":
                                  {"lds128": 1, "lds_other": 1, "rsq": 1}}


def test_nbody_loads_each_staged_body_once_per_interaction():
    cuobjdump = find_tool("cuobjdump")
    if cuobjdump is None:
        skip_or_fail("needs cuobjdump (CUDA toolkit), not found on PATH or in /usr/local/cuda/bin")
    obj = build_dir() / "CMakeFiles" / "lb_kofler.dir" / "kernels" / "kofler" / "nbody.cu.o"
    if not obj.exists():
        skip_or_fail(f"needs a build: {obj} does not exist")
    sass = subprocess.run([cuobjdump, "--dump-sass", str(obj)], check=True, capture_output=True, text=True).stdout
    counts = shared_loads(sass)
    # aos, soa, run-time tiles (any and power-of-two), partitions (any and power-of-two),
    # 3 compile-time tiles, the compile-time split
    assert len(counts) == 10, f"expected the 10 instantiated N-body kernels, found {len(counts)}"
    for name, c in counts.items():
        assert c["rsq"] == CHUNK and c["lds128"] == CHUNK, f"{name[:120]}: {c}"
        assert c["lds_other"] <= PARTIAL_LOADS, f"{name[:120]}: the mass loaded apart? {c}"
