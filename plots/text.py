"""The report's words for numbers, one way everywhere: times, ratios, counts, sizes, table
cells, Markdown tables. Plain text (no matplotlib), so the claims use it as well as every
paper's figure module."""

import re


TIME_UNITS = (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9))


def time_unit(seconds, units=TIME_UNITS):
    """(name, seconds per unit) of the largest of `units` in which `seconds` is at least 1:
    0.00123 -> ("ms", 1e-3); the smallest unit below that."""
    return next(((unit, scale) for unit, scale in units if seconds >= scale), units[-1])


def format_seconds(seconds):
    """3 significant digits in s, ms, µs or ns: 0.00123 -> "1.23 ms"."""
    unit, scale = time_unit(seconds)
    return f"{seconds / scale:.3g} {unit}"


def time_cell(seconds, missing="—"):
    """A table cell of a time, `missing` where there is none."""
    return missing if seconds is None else format_seconds(seconds)


def times_text(value):
    """A ratio as "k×": two decimals below 10, one below 100, none above."""
    digits = 0 if value >= 100 else 1 if value >= 10 else 2
    return f"{value:.{digits}f}×"


def does_not_run(reason):
    """The error of a point that did not run, said once: "does not run: <reason>"."""
    return reason if reason.startswith("does not run") else f"does not run: {reason}"


def size_label(size):
    """A problem size in K = 1024 where it divides: 2048 -> "2K"."""
    return f"{size // 1024}K" if size % 1024 == 0 and size >= 1024 else str(size)


def count_label(count):
    """A count in thousands or millions (K = 1000): 49500 -> 49.5K, 4950000 -> 4.95M."""
    if count >= 1e6:
        return f"{count / 1e6:.3g}M"
    return f"{count / 1e3:.3g}K" if count >= 1e3 else f"{count:g}"


_CELL_EDGE = re.compile(r"(?<!\\)\|")  # a cell's edge: a `|` not escaped as `\|`


def without_one_gpu_column(markdown):
    """`markdown` with each table's "GPU" column left out where every row holds the same
    GPU: one GPU's report names it in its title, a column repeating it says nothing."""
    lines = markdown.split("\n")
    k = 0
    while k < len(lines):
        if not (lines[k].startswith("|") and k + 1 < len(lines)
                and lines[k + 1].startswith("|---")):
            k += 1
            continue
        end = k + 2
        while end < len(lines) and lines[end].startswith("|"):
            end += 1
        rows = [_CELL_EDGE.split(line)[1:-1] for line in lines[k:end]]
        header = [cell.strip() for cell in rows[0]]
        if "GPU" in header and end > k + 2:
            column = header.index("GPU")
            if len({row[column].strip() for row in rows[2:] if len(row) > column}) == 1:
                lines[k:end] = ["|" + "|".join(row[:column] + row[column + 1:]) + "|"
                                for row in rows]
        k = end
    return "\n".join(lines)


def markdown_table(header, rows):
    """A Markdown table; cells are escaped so a `|` in a message cannot break a row."""
    def cells(values):
        return "| " + " | ".join(str(v).replace("|", "\\|").replace("\n", " ")
                                 for v in values) + " |"

    return "\n".join([cells(header), "|" + "---|" * len(header), *map(cells, rows)])
