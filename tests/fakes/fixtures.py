"""Pytest fixtures for the fakes (registered in tests/conftest.py through `pytest_plugins`)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.fakes.fake_model_server import FakeModelServer


@pytest.fixture
def fake_models() -> Iterator[FakeModelServer]:
    """A fake model server on a free local port, fresh for each test."""
    server = FakeModelServer().start()
    try:
        yield server
    finally:
        server.stop()
    assert not server.schema_errors, f"requests outside OpenAI's schema: {server.schema_errors}"
