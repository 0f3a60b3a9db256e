"""N-body's compiled kernel does what its declared work assumes: per interaction one 128-bit
shared-memory load of the staged body and one MUFU.RSQ (kernels/kofler/nbody.cu), so each of
the kChunk = 64 unrolled interactions issues 14 instructions, 12 of them on the FP32 pipe; the
kernels the layout claims compare run one and the same interaction schedule, so that their
times differ by the layout only (issue 21); and the roofline version's tile loop has the
instruction mix its comment counts (kernels/kofler/nbody_roofline.cu). Reads the SASS of
build/.../nbody.cu.o and nbody_roofline.cu.o with cuobjdump (skipped without it, as
test_sass.py)."""

import re
import subprocess
from collections import Counter
from pathlib import Path

from tests.python.gpu import skip_or_fail
from tests.python.test_sass import build_dir, demangle, find_tool

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


def nbody_sass(*arch: str, source: str = "nbody.cu") -> str:
    """The SASS of the build's object of kernels/kofler/`source` (all its architectures, or
    `arch`: e.g. "sm_90")."""
    cuobjdump = find_tool("cuobjdump")
    if cuobjdump is None:
        skip_or_fail("needs cuobjdump (CUDA toolkit), not found on PATH or in /usr/local/cuda/bin")
    obj = build_dir() / "CMakeFiles" / "lb_kofler.dir" / "kernels" / "kofler" / f"{source}.o"
    if not obj.exists():
        skip_or_fail(f"needs a build: {obj} does not exist")
    args = [cuobjdump, "--dump-sass"]
    for a in arch:
        args += ["--gpu-architecture", a]
    return subprocess.run(args + [str(obj)], check=True, capture_output=True, text=True).stdout


def test_nbody_loads_each_staged_body_once_per_interaction():
    sass = nbody_sass()
    counts = shared_loads(sass)
    # aos, soa, run-time tiles (any and power-of-two), partitions (any and power-of-two),
    # 3 compile-time tiles, the compile-time split
    assert len(counts) == 10, f"expected the 10 instantiated N-body kernels, found {len(counts)}"
    for name, c in counts.items():
        assert c["rsq"] == CHUNK and c["lds128"] == CHUNK, f"{name[:120]}: {c}"
        assert c["lds_other"] <= PARTIAL_LOADS, f"{name[:120]}: the mass loaded apart? {c}"


# The interactions' instructions: the staged bodies' shared-memory loads, the FP32 arithmetic
# and the rsqrt. Register moves and integer bookkeeping (of the loop, of the next staging) that
# ptxas places among them are left out of the comparison.
INTERACTION_OPS = {"LDS", "FADD", "FMUL", "FFMA", "MUFU"}


def interaction_blocks(sass: str) -> dict[str, tuple[str, ...]]:
    """Per N-body kernel (mangled name): the opcodes (with modifiers; guards and operands
    dropped) of the interactions' instructions in its interaction block, from the first
    shared-memory load of a staged body up to the barrier that ends the tile: the 64 unrolled
    interactions and the chunk's sum, in the order ptxas scheduled them."""
    blocks: dict[str, list[str]] = {}
    name, state = None, None
    for line in sass.splitlines():
        if "Function :" in line:
            name = line.split("Function :")[1].strip()
            name = name if "nbody_step_kernel" in name else None
            state = "before"
            continue
        m = re.match(r"\s*/\*[0-9a-f]+\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)", line)
        if name is None or m is None:
            continue
        opcode = m.group(1)
        if state == "before" and opcode.startswith("LDS.128"):
            state = "in"
            blocks[name] = []
        if state == "in":
            if opcode.startswith("BAR"):
                state = "after"
            elif opcode.split(".")[0] in INTERACTION_OPS:
                blocks[name].append(opcode)
    return {k: tuple(v) for k, v in blocks.items()}


def paired_rsqrt(block: tuple[str, ...]) -> int:
    """How many MUFU.RSQ follow another within two instructions (the schedule that issued the
    interactions two by two had 27 such pairs in 64, the one by one schedule 2 to 3)."""
    at = [k for k, op in enumerate(block) if op == "MUFU.RSQ"]
    return sum(1 for a, b in zip(at, at[1:]) if b - a <= 2)


FAKE_BLOCKS = """
		Function : _ZN2lb6kofler17nbody_step_kernelINS_6layout10SoAMappingEEEvv
        /*0010*/                   LDG.E.128 R4, desc[UR4][R2.64] ;
        /*0020*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;
        /*0030*/                   LDS.128 R4, [R0] ;
        /*0040*/                   MUFU.RSQ R5, R6 ;
        /*0050*/                   MUFU.RSQ R7, R8 ;
        /*0058*/                   MOV R10, R9 ;
        /*0060*/               @!P0 FFMA R9, R5, R5, R9 ;
        /*0070*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;
        /*0080*/                   FADD R9, R9, R9 ;
		Function : _ZN2lb6kofler17nbody_step_kernelINS_6layout10AoSMappingEEEvv
        /*0010*/                   LDS.128 R8, [R1] ;
        /*0020*/                   MUFU.RSQ R5, R6 ;
        /*0030*/                   FFMA R9, R5, R5, R9 ;
        /*0040*/                   MUFU.RSQ R7, R8 ;
        /*0050*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;
		Function : _ZN2lb3idw12tiled_kernelEv
        /*0010*/                   LDS.128 R4, [R2] ;
"""


def test_interaction_block_parsing():
    blocks = interaction_blocks(FAKE_BLOCKS)
    soa = blocks["_ZN2lb6kofler17nbody_step_kernelINS_6layout10SoAMappingEEEvv"]
    aos = blocks["_ZN2lb6kofler17nbody_step_kernelINS_6layout10AoSMappingEEEvv"]
    assert len(blocks) == 2
    assert soa == ("LDS.128", "MUFU.RSQ", "MUFU.RSQ", "FFMA")  # guard, registers and the MOV dropped
    assert aos == ("LDS.128", "MUFU.RSQ", "FFMA", "MUFU.RSQ")  # same mix, another order: differs
    assert (paired_rsqrt(soa), paired_rsqrt(aos)) == (1, 1) and paired_rsqrt(("MUFU.RSQ", "A", "B", "MUFU.RSQ")) == 0


# The run-time tiles and partitions of any size (detail::RuntimeTiles: a 64-bit division, a
# called subroutine, in the staging) are left out: ptxas schedules them apart, and no preset
# or claim uses them (every sweep and split of N-body has power-of-two tiles, which dispatch
# to the Pow2Tiles mappings compared here).
COMPARED = 8  # aos, soa, power-of-two run-time tiles and partition, tiled-ct 4/32/256, split-ct


def mapping_of(demangled: str) -> str:
    """A kernel's mapping, short: "AoSoAMapping<4ul>" for nbody_step_kernel<AoSoAMapping<Body, 4ul>>."""
    m = re.search(r"nbody_step_kernel<(.*?)>\(", demangled)
    text = m.group(1) if m else demangled
    text = re.sub(r"lb::|layout::|kofler::|detail::", "", text)
    text = re.sub(r"Record<Field<Pos, float4>, Field<Vel, float4> >(, )?", "", text)
    return text.replace("< >", "").replace("<>", "")[:80]


def test_layouts_share_one_interaction_schedule():
    """The H100 runs sm_90: there, the interaction block of every kernel a layout claim compares
    (kernels/kofler/nbody.cu: only the staging load differs) must be the same instructions in
    the same order. Before the fix SoA, AoS and the compile-time tiles and split issued their
    rsqrts two by two, the run-time tiles one by one, and took 3 % longer than the run-time
    tiles on the H100."""
    all_blocks = interaction_blocks(nbody_sass("sm_90"))
    if not all_blocks:
        skip_or_fail("the build has no sm_90 code (CMAKE_CUDA_ARCHITECTURES) to compare")
    blocks = {k: v for k, v in all_blocks.items() if "RuntimeTiles" not in k}
    assert len(blocks) == COMPARED, f"expected the {COMPARED} compared N-body kernels, found {len(blocks)}"
    schedules: dict[tuple[str, ...], list[str]] = {}
    for name, block in blocks.items():
        schedules.setdefault(block, []).append(name)
    if len(schedules) > 1:
        names = demangle([n for kernels in schedules.values() for n in kernels])
        short = dict(zip([n for kernels in schedules.values() for n in kernels], map(mapping_of, names)))
        lines = [f"{len(block)} instructions, {block.count('MUFU.RSQ')} rsqrt, {paired_rsqrt(block)} paired: "
                 + "; ".join(short[k] for k in kernels) for block, kernels in schedules.items()]
        raise AssertionError("N-body kernels schedule their interactions differently:\n" + "\n".join(lines))


# The roofline version (kernels/kofler/nbody_roofline.cu): each thread sums BODIES_PER_THREAD
# bodies, so per staged body one LDS.128 feeds that many interactions of 12 FP32 instructions
# and one MUFU.RSQ each; per tile 3 FADD a body join the chunk sums to the running sums.
DEVICE_HEADER = Path(__file__).resolve().parents[2] / "kernels/kofler/lb/kofler/nbody_device.hpp"
BODIES_PER_THREAD = int(re.search(r"kRooflineBodiesPerThread = (\d+);", DEVICE_HEADER.read_text()).group(1))
# Staged bodies per iteration of the chunk's loop (its unroll): the tile loop holds this many.
CHUNK_UNROLL = int(re.search(r"kRooflineChunkUnroll = (\d+);", DEVICE_HEADER.read_text()).group(1))
# At most this many instructions in the tile loop: fully unrolled (6,797) the warps waited on
# instruction fetch 68 % of the time (ncu, H200); a loop this size stays in the caches.
MAX_TILE_LOOP = 1024
FP32_OPS = {"FADD", "FMUL", "FFMA"}
# What else a tile's loops may run: staging (address arithmetic, copies, their guards), the
# wait, the barrier and the loops' counters (the chunk loop's once per iteration): below 3 %
# of the slots.
LOOP_OVERHEAD = 192


def kernel_loops(sass: str, kernel: str) -> list[list[str]]:
    """The opcodes (guards dropped) of each loop of `kernel`, longest first: for every backward
    branch the instructions from its target up to the branch."""
    code: list[tuple[int, str, str]] = []  # (address, opcode, operands) of the kernel
    name = None
    for line in sass.splitlines():
        if "Function :" in line:
            name = line.split("Function :")[1].strip()
            continue
        m = re.match(r"\s*/\*([0-9a-f]+)\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)\s*([^;]*)", line)
        if m and name and kernel in name:
            code.append((int(m.group(1), 16), m.group(2), m.group(3)))
    targets = [(at, re.match(r"0x([0-9a-f]+)", operands)) for at, op, operands in code if op == "BRA"]
    loops = sorted(((int(m.group(1), 16), at) for at, m in targets if m and int(m.group(1), 16) < at),
                   key=lambda r: r[0] - r[1])
    return [[op for at, op, _ in code if start <= at <= end] for start, end in loops]


def loop_ops(sass: str, kernel: str) -> list[str]:
    """The opcodes of `kernel`'s longest loop (empty without one)."""
    loops = kernel_loops(sass, kernel)
    return loops[0] if loops else []


FAKE_LOOP = """
		Function : _ZN2lb6kofler21nbody_roofline_kernelEv
        /*0000*/                   MOV R1, c[0x0][0x28] ;
        /*0010*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;
        /*0020*/                   LDS.128 R4, [R2] ;
        /*0030*/              @!P0 FFMA R5, R4, R4, R5 ;
        /*0040*/               @P1 BRA 0x10 ;
        /*0050*/                   BRA 0x50;
		Function : _ZN2lb3idw12tiled_kernelEv
        /*0010*/                   BRA 0x0 ;
"""


def test_loop_parsing():
    assert loop_ops(FAKE_LOOP, "nbody_roofline_kernel") == ["BAR.SYNC.DEFER_BLOCKING", "LDS.128", "FFMA", "BRA"]
    assert loop_ops(FAKE_LOOP, "no_such_kernel") == []


def test_roofline_tile_loop_has_the_counted_mix():
    """sm_90, the H100's and H200's code: the tile loop (the longest) holds the chunk's loop
    (the shortest holding an LDS.128), unrolled CHUNK_UNROLL times and run CHUNK / CHUNK_UNROLL
    times a tile. Counted as they run, a tile and thread are CHUNK LDS.128, CHUNK x
    BODIES_PER_THREAD rsqrts and 12 FP32 instructions per interaction plus the chunk joins, and
    little else, so that about 12 / (13 + 1 / BODIES_PER_THREAD) of the issue slots do the FP32
    work the bound counts (nbody_roofline.cu's estimate); and the tile loop is small enough not
    to wait on instruction fetch."""
    loops = kernel_loops(nbody_sass("sm_90", source="nbody_roofline.cu"), "nbody_roofline_kernel")
    if not loops:
        skip_or_fail("the build has no sm_90 code (CMAKE_CUDA_ARCHITECTURES) of the roofline kernel")
    tile = loops[0]
    chunk = next(ops for ops in reversed(loops) if any(op.startswith("LDS.128") for op in ops))
    assert CHUNK % CHUNK_UNROLL == 0
    assert len(tile) <= MAX_TILE_LOOP, f"{len(tile)} instructions in the tile loop"
    assert sum(op.startswith("LDS.128") for op in chunk) == CHUNK_UNROLL, "the chunk's loop's unroll"
    # the chunk's loop CHUNK / CHUNK_UNROLL times, the rest of the tile loop once
    runs = CHUNK // CHUNK_UNROLL if chunk is not tile else 1
    ran = Counter(tile) - Counter(chunk) + Counter({op: n * runs for op, n in Counter(chunk).items()}) \
        if chunk is not tile else Counter(tile)
    interactions = CHUNK * BODIES_PER_THREAD
    lds128 = sum(n for op, n in ran.items() if op.startswith("LDS.128"))
    rsq = ran["MUFU.RSQ"]
    fp32 = sum(n for op, n in ran.items() if op.split(".")[0] in FP32_OPS)
    assert (lds128, rsq) == (CHUNK, interactions), f"LDS.128 {lds128}, MUFU.RSQ {rsq}"
    assert fp32 == 12 * interactions + 3 * BODIES_PER_THREAD, f"{fp32} FP32 instructions"
    other = sum(ran.values()) - fp32 - rsq - lds128
    assert other <= LOOP_OVERHEAD, f"{other} other instructions run in the tile loop"
