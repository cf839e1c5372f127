"""The replayed state kept between starts (`studio.views.replay_cache`, issue 12 "fast start"): the first
screen's state diff needs no replay of the whole changelog, and any change to the log or to the replay code
makes the kept state stale (the diff is always the one a replay from the start gives)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from studio.project import Project
from studio.status import cache_file
from studio.views import replay_cache, state_diff
from studio.views.replay_cache import REPLAY_CACHE
from studio.views.state_diff import StateDiff, state_diff_for_chapter
from tests.test_synth import load_synth

CHAPTERS = 30


@pytest.fixture(scope="module")
def synth_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("synth-replay") / "novel"
    load_synth().generate_project(root, CHAPTERS, chars_per_chapter=400, seed=3)
    return root


@pytest.fixture
def novel(synth_template: Path, tmp_path: Path) -> Path:
    root = tmp_path / "novel"
    shutil.copytree(synth_template, root)
    return root


def new_start() -> None:
    """What a new process starts with: no memo of this one."""
    state_diff._state_memo.clear()
    state_diff._changelog_memo.clear()
    replay_cache.forget()


@pytest.fixture(autouse=True)
def fresh_process() -> Iterator[None]:
    new_start()
    yield
    new_start()


@pytest.fixture
def full_replays(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The versions replayed from the log's start (`state_engine.replay` as `state_diff` calls it)."""
    calls: list[int] = []
    original = state_diff.replay

    def counting(entries: object, upto_version: int | None = None, **kwargs: object) -> object:
        calls.append(upto_version if upto_version is not None else -1)
        return original(entries, upto_version, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(state_diff, "replay", counting)
    return calls


def cold_diff(root: Path, n: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> StateDiff | None:
    """Chapter n's diff from a replay from the start: another user cache, no memo."""
    with monkeypatch.context() as m:
        m.setenv("XDG_CACHE_HOME", str(tmp_path / "elsewhere-cache"))
        new_start()
        diff = state_diff_for_chapter(Project.open(root), n)
    new_start()
    return diff


def test_the_next_start_shows_the_last_diff_without_a_full_replay(
    novel: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, full_replays: list[int]
) -> None:
    first = state_diff_for_chapter(Project.open(novel), CHAPTERS)
    assert first is not None and first.entities
    assert len(full_replays) == 1
    kept = cache_file(novel, REPLAY_CACHE)
    assert kept.is_file() and not kept.is_relative_to(novel)  # in the user's cache, never the author's folder
    new_start()
    assert state_diff_for_chapter(Project.open(novel), CHAPTERS) == first
    assert len(full_replays) == 1  # the second start replayed nothing from the start
    assert cold_diff(novel, CHAPTERS, tmp_path, monkeypatch) == first


def _log_lines(root: Path) -> list[bytes]:
    return (root / "state" / "changelog.jsonl").read_bytes().splitlines(keepends=True)


def test_lines_appended_since_are_replayed_on_from_the_kept_state(
    novel: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, full_replays: list[int]
) -> None:
    log = novel / "state" / "changelog.jsonl"
    whole = log.read_bytes()
    lines = _log_lines(novel)
    log.write_bytes(b"".join(lines[:-3]))  # as the log was three chapters ago
    project = Project.open(novel)
    earlier = CHAPTERS - 3
    assert state_diff_for_chapter(project, earlier) is not None
    assert len(full_replays) == 1
    log.write_bytes(whole)  # three chapters committed since
    new_start()
    diff = state_diff_for_chapter(Project.open(novel), CHAPTERS)
    assert len(full_replays) == 1  # replayed on from the kept state, not from the start
    assert diff == cold_diff(novel, CHAPTERS, tmp_path, monkeypatch)


def test_an_earlier_line_changed_makes_the_kept_state_stale(
    novel: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, full_replays: list[int]
) -> None:
    log = novel / "state" / "changelog.jsonl"
    state_diff_for_chapter(Project.open(novel), CHAPTERS)
    kept_before = replay_cache.kept_state(novel, log.read_bytes())
    assert kept_before is not None
    # An edit by hand of an early line that keeps the file's size and its mtime: still seen.
    st = log.stat()
    raw = log.read_bytes()
    edited = raw.replace(b'"value":5}', b'"value":7}', 1)
    assert edited != raw and len(edited) == len(raw)
    log.write_bytes(edited)
    os.utime(log, ns=(st.st_atime_ns, st.st_mtime_ns))
    new_start()
    assert replay_cache.kept_state(novel, edited) is None
    diff = state_diff_for_chapter(Project.open(novel), CHAPTERS)
    assert len(full_replays) == 2  # replayed from the start again
    assert diff == cold_diff(novel, CHAPTERS, tmp_path, monkeypatch)
    new_start()
    kept_after = replay_cache.kept_state(novel, edited)  # the new replay is kept in its place
    assert kept_after is not None and kept_after != kept_before


def test_an_undo_that_shortens_the_log_is_not_served_a_later_state(
    novel: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = novel / "state" / "changelog.jsonl"
    state_diff_for_chapter(Project.open(novel), CHAPTERS)  # keeps the state after chapter 29
    lines = _log_lines(novel)
    log.write_bytes(b"".join(lines[:-1]))  # chapter 30 undone: the state after 29 still holds
    new_start()
    assert replay_cache.kept_state(novel, log.read_bytes()) is not None
    log.write_bytes(b"".join(lines[:-2]))  # and 29: it is gone from the log, the kept state with it
    new_start()
    assert replay_cache.kept_state(novel, log.read_bytes()) is None
    diff = state_diff_for_chapter(Project.open(novel), CHAPTERS - 2)
    assert diff is not None and diff == cold_diff(novel, CHAPTERS - 2, tmp_path, monkeypatch)


def test_other_replay_code_makes_the_kept_state_stale(
    novel: Path, monkeypatch: pytest.MonkeyPatch, full_replays: list[int]
) -> None:
    first = state_diff_for_chapter(Project.open(novel), CHAPTERS)
    new_start()
    monkeypatch.setattr(replay_cache, "code_digest", lambda: "another-version-of-the-state-engine")
    assert state_diff_for_chapter(Project.open(novel), CHAPTERS) == first
    assert len(full_replays) == 2


@pytest.mark.parametrize("content", [b"", b"{not json", "坏".encode("gbk"), b'{"format": 1, "log_bytes": -4}',
                                     b'{"format": 99, "code": "x", "log_bytes": 1, "log_digest": "y"}'])
def test_a_broken_cache_file_is_no_cache_and_is_replaced(
    novel: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, full_replays: list[int], content: bytes
) -> None:
    kept = cache_file(novel, REPLAY_CACHE)
    kept.parent.mkdir(parents=True, exist_ok=True)
    kept.write_bytes(content)
    diff = state_diff_for_chapter(Project.open(novel), CHAPTERS)
    assert len(full_replays) == 1
    assert diff == cold_diff(novel, CHAPTERS, tmp_path, monkeypatch)
    new_start()
    assert replay_cache.kept_state(novel, (novel / "state" / "changelog.jsonl").read_bytes()) is not None


def test_a_cache_that_cannot_be_written_is_skipped(novel: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x", encoding="utf-8")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))  # the cache folder cannot be made
    diff = state_diff_for_chapter(Project.open(novel), CHAPTERS)
    assert diff is not None and diff.entities


def test_line_ends_match_the_parsed_entries() -> None:
    raw = b'{"a":1}\n\n  \n{"b":2}\n{"c":3}'
    assert replay_cache.line_ends(raw) == [8, 20, len(raw)]
    assert replay_cache.line_ends(b"") == []
