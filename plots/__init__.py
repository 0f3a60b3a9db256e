"""Figures, claims check and REPORT.md from Google Benchmark result folders."""
