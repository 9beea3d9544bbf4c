"""Run by tests/test_isolated_skips.py only: isolated tests that skip, in each phase a skip can come."""

import pytest


@pytest.mark.torch
def test_skips_as_it_runs():
    pytest.importorskip("no_such_module_of_connectx")


@pytest.mark.ray
@pytest.mark.skipif(True, reason="a marker's skip")
def test_skips_by_its_marker():
    pass


def test_passes_here():
    pass
