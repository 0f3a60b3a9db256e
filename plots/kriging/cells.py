"""The kriging tables' cells: a benchmark's time (starred where the CPU time comes from a
sample), "does not run" with its reason, counters."""

from plots.text import does_not_run, format_seconds


def time_cell(benchmark):
    if benchmark is None:
        return "—"
    if benchmark.error:
        return does_not_run_cell(benchmark)
    star = "*" if benchmark.counters.get("sampled") else ""
    return format_seconds(benchmark.time_s) + star


def does_not_run_cell(benchmark):
    return does_not_run(benchmark.error)


def seconds_counter(benchmark, counter):
    value = benchmark.counters.get(counter)
    return "—" if value is None else format_seconds(value)


def number_cell(value, fmt):
    return "—" if value is None else fmt.format(value)


