"""Li & Dong (CUDA ordinary kriging) figures: Fig. 2, Fig. 3, Fig. 4, accuracy, and beyond the
paper experiment 7 (cuBLAS GEMM pair) and the well-count sweep.

The sweep is the mesh scale s (grid count M·N·H = 49,500 s²). Every curve is the paper's
base case of 10 wells, except the well-count sweep (10, 100, 1000 wells at two scales), where
a case an experiment cannot run (an errored benchmark) is drawn as "does not run" with its
reason. Each experiment has a CPU program and a CUDA program; the spec runs CPU programs 1, 2
and 4 in double and 4 in float only, so experiments 3, 5 and 6 are compared with programs 2,
4 and 4 in float (CPU_PROGRAMS). Fig. 4 draws the CUDA model output
(`kriging-model.gpu<k>.csv`) with its input wells (`kriging-wells.gpu<k>.csv`).

One concern a module: data (the experiments, their programs and the benchmarks of each),
curves (the sweep-axis line drawing), timing (Fig. 2, Fig. 3), beyond (experiments 7 and 8,
the well-count sweep), accuracy, model_files (reading Fig. 4's CSVs), model_figure (Fig. 4),
cells (table cells).
"""

from plots.kriging.accuracy import accuracy_section
from plots.kriging.beyond import exp7_section, wells_section
from plots.kriging.data import SWEEP
from plots.kriging.model_figure import fig4_section
from plots.kriging.model_files import check_inputs
from plots.kriging.timing import fig2_section, fig3_section

__all__ = ["INTRO", "CLAIMS_INTRO", "SWEEP", "render", "check_inputs"]

INTRO = (
    "M. Li, L. Dong, *Research on CUDA-based Kriging Interpolation Algorithm* (USTC): ordinary "
    "kriging of 11 stratum surfaces from 10 wells, exponential variogram, on a 50 × 90 mesh "
    "scaled by s = 1…10 (49,500 … 4.95 M estimates). The paper measured a GeForce GTX 460 "
    "(Fermi) with CUDA 3.2 against one core of an Intel E5500, so absolute speedups are not "
    "expected to carry over; the ratios between experiments and the shape of the speedup "
    "curve are the claims that can. Times are computing times as the paper uses them: "
    "host↔device transfers included."
)
CLAIMS_INTRO = (
    "Each verbal claim is read through its word class (the band and reason in the note). Ratios "
    "of GPU computing times are geometric means over every scale both experiments ran at with "
    "10 wells; the speedup claims read experiment 6's speedup over its CPU program scale by "
    "scale; the accuracy claim reads experiment 6's difference from experiment 5."
)


def render(devices, figures_dir):
    """All kriging figures and tables for these devices, as report sections."""
    return [fig2_section(devices, figures_dir), fig3_section(devices, figures_dir),
            fig4_section(devices, figures_dir), accuracy_section(devices),
            exp7_section(devices, figures_dir), wells_section(devices, figures_dir)]
