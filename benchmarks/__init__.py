"""Benchmark scripts: each prints the numbers it measures (run with python -m benchmarks.NAME).

Besides them, :mod:`benchmarks.browser` is the headless Chromium that the page benchmark, the browser
tests and ``scripts`` drive.
"""
