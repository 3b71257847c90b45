"""Shared pytest configuration."""

from __future__ import annotations


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "browser: builds the book with small parameters and opens pages in headless Chromium "
        "(select with `-m browser`, leave out with `-m 'not browser'`)",
    )
