"""The simulation report: ``REPORT.md`` with PNG plots, and the same numbers as ``report.json``."""
