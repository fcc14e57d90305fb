"""Fixtures shared by the regression tests: the browser tests' Chromium (from tests/e2e)."""

from tests.e2e.conftest import browser

__all__ = ["browser"]
