"""Registry of papers: id -> figure module, claims file and measurement conventions.

To add a paper: write `plots/<paper>.py` with `render(devices, figures_dir) -> [Section]`,
put its claims in `plots/claims/<paper>.json`, and add one entry below; measurement kinds of
its own (`measures`) are registered with the claims evaluator here, which names no paper.
"""

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from plots import idw, inner, kofler, kofler_label, kofler_measures, kofler_tree, kriging
from plots.claims.measures import register_code_of, register_measures

CLAIMS_DIR = Path(__file__).parent / "claims"


@dataclass(frozen=True)
class Paper:
    id: str
    title: str
    intro: str
    render: Callable  # (devices, figures_dir) -> list[Section]
    claims_file: Path
    baseline: dict  # selector overrides that turn a GPU variant into its CPU baseline
    prefer: dict  # parameters that pick one benchmark when several match at one size
    claims_intro: str  # how the claims table reads its verdicts, after the counts
    sweep: str = "size"  # the parameter figures and claims run along
    # (devices) -> None: reads the paper's other inputs (files besides the JSON, labels)
    # before the report writes anything, raising ResultsError on a malformed one
    check_inputs: Callable = lambda devices: None
    # the paper's own measurement kinds, as plots/claims/measures.py's MEASURES
    measures: dict = field(default_factory=dict)
    # (benchmark) -> the words for the mapping code that laid it out, or None: a comparison
    # across codes is shown, not judged (plots/claims/measures.py, CODE_OF)
    code_of: Callable = None


PAPERS = {
    "idw": Paper("idw", "IDW interpolation layouts (Mei & Tian 2016)", idw.INTRO, idw.render,
                 CLAIMS_DIR / "idw.json", idw.BASELINE, idw.PREFER,
                 "Speedups and ratios the paper states as numbers are its averages over "
                 "sizes: ours are too (ratios as geometric means), within ±10 % ('about N'); "
                 "orderings are read pairwise as 'faster'."),
    "kriging": Paper("kriging", "CUDA ordinary kriging (Li & Dong)", kriging.INTRO,
                     kriging.render, CLAIMS_DIR / "kriging.json", {}, {},
                     kriging.CLAIMS_INTRO, kriging.SWEEP, kriging.check_inputs),
    "kofler": Paper("kofler", "Automatic data layout optimizations for GPUs (Kofler, Cosenza & "
                    "Fahringer 2015)", kofler.INTRO, kofler.render, CLAIMS_DIR / "kofler.json",
                    {}, {}, kofler.CLAIMS_INTRO, check_inputs=kofler_label.check_labels,
                    measures=kofler_measures.MEASURES, code_of=kofler_label.mapping_code_words),
    "kofler-tree": Paper("kofler-tree", "Kofler et al. 2015: the per-GPU decision tree's training",
                         kofler_tree.INTRO, kofler_tree.render, CLAIMS_DIR / "kofler-tree.json",
                         {}, {}, "Ratios are time(AoS) / time(best tile) of the training kernels "
                         "at each loop length n.", "n"),
    "inner": Paper("inner", "Inner array inlining for SoA (Springer, Sun & Masuhara 2018)",
                   inner.INTRO, inner.render, CLAIMS_DIR / "inner.json", {}, inner.PREFER,
                   "The synthetic claims are read at 262,144 objects (the paper's count), the "
                   "BFS claims per graph; ratios are time(slower) / time(faster) of the variants "
                   "the sentence names.", inner.SWEEP),
}

for _paper in PAPERS.values():
    register_measures(_paper.measures)
    if _paper.code_of is not None:
        register_code_of(_paper.code_of)
