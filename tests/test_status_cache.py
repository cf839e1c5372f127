"""`status` is read-only in the author's folder: its caches live in the user cache folder, one per project."""

from __future__ import annotations

from pathlib import Path

import pytest

from studio.cli.main import main
from studio.init_project import init_project
from studio.status import WORDCOUNT_CACHE, cache_file, cache_folder


def _tree(root: Path) -> dict[str, tuple[int, int]]:
    return {str(p.relative_to(root)): (p.stat().st_size, p.stat().st_mtime_ns) for p in root.rglob("*")}


def test_status_writes_nothing_into_the_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    root = init_project(tmp_path / "novel", sample=True)
    before = _tree(root)
    assert main(["status", "--project", str(root)]) == 0
    assert main(["status", "--project", str(root)]) == 0
    assert _tree(root) == before
    assert "《" in capsys.readouterr().out
    cache = cache_file(root, WORDCOUNT_CACHE)
    assert cache.is_file() and cache.is_relative_to(tmp_path / "xdg")


def test_each_project_has_its_own_cache_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    a, b = tmp_path / "a", tmp_path / "b"
    assert cache_folder(a) != cache_folder(b)
    assert cache_folder(a) == cache_folder(tmp_path / "x" / ".." / "a")  # the resolved path names it
