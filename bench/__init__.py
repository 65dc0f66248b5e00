"""Benchmarks: synthesis and rendering speed, reported as ratios."""
