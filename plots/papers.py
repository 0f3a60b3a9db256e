"""Registry of papers: id -> figure module, claims file and measurement conventions.

To add a paper: write `plots/<paper>.py` with `render(devices, figures_dir) -> [Section]`,
put its claims in `plots/claims/<paper>.json`, and add one entry below.
"""

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from plots import idw

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


PAPERS = {
    "idw": Paper("idw", "IDW interpolation layouts (Mei & Tian 2016)", idw.INTRO, idw.render,
                 CLAIMS_DIR / "idw.json", idw.BASELINE, idw.PREFER),
}
