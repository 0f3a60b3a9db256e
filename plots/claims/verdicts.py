"""What a claim's evaluation says: the verdicts, a measurement, a verdict, the scope a claim
is measured on, and the errors (a malformed claims file; benchmarks missing for a measure)."""

from dataclasses import dataclass

REPRODUCED = "reproduced"
NOT_REPRODUCED = "not reproduced"
NOT_MEASURED = "not measured"
INCONCLUSIVE = "inconclusive"  # the measured interval straddles the claim's band edge
# A number tied to the paper's old hardware (an absolute speedup over its 2010-2014 CPU or
# GPU): decided per claim in the claims data, with its reason, before any number is read.
# Our number is shown, not judged.
NOT_TRANSFERABLE = "not transferable"
VERDICTS = (REPRODUCED, NOT_REPRODUCED, INCONCLUSIVE, NOT_TRANSFERABLE, NOT_MEASURED)
NOTE_PROBLEMS = 4  # problems a note names before "+N more"


class ClaimsError(Exception):
    """A malformed claims file: a message naming the file and claim."""


class NotMeasured(Exception):
    """A measurement lacks benchmarks; `problems` says which."""

    def __init__(self, problems):
        super().__init__("; ".join(problems))
        self.problems = list(dict.fromkeys(problems))


@dataclass(frozen=True)
class Measured:
    value: object
    text: str
    detail: str
    times: dict  # variant label -> geometric-mean seconds, where the kind computes them
    points: tuple = ()  # sweep values of a curve's values (curve kinds only)
    sweep: str = "size"
    interval: tuple = None  # (low, high) of the value from the repetitions' extremes
    hull: tuple = None  # (low, high) over every size's interval: noise and size spread
    per_size: tuple = ()  # Estimate per size (range and curve kinds)
    parts: tuple = ()  # the Measured of each part ("each", "each_variant")
    label: str = ""  # how the part is named in a verdict's note
    # Where the benchmarks compared ran on different mapping code (plots/kofler_label.py
    # mapping_code): what ran on which; such a measurement is shown, not judged.
    unlike: tuple = ()


@dataclass(frozen=True)
class Verdict:
    claim_id: str
    text: str
    paper: str
    measured: str
    verdict: str
    note: str
    value: object = None
    interval: str = "—"  # the uncertainty interval the verdict was judged on
    quote: str = ""  # the paper's sentence, verbatim
    line: int = 0  # its line in the paper's text


@dataclass(frozen=True)
class Scope:
    """What a claim is measured on: one device's benchmarks and the paper's conventions."""

    benchmarks: tuple
    baseline: dict  # overrides turning a GPU selector into its CPU baseline ({}: none)
    prefer: dict  # parameters that pick one benchmark when several match at a size
    sweep: str = "size"  # the parameter measurements run along

