"""REPORT.md: the summary first (plots/summary.py), the device table, every paper's figures,
tables and claims verdicts, the GPU comparison, flags.

Everything that can fail on bad input (results, claims files) is read before the first
file is written, and every file is written atomically.
"""

import os
from dataclasses import replace
from pathlib import Path

from plots import compare, summary
from plots.claims import VERDICTS, Scope, evaluate_claims, load_claims
from plots.claims.evaluate import evaluate_claims_on_cards
from plots.figures import drawing, write_atomically
from plots.html import write_html
from plots.compare import identical_gpu_groups
from plots.load import run_json
from plots.papers import PAPERS
from plots.text import without_one_gpu_column

DEFAULT_SPREAD_FLAG_PCT = 5.0  # when the run's context does not record its own threshold
CLAIMS_READING = (
    "Each claim quotes the paper (line of its text in ../shared/papers/source/); its words map "
    "to a numeric band through one table (plots/claims/README.md). The interval is what the "
    "verdict was judged on: the repetitions' fastest and slowest times paired, and the spread "
    "across sizes for claims not stated as averages; `inconclusive` when it straddles the band's "
    "edge.")


def write_report(results, out_dir):
    """Write every figure, `<out_dir>/REPORT.md` and, from the same text with the figures
    inline, `<out_dir>/report.html` (not inside report_only(): it holds the figures);
    return the paths written, in order."""
    out_dir = Path(out_dir)
    evaluated = []  # (paper, devices, verdicts per device): all checks before any write
    for paper in (PAPERS[p] for p in _papers_in(results) if p in PAPERS):
        claims = load_claims(paper.claims_file)
        devices = [d for d in (d.for_paper(paper.id) for d in results.devices) if d.benchmarks]
        paper.check_inputs(devices)
        evaluated.append((paper, devices, *_judged(paper, claims, devices)))
    comparisons = _comparisons(results)

    parts = [_header(results), summary.summary(results, evaluated),
             summary.devices_section(results)]
    written = []
    for paper, devices, judged, verdicts in evaluated:
        sections = paper.render(devices, out_dir / "figures")
        written += [f for s in sections for f in _figure_files(s)]
        parts.append(_paper_part(paper, judged, sections, verdicts, out_dir))
    comparison_text, comparison_files = _comparison_part(results, comparisons, out_dir)
    parts.append(comparison_text)
    written += comparison_files
    parts += [_flags(results), _unsupported(results), _cluster_tasks(out_dir)]

    report = out_dir / "REPORT.md"
    text = "\n\n".join(p for p in parts if p) + "\n"
    write_atomically(report, lambda temp: Path(temp).write_text(text, encoding="utf-8"))
    return written + [report] + ([write_html(text, out_dir, write_atomically)] if drawing() else [])


def _judged(paper, claims, devices):
    """(the devices the claims are judged on, their verdicts): each device alone, but cards of
    one GPU model that ran the same benchmarks side by side are one, judged on every card
    (evaluate_claims_on_cards: a verdict the cards disagree on is inconclusive)."""
    def scope(device):
        return Scope(device.benchmarks, paper.baseline, paper.prefer, paper.sweep)

    groups = [members for _, members in identical_gpu_groups(devices)]
    judged, verdicts = [], []
    for device in devices:
        group = next((g for g in groups if any(device is member for member in g)), None)
        if group is None:
            judged.append(device)
            verdicts.append(evaluate_claims(claims, scope(device)))
        elif device is group[0]:
            judged.append(replace(device, label=f"{device.files[0].gpu_name} ×{len(group)} "
                                  f"{summary.SIDE_BY_SIDE}"))
            verdicts.append(evaluate_claims_on_cards(claims, [scope(d) for d in group],
                                                     [d.label for d in group]))
    return judged, verdicts


def _cluster_tasks(out_dir):
    """The Slurm tasks' section the collect job keeps beside the results (`slurm/tasks.md`,
    harness/orchestrator/slurm.py), so a later `make figures` keeps it in the report."""
    tasks = out_dir / "slurm" / "tasks.md"
    return tasks.read_text(encoding="utf-8").strip() if tasks.is_file() else ""


def _comparisons(results):
    """The first GPU against the first GPU of each other folder (identical GPUs of one
    folder get the GPU-to-GPU spread instead)."""
    firsts = [compare.folder_device(results.devices, folder) for folder in results.folders]
    return [compare.compare_devices(firsts[0], other) for other in firsts[1:]]


def _comparison_part(results, comparisons, out_dir):
    """GPU-time comparison and GPU-to-GPU spread with its figure and CSV files; "" for one GPU."""
    sections, tables = compare.group_sections(results.devices), []
    for k, comparison in enumerate(comparisons):
        csv_name = f"compare_{k + 1}_benchmarks.csv"
        sections += compare.sections(comparison, out_dir / "figures", f"compare_{k + 1}", csv_name)
        if drawing():
            tables.append(compare.write_benchmark_csv(comparison, out_dir / csv_name))
    if not sections:
        return "", []
    text = ("## GPU comparison\n\nGPU time and fractions of each GPU's own measured "
            "ceilings only (no CPU-relative metric).\n\n"
            + compare.render_sections(sections, out_dir, level=3))
    return text, [f for s in sections for f in _figure_files(s)] + tables


def _papers_in(results):
    return list(dict.fromkeys(b.paper for f in results.files for b in f.benchmarks))


def _figure_files(section):
    return [f for png in section.figures for f in (png, png.with_suffix(".svg"))]


def _header(results):
    text = (f"{summary.title(results)}\n\nRead {results.benchmark_count} benchmarks "
            f"({results.entry_count} JSON entries) from {len(results.files)} result file(s) "
            f"in {len(results.folders)} results folder(s).")
    missing = [line for folder in results.folders for line in [_unfinished(results, folder)] if line]
    return text + "".join(f"\n\n{line}" for line in missing)


def _unfinished(results, folder):
    """One line when the run that wrote `folder` planned more benchmarks than it holds (an
    interrupted run: its run.json's plan, counted per suite against the names in its result
    files), so a partial run never reads as a complete one; "" otherwise or without run.json."""
    plan = (run_json(folder) or {}).get("plan")
    if not isinstance(plan, dict):
        return ""
    held = {suite: min(planned, len({b.name for f in results.files
                                      if Path(f.path).parent == Path(folder) and f.suite == suite
                                      for b in f.benchmarks}))
            for suite, planned in plan.items() if isinstance(planned, int)}
    short = [(suite, count, plan[suite]) for suite, count in held.items() if count < plan[suite]]
    if not short:
        return ""
    have, total = sum(held.values()), sum(plan[suite] for suite in held)
    suites = ", ".join(f"{s} {h} of {p}" for s, h, p in short)
    return (f"**Incomplete run:** `{folder}` holds {have} of the {total} benchmarks its run "
            f"planned ({suites}); the rest were not run (an interrupted run: `harness/run.py "
            f"--resume` runs only what is missing). Claims on the missing ones read them as not run.")


def _paper_part(paper, devices, sections, verdicts, out_dir):
    lines = [f"## {paper.title}", "", paper.intro]
    for section in sections:
        lines += ["", f"### {section.heading}"]
        if section.body:
            lines += ["", without_one_gpu_column(section.body) if len(devices) == 1
                      else section.body]
        for png in section.figures:
            png_link = Path(os.path.relpath(png, out_dir)).as_posix()
            svg_link = Path(os.path.relpath(png.with_suffix(".svg"), out_dir)).as_posix()
            lines += ["", f"![{section.heading}]({png_link}) ([SVG]({svg_link}))"]
    for k, (device, device_verdicts) in enumerate(zip(devices, verdicts)):
        heading = "### Claims" + (f" — {device.label} (preset {device.preset})"
                                  if len(devices) > 1 else "")
        lines += ["", heading, "",
                  claims_table(device_verdicts, paper.claims_intro,
                               f"{paper.id}-{k + 1}" if len(devices) > 1 else paper.id)]
    return "\n".join(lines)


def claims_table(verdicts, intro, note_prefix):
    """The counts, then a row per claim (its short text, the paper's value, ours with the
    interval the verdict was judged on, the verdict), the quote and the note of each in a
    footnote `[^<note_prefix>-<claim id>]` (report.html: a block that opens)."""
    counts = {v: sum(x.verdict == v for x in verdicts) for v in VERDICTS}
    summary_line = ", ".join(f"{n} {v}" for v, n in counts.items())
    lines = [f"{summary_line}.", "", "| claim | paper | ours (interval) | verdict |",
             "|---|---|---|---|"]
    notes = []
    for v in verdicts:
        label = f"{note_prefix}-{v.claim_id}"
        ours = v.measured if v.interval in ("—", "", None) else f"{v.measured} ({v.interval})"
        lines.append(f"| {_cell(v.text)}[^{label}] | {_cell(v.paper)} | {_cell(ours)} | "
                     f"{v.verdict} |")
        quote = f" l.{v.line}: “{_cell(v.quote)}”" if v.quote else " (beyond the paper)"
        notes.append(f"[^{label}]: `{v.claim_id}`.{quote}" + (f" {_cell(v.note)}" if v.note else ""))
    return "\n".join(lines + ["", f"{intro} {CLAIMS_READING}", ""] + notes)


def _flags(results):
    """Errors first, then noisy, bimodal, capped and throttled times: what a reader must not
    over-trust (bimodal and capped: the run's noise rules, docs/architecture.md "Noise")."""
    errors, noisy, throttled = [], [], []
    for result_file in results.files:
        flag_pct = result_file.spread_flag_pct
        flag_pct = DEFAULT_SPREAD_FLAG_PCT if flag_pct is None else flag_pct
        for b in result_file.benchmarks:
            where = f"`{b.name}` on {b.device} (`{result_file.path.name}`)"
            if b.error:
                errors.append(f"- **{'invalid' if b.invalid else 'error'}** {where}: {b.error}")
            if b.counters.get("unvalidated", 0) >= 1:
                errors.append(f"- **unvalidated** {where}: its own float error is too large for a "
                              f"tolerance that would fail a wrong kernel (max error "
                              f"{b.counters.get('max_abs_err', float('nan')):.3g}, tolerance "
                              f"{b.counters.get('tolerance', float('nan')):.3g}); its time is "
                              f"shown but its result is not checked")
            if b.spread is not None and 100 * b.spread > flag_pct:
                noisy.append(f"- **spread {b.spread:.1%}** (> {flag_pct:g}%) {where}")
            if b.bimodal:
                noisy.append(f"- **bimodal** after re-measuring ({b.noise.get('repetitions')} "
                             f"repetitions): {where}")
            if b.noise_capped:
                noisy.append(f"- **noise target missed** within the time cap (half-width "
                             f"{b.noise.get('half_width_pct', float('nan')):.2g} % of the "
                             f"median, target {b.noise.get('target_pct')} %): {where}")
            if b.throttled:
                throttled.append(f"- **throttled** in at least one repetition: {where}")
    lines = errors + noisy + throttled
    return "## Errored and flagged benchmarks\n\n" + ("\n".join(lines) or "None.")


def _unsupported(results):
    missing = [p for p in _papers_in(results) if p not in PAPERS]
    if not missing:
        return ""
    return ("## Papers without a figure module\n\n"
            + "\n".join(f"- `{p}`: read, not plotted" for p in missing))


def _cell(text):
    return str(text).replace("|", "\\|").replace("\n", " ")
