"""Shared pytest setup: the test database fixtures (``db_path``, ``db``) for every module."""

pytest_plugins = ["support.data"]
