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


def test_spend_ledger_totals_cached_until_the_ledger_changes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A new `status` process reads the ledger's totals from the cache while the ledger is unchanged; a line
    appended, or a cache of another shape, makes it read the ledger again."""
    import studio.status as status
    from studio.fileio import append_line, atomic_write_json, read_json
    from studio.project import Project

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    root = init_project(tmp_path / "novel", sample=True)
    ledger = root / "logs" / "spend.jsonl"
    reads: list[Path] = []
    real = status.spend_totals

    def counted(path: Path) -> status.SpendTotals:
        reads.append(path)
        return real(path)

    monkeypatch.setattr(status, "spend_totals", counted)
    first = status.build_status(Project.open(root))
    second = status.build_status(Project.open(root))
    assert len(reads) == 1
    assert (second.cost_usd, second.input_tokens, second.output_tokens) == (
        first.cost_usd, first.input_tokens, first.output_tokens)

    append_line(ledger, '{"at": "2026-01-01T00:00:00", "agent": "writer", "model": "m", "input_tokens": 1000, '
                        '"output_tokens": 500, "cost_usd": 1.25}')
    third = status.build_status(Project.open(root))
    assert len(reads) == 2
    assert third.input_tokens == first.input_tokens + 1000 and third.output_tokens == first.output_tokens + 500
    assert third.cost_usd == pytest.approx(first.cost_usd + 1.25)

    cache = cache_file(root, status.LEDGER_CACHE)
    data = read_json(cache)
    data["entries"]["spend.jsonl"][2]["cost_usd"] = "a lot"  # not a number: rebuilt, never believed
    atomic_write_json(cache, data)
    fourth = status.build_status(Project.open(root))
    assert len(reads) == 3 and fourth.cost_usd == third.cost_usd
