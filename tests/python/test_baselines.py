"""CPU baselines off their own scaling (plots/baselines.py, docs/architecture.md "Noise the run
controls"): the rule on synthetic series, the committed H100 reference's IDW baseline at 51,200
points (9.00 s where its other sizes predict about 4.8 s: Figs. 7 and 8 drew it as a GPU
speedup spike), and the figures ringing such a point."""

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from plots import idw  # noqa: E402
from plots.baselines import FLAG_LABEL, MARGIN, baseline_flags, flags_of  # noqa: E402
from plots.kriging.curves import Curve, draw  # noqa: E402
from plots.load import Benchmark  # noqa: E402

H100 = Path(__file__).resolve().parents[2] / "results" / "reference" / "nvidia-h100-80gb-hbm3"


def cpu(size, seconds, version="cpu-serial", precision="float"):
    return Benchmark(name=f"idw/shepard/{version}/aos/{precision}/p:2/size:{size}", paper="idw",
                     app="shepard", version=version, layout="aos", precision=precision,
                     params={"p": 2, "size": size}, device="d", preset="p", source=Path("x"),
                     time_s=seconds)


def quadratic(sizes, off=None, factor=1.0):
    """Times of an O(n²) program, the size `off` `factor` times slower."""
    return [cpu(n, 1e-9 * n * n * (factor if n == off else 1.0)) for n in sizes]


SIZES = (10240, 51200, 102400, 512000, 1024000)


def test_a_point_off_by_more_than_the_margin_is_flagged_and_only_it():
    flags = flags_of(quadratic(SIZES, off=51200, factor=1.6))
    assert list(flags) == ["idw/shepard/cpu-serial/aos/float/p:2/size:51200"]
    assert flags["idw/shepard/cpu-serial/aos/float/p:2/size:51200"].ratio == pytest.approx(1.6)
    assert flags_of(quadratic(SIZES, off=512000, factor=1 / 1.6))  # too fast counts too
    assert not flags_of(quadratic(SIZES, off=51200, factor=1.4))
    assert not flags_of(quadratic(SIZES))


def test_fewer_than_four_sizes_flag_nothing_and_series_stay_apart():
    assert not flags_of(quadratic(SIZES[:3], off=51200, factor=3))
    # Another version's or precision's times are another series: no mixing.
    mixed = quadratic(SIZES[:2]) + [cpu(n, 5e-9 * n * n, precision="double") for n in SIZES[2:]]
    assert not flags_of(mixed)
    # A GPU benchmark is never a baseline.
    gpu = [Benchmark(**{**b.__dict__, "version": "tiled"}) for b in quadratic(SIZES, 51200, 3)]
    assert not flags_of(gpu)


def test_the_h100_references_idw_baseline_at_51200_is_flagged():
    flags = baseline_flags(H100, suites=("idw",))
    assert list(flags) == ["idw/shepard/cpu-serial/aos/float/p:2/size:51200"]
    flag = flags["idw/shepard/cpu-serial/aos/float/p:2/size:51200"]
    assert flag.measured_s == pytest.approx(9.00, abs=0.005)
    assert 4.6 < flag.fitted_s < 5.0  # the "about 4.8 s"
    assert flag.ratio > MARGIN


def ringed(ax):
    """The (x, y) points a figure ringed as off-scaling baselines."""
    return [tuple(p) for c in ax.collections if c.get_label() == FLAG_LABEL
            for p in c.get_offsets()]


def test_the_idw_speedup_figure_rings_a_flagged_point():
    fig, ax = plt.subplots()
    idw._plot_layouts(ax, {"soa": ([10240, 51200, 102400], [50.0, 90.0, 50.0])}, flagged={51200})
    assert ringed(ax) == [(51200, 90.0)]
    assert FLAG_LABEL in ax.get_legend_handles_labels()[1]
    plt.close(fig)


def test_the_kriging_curves_ring_a_flagged_point():
    fig, ax = plt.subplots()
    draw(ax, [Curve("exp. 6", {1: 50.0, 2: 120.0, 4: 80.0}, "C5", flagged=frozenset({2}))],
         "grid count", "speedup (×)", log=False)
    assert len(ringed(ax)) == 1
    plt.close(fig)
