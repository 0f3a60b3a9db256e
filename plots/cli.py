"""The command lines' shared ending: one message and an exit status for bad input, never a
traceback; otherwise the lines to print and one "wrote <path>" per file written."""

import sys

from plots.claims import ClaimsError
from plots.load import ResultsError


def run(prog, produce):
    """Call produce() -> (text or "", written paths); print them; return the exit status."""
    try:
        text, written = produce()
    except (ResultsError, ClaimsError) as error:
        print(f"{prog}: error: {error}", file=sys.stderr)
        return 2
    except OSError as error:
        print(f"{prog}: error: cannot write output: {error}", file=sys.stderr)
        return 1
    if text:
        print(text)
    for path in written:
        print(f"wrote {path}")
    return 0
