"""Benchmark scripts: each prints the numbers it measures (run with python -m benchmarks.NAME)."""
