"""Checks shared by the plot tests: a report folder holds each figure as PNG and SVG."""


def assert_figures_written(report, stems):
    for stem in stems:
        png, svg = report / "figures" / f"{stem}.png", report / "figures" / f"{stem}.svg"
        assert png.read_bytes().startswith(b"\x89PNG"), stem
        assert "<svg" in svg.read_text()[:500], stem
    assert not list(report.rglob("*.tmp")), "temporary files left behind"
