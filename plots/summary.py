"""The report's first screen and its device table.

The summary names the GPU, its cards, the commit, date and preset; counts each paper's claims
by verdict class (a row per paper, linking to its section); gives each suite's benchmark
closest to its own measured ceiling; and, where a reference of another GPU is committed,
the command that compares with it. The device table is one table: a row per card (a GPU's
result files grouped by card UUID), the context keys in which the cards differ (and the
measured ceilings, always) as columns, what every card shares said once under it.
"""

import functools
import json
import statistics
from collections import defaultdict

from plots import reference
from plots.claims import VERDICTS
from plots.html import slug
from plots.load import ResultsError
from plots.text import markdown_table

CONTEXT_SECTIONS = ("gpu", "build", "run", "ceilings")
# Context keys that say which card and run a file is, never a property of the GPU model.
PER_RUN_KEYS = ("gpu.uuid", "gpu.device_index", "run.device_index", "run.suite")
# Ceilings shown in the summary line: (key, unit label, scale).
HEADLINE_CEILINGS = (("copy_bandwidth_gbs", "GB/s copy", 1.0),
                     ("fp32_fma_per_s", "TFMA/s FP32", 1e-12),
                     ("fp64_fma_per_s", "TFMA/s FP64", 1e-12))
SUITES_FROM_CARDS = (
    "“suites from N cards” in a GPU's label, here and in every table and figure: one GPU model "
    "whose suites ran on N cards of it, each suite whole on one card (a reference completed on "
    "another card), read as one GPU.")


def title(results):
    """The report's title: it names the GPU(s)."""
    names = list(dict.fromkeys(f.gpu_name for f in results.files))
    return f"# Layout benchmark report — {', '.join(names) or 'no GPU'}"


SIDE_BY_SIDE = "(cards side by side)"  # the label's tail of cards judged together (report._judged)


def summary(results, evaluated):
    """The `## Summary` section: run facts, verdict counts per paper, headline numbers, the
    compare command. `evaluated` is [(paper, devices, judged devices, their verdicts)]: the
    devices the claims were judged on (report._judged: cards side by side are one)."""
    lines = ["## Summary", "", _facts(results), ""]
    several = len({d.label for _, _, judged, _ in evaluated for d in judged}) > 1
    header = ["paper"] + (["GPU"] if several else []) + list(VERDICTS) + ["claims"]
    rows, totals = [], defaultdict(int)
    for paper, _, judged, verdicts in evaluated:
        for device, device_verdicts in zip(judged, verdicts):
            counts = [sum(v.verdict == name for v in device_verdicts) for name in VERDICTS]
            for name, count in zip(VERDICTS, counts):
                totals[name] += count
            rows.append([f"[{paper.title}](#{slug(paper.title)})"]
                        + ([device.label] if several else [])
                        + [count or "·" for count in counts] + [len(device_verdicts)])
    if rows:
        rows.append(["**all**"] + ([""] if several else [])
                    + [f"**{totals[v]}**" for v in VERDICTS]
                    + [f"**{sum(totals.values())}**"])
        lines += ["Claims by verdict (“·”: none; the verdict rules: plots/claims/README.md):", "",
                  markdown_table(header, rows), ""]
        alone = sorted({d.label for _, _, judged, _ in evaluated for d in judged
                        if not d.label.endswith(SIDE_BY_SIDE)})
        if alone:
            lines += [f"Card-to-card term missing for {', '.join(alone)}: each benchmark ran on "
                      "one card, so no verdict's interval includes the spread between two cards "
                      "of one model (a run on two cards side by side, `--devices 0,1`, gives "
                      "it).", ""]
    lines += headline_numbers(results)
    command = compare_command(results)
    if command:
        lines += ["", command]
    return "\n".join(lines).rstrip()


def _facts(results):
    """One line: GPU(s) with their cards, preset, commit(s), run date(s), what was read."""
    parts = []
    for device in results.devices:
        cards = len(cards_of(device))
        parts.append(f"**{device.files[0].gpu_name}**" + (f", {cards} cards ([Devices](#devices))"
                                                          if cards > 1 else ""))
    presets = sorted({d.preset for d in results.devices})
    commits = sorted({str(_get(f.lb, "build.git_commit"))[:10] for f in results.files
                      if _get(f.lb, "build.git_commit")})
    dates = sorted({str(f.context.get("date"))[:10] for f in results.files
                    if f.context.get("date")})
    date = (dates[0] if len(dates) == 1 else f"{dates[0]} to {dates[-1]}") if dates else "no date"
    folders = ", ".join(f"`{f}`" for f in results.folders)
    return (f"{'; '.join(parts)} · preset {', '.join(presets)} · commit "
            f"{', '.join(f'`{c}`' for c in commits) or 'not recorded'} · run {date} · "
            f"{results.benchmark_count} benchmarks from {folders}.")


def headline_numbers(results):
    """Per suite of each GPU: its benchmark closest to its own measured ceiling, and the
    median over the suite's benchmarks that declare a bound; the ceilings themselves."""
    lines = []
    for device in results.devices:
        ceilings = _ceilings(device)
        if ceilings:
            lines.append(f"Measured ceilings of {device.label}: " + ", ".join(ceilings) + ".")
        by_suite = defaultdict(list)
        for benchmark in device.benchmarks:
            pct = pct_of_ceiling(benchmark)
            if pct is not None and not benchmark.error:
                by_suite[benchmark.paper].append((pct, benchmark.name))
        for suite, points in sorted(by_suite.items()):
            best, name = max(points)
            lines.append(f"- `{suite}`: closest to its ceiling `{name}` at {best:.0f} %; "
                         f"median {statistics.median(p for p, _ in points):.0f} % over "
                         f"{len(points)} benchmarks with a bound")
    if lines:
        lines = ["Against the ceilings (time at the bound the measured ceilings give ÷ time "
                 "measured; 100 % is the ceiling):", ""] + lines
    return lines


def pct_of_ceiling(benchmark):
    """100 × the benchmark's bound over its time, from the counter the program declares
    (`pct_of_bound`, `pct_copy_bandwidth`, or kriging's memory_bound_s over device_s);
    None where it declares none."""
    for key in ("pct_of_bound", "pct_copy_bandwidth"):
        value = benchmark.counter(key)  # or its name before the rename
        if isinstance(value, (int, float)) and value > 0:
            return float(value)
    bound, device = benchmark.counter("memory_bound_s"), benchmark.counter("device_s")
    if all(isinstance(v, (int, float)) and v > 0 for v in (bound, device)):
        return 100.0 * bound / device
    return None


def _ceilings(device):
    values = next((f.lb["ceilings"] for f in device.files
                   if isinstance(f.lb.get("ceilings"), dict) and f.lb["ceilings"]), {})
    return [f"{values[key] * scale:.4g} {unit}" for key, unit, scale in HEADLINE_CEILINGS
            if isinstance(values.get(key), (int, float))]


@functools.lru_cache(maxsize=None)
def _references(root):
    try:
        return tuple(reference.references(root))
    except ResultsError:
        return ()


def compare_command(results, root=reference.ROOT):
    """The one command comparing this report's first GPU with each committed reference of
    another GPU ("" where there is none)."""
    gpus = {f.gpu_name for f in results.files}
    others = [r for r in _references(root) if r.gpu not in gpus]
    if not others or len(results.folders) != 1:
        return ""
    folder = results.folders[0]
    commands = "\n".join(f"make compare A={r.slug} B={folder}" for r in others)
    return ("Compare with the committed reference of another GPU (ratios B/A: below 1, this "
            "GPU is faster; docs/reports.md):\n\n```sh\n" + commands + "\n```")


def cards_of(device):
    """{card key: [result files]} of a device, a card by its UUID (or name and index)."""
    cards = {}
    for result_file in device.files:
        uuid = _get(result_file.lb, "gpu.uuid")
        key = uuid if isinstance(uuid, str) and uuid else \
            f"{result_file.gpu_name}#{result_file.device_index}"
        cards.setdefault(key, []).append(result_file)
    return cards


def devices_section(results):
    """`## Devices`: one table, a row per result file (a suite's run on one card), the cards
    in order; the context keys in which the rows differ, and the measured ceilings, as
    columns; what every row shares listed once under it."""
    rows = []  # (device, card key, result file, {key: value text})
    for device in results.devices:
        for card, files in cards_of(device).items():
            rows += [(device, card, f, dict(_context_items(f))) for f in files]
    keys = list(dict.fromkeys(k for *_, values in rows for k in values))
    shared = [k for k in keys if len({values.get(k, "not recorded") for *_, values in rows}) == 1
              and not k.startswith("ceilings.") and k not in PER_RUN_KEYS]
    columns = [k for k in keys if k not in shared and k not in PER_RUN_KEYS]
    several = len(results.devices) > 1  # else the title names the GPU: no column of one value
    header = (["GPU"] if several else []) + ["card", "result file"] + [
        k.split(".", 1)[1] for k in columns]
    table = [([device.label] if several else [])
             + [f"`{card[:13]}…`" if len(card) > 14 else f"`{card}`", f"`{result_file.path.name}`"]
             + [values.get(k, "not recorded") for k in columns]
             for device, card, result_file, values in rows]
    cards = len({(id(device), card) for device, card, *_ in rows})
    lines = ["## Devices", "",
             f"{cards} card(s). One row per result file (a suite's run on one card); the columns "
             "are what differs between the rows, and the ceilings measured when each run "
             "started (GB/s; operations per second). "
             + (SUITES_FROM_CARDS if any("suites from" in d.label for d in results.devices)
                else ""), "", markdown_table(header, table)]
    if shared:
        common = rows[0][3]
        by_section = defaultdict(list)
        for key in shared:
            section, name = key.split(".", 1)
            by_section[section].append(f"{name} {common.get(key, 'not recorded')}")
        lines += ["", "The same in every row:", ""]
        lines += [f"- {section}: " + "; ".join(items) for section, items in by_section.items()]
    folders = sorted({str(d.folder) for d in results.devices})
    lines += ["", "Folder" + ("s" if len(folders) > 1 else "") + ": "
              + ", ".join(f"`{f}`" for f in folders) + "."]
    return "\n".join(lines)


def _context_items(result_file):
    """(section.key, value text) of a result file's context sections."""
    for section in CONTEXT_SECTIONS:
        values = result_file.lb.get(section)
        if not isinstance(values, dict) or not values:
            yield f"{section}.(all)", "not recorded"
            continue
        for key, value in values.items():
            yield f"{section}.{key}", value_text(value)[:10] if key == "git_commit" else value_text(value)
    if result_file.context.get("date"):
        yield "run.date", str(result_file.context["date"]).replace("T", " ")[:16]


def value_text(value):
    if isinstance(value, (dict, list)):
        return json.dumps(value)
    return f"{value:.4g}" if isinstance(value, float) else str(value)


def _get(mapping, dotted):
    for key in dotted.split("."):
        if not isinstance(mapping, dict):
            return None
        mapping = mapping.get(key)
    return mapping
