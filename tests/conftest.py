"""Shared fixtures. Nothing here touches the network or needs an API key."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from studio.init_project import init_project


@pytest.fixture(autouse=True)
def _isolated_env(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """No test reads the developer's own settings or key."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    for name in list(os.environ):
        if name.startswith("NOVEL_STUDIO_") or name == "ANTHROPIC_API_KEY":
            monkeypatch.delenv(name, raising=False)
    yield


@pytest.fixture
def project_dir(tmp_path: Path) -> Path:
    return tmp_path / "novel"


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    """A fresh copy of the sample novel (modules that need another kind of sample define their own)."""
    root = tmp_path / "novel"
    init_project(root, sample=True)
    return root
