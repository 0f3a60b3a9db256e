"""Choose benchmarks by selector, so figures and claims read exactly the same points.

A selector maps a name field or parameter to a value, or to a list of accepted values:
`{"version": "tiled", "layout": ["soa", "aoas"], "precision": "float", "p": 2}`.
List-valued keys (other than the sweep) spell out variants to compare; the sweep is the
parameter a measurement runs along: `size` by default (IDW), `scale` for kriging, `wells`
for a well-count sweep. When several benchmarks match at one point of the sweep (a
block-size sweep, say) the paper's `prefer` parameters pick one.
"""

import itertools

SWEEP = "size"


def matches(benchmark, selector):
    """True when every selector key accepts the benchmark's field or parameter."""
    for key, wanted in selector.items():
        value = benchmark.get(key)
        if isinstance(wanted, list):
            if value not in wanted:
                return False
        elif value != wanted:
            return False
    return True


def expand(selector, sweep=SWEEP):
    """(label, scalar selector) per combination of the list-valued keys, sweep excepted.

    The label joins the varying values ("tiled/aoas"): it is how claims name a variant.
    """
    axes = [k for k, v in selector.items() if isinstance(v, list) and k != sweep]
    return [
        ("/".join(str(v) for v in combo), {**selector, **dict(zip(axes, combo))})
        for combo in itertools.product(*(selector[k] for k in axes))
    ]


def describe(selector):
    """A selector written like a benchmark name, for messages: `tiled/{soa,aos}/float/p:2`
    (the app first where the selector names one: `nbody/gpu/soa`)."""
    def text(value):
        return "{" + ",".join(map(str, value)) + "}" if isinstance(value, list) else str(value)

    fields = [text(selector[k]) for k in ("app", "version", "layout", "precision")
              if k in selector]
    params = [f"{k}:{text(v)}" for k, v in selector.items()
              if k not in ("paper", "app", "version", "layout", "precision")]
    return "/".join(fields + params)


def by_size(benchmarks, selector, prefer, sweep=SWEEP):
    """({sweep value: benchmark}, [ambiguity messages]) for one scalar selector.

    Errored benchmarks are included (callers decide what an error means); benchmarks
    without a value of the `sweep` parameter are not on the sweep and are left out. A sweep
    may be text (a graph's name): numbers come first, in order, then texts.
    """
    candidates = {}
    for benchmark in benchmarks:
        size = benchmark.params.get(sweep)
        if isinstance(size, (int, float, str)) and matches(benchmark, selector):
            candidates.setdefault(size, []).append(benchmark)
    chosen, ambiguous = {}, []
    for size in sorted(candidates, key=lambda v: (isinstance(v, str), v)):
        pick = _prefer(candidates[size], prefer)
        if pick is None:
            names = ", ".join(b.name for b in candidates[size])
            ambiguous.append(f"{describe(selector)}/{sweep}:{size} is ambiguous ({names})")
        else:
            chosen[size] = pick
    return chosen, ambiguous


def timed_by_size(benchmarks, selector, prefer, sweep=SWEEP):
    """{sweep value: seconds} of the benchmarks that have a time (for plotting)."""
    chosen, _ = by_size(benchmarks, selector, prefer, sweep)
    return {size: b.time_s for size, b in chosen.items() if b.time_s is not None}


def _prefer(group, prefer):
    if len(group) == 1:
        return group[0]
    preferred = [b for b in group if all(b.get(k) == v for k, v in prefer.items())]
    return preferred[0] if len(preferred) == 1 else None
