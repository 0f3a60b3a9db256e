"""Accuracy: each CUDA experiment's worst error against the double CPU program, and
experiment 6 against experiment 5 over every grid point."""

from plots.figures import Section
from plots.kriging.cells import number_cell
from plots.kriging.data import BEYOND_DENSE, EXPERIMENTS, SWEEP, by_scale, grid_count, label
from plots.text import count_label, markdown_table


def accuracy_rows(device):
    """(experiment, precision, worst max_abs_err, its max_rel_err, tolerance, scale, κ) per
    CUDA experiment at 10 wells, worst over the scales it ran; None values = not measured."""
    rows = []
    for name, selector in [(label(e), s) for e, s in EXPERIMENTS.items()] + list(BEYOND_DENSE.items()):
        timed = [b for b in by_scale(device, selector).values()
                 if not b.error and "max_abs_err" in b.counters]
        worst = max(timed, key=lambda b: b.counters["max_abs_err"], default=None)
        counters = worst.counters if worst else {}
        rows.append((name, selector["precision"], counters.get("max_abs_err"),
                     counters.get("max_rel_err"), counters.get("tolerance"),
                     worst.params[SWEEP] if worst else None, counters.get("kappa")))
    return rows


def accuracy_section(devices):
    """Per experiment: the worst error against the double CPU reference; exp. 6 vs exp. 5."""
    rows = [[d.label, name, precision, number_cell(abs_err, "{:.2g}"), number_cell(rel, "{:.2g}"),
             number_cell(tol, "{:.2g}"), "—" if scale is None else scale, number_cell(kappa, "{:.3g}"),
             "—" if abs_err is None or tol is None else "yes" if abs_err <= tol else "**no**"]
            for d in devices for name, precision, abs_err, rel, tol, scale, kappa
            in accuracy_rows(d)]
    header = ["GPU", "experiment", "precision", "max_abs_err (m)", "max_rel_err",
              "tolerance (m)", "worst at scale", "κ(A)", "within tolerance"]
    vs5 = []
    for device in devices:
        for scale, b in by_scale(device, EXPERIMENTS[6]).items():
            if b.error:
                continue
            values = [b.counters.get(k) for k in ("vs_exp5_max_abs", "vs_exp5_max_rel")]
            vs5.append([device.label, scale, count_label(grid_count(scale))]
                       + ([number_cell(v, "{:.2g}") for v in values] if None not in values
                          else ["no exp. 5 result at this case"] * 2))
    body = ("Errors of each CUDA program against the double CPU program over its checked "
            "points, 10 wells, worst scale shown (`max_rel_err` = max_abs_err / max |reference|; "
            "depths are 500–1500 m). Not measured: —.\n\n" + markdown_table(header, rows)
            + "\n\nExperiment 6 (float, fast math) against experiment 5 (double) over **all** "
            "grid points and surfaces — the spec's accuracy report:\n\n"
            + (markdown_table(["GPU", "scale", "grid count", "vs_exp5_max_abs (m)",
                               "vs_exp5_max_rel"], vs5) if vs5 else "not measured."))
    return Section("Accuracy", body)


