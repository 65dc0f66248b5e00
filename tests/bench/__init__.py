"""Tests of the benchmarks' own logic: timing, statistics, formatting, the floors they compare against."""
