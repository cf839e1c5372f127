"""The state pane at a start and the changelog's memo (issue 12, "Fast start"):

- until the process has parsed the changelog, a chapter whose line comes after the state kept between starts
  (`studio.views.replay_cache`) parses only the lines after it: the first paint shows the last chapter's diff
  without parsing the whole log (500 chapters: most of the state pane's time at a start);
- whatever it parses, the diff (or the error) is the one a parse and replay of the whole log gives;
- the parsed log is memoised by the file's stat (size, mtime, ctime, inode) and, while the file was modified
  too recently for its stat to be trusted, by its bytes: a hand edit that keeps size and mtime is seen.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from studio.errors import StudioError
from studio.project import Project
from studio.views import replay_cache, state_diff
from studio.views.state_diff import StateDiff, state_diff_for_chapter
from tests.test_synth import load_synth

CHAPTERS = 30


@pytest.fixture(scope="module")
def synth_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("synth-start") / "novel"
    load_synth().generate_project(root, CHAPTERS, chars_per_chapter=400, seed=4)
    return root


@pytest.fixture
def novel(synth_template: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    root = tmp_path / "novel"
    shutil.copytree(synth_template, root)
    return root


def new_start() -> None:
    """What a new process starts with: no memo of this one (the user cache stays)."""
    state_diff.forget_replays()
    state_diff._changelog_memo.clear()
    replay_cache.forget()


@pytest.fixture(autouse=True)
def fresh_process() -> Iterator[None]:
    new_start()
    yield
    new_start()


@pytest.fixture
def parsed(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The number of bytes of changelog each `parse_changelog` call of the state pane parsed."""
    sizes: list[int] = []
    original = state_diff.parse_changelog

    def counting(raw: bytes, path: Path | str, **kwargs: bool) -> object:
        sizes.append(len(raw))
        return original(raw, path, **kwargs)

    monkeypatch.setattr(state_diff, "parse_changelog", counting)
    return sizes


def log_of(root: Path) -> Path:
    return root / "state" / "changelog.jsonl"


def outcome(root: Path, n: int) -> StateDiff | str | None:
    try:
        return state_diff_for_chapter(Project.open(root), n)
    except StudioError as exc:
        return f"{type(exc).__name__}: {exc.text('en')}"


def cold(root: Path, n: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> StateDiff | str | None:
    """Chapter n's diff (or error) from the whole log parsed and replayed: another user cache, no memo."""
    with monkeypatch.context() as m:
        m.setenv("XDG_CACHE_HOME", str(tmp_path / "elsewhere-cache"))
        new_start()
        result = outcome(root, n)
    new_start()
    return result


def test_a_start_parses_only_the_lines_after_the_kept_state(
    novel: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, parsed: list[int]
) -> None:
    """Before: every start parsed the whole changelog for the last chapter's diff."""
    whole = log_of(novel).read_bytes()
    first = outcome(novel, CHAPTERS)
    assert isinstance(first, StateDiff) and first.entities
    assert parsed == [len(whole)]  # no kept state yet: the whole log
    new_start()
    parsed.clear()
    assert outcome(novel, CHAPTERS) == first
    last_line = len(whole.splitlines(keepends=True)[-1])
    assert parsed and sum(parsed) <= last_line, (parsed, last_line)
    assert first == cold(novel, CHAPTERS, tmp_path, monkeypatch)


def test_lines_appended_since_are_parsed_and_the_kept_state_moves_on(
    novel: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, parsed: list[int]
) -> None:
    log = log_of(novel)
    whole = log.read_bytes()
    lines = whole.splitlines(keepends=True)
    log.write_bytes(b"".join(lines[:-5]))  # as the log was five chapters ago
    assert isinstance(outcome(novel, CHAPTERS - 5), StateDiff)
    log.write_bytes(whole)  # five chapters committed since
    new_start()
    parsed.clear()
    diff = outcome(novel, CHAPTERS)
    assert sum(parsed) <= sum(len(line) for line in lines[-6:])
    assert diff == cold(novel, CHAPTERS, tmp_path, monkeypatch)
    kept = replay_cache.kept_prefix(novel, whole)
    assert kept is not None and kept[1].state_version == len(lines) - 2  # the state before the last chapter
    new_start()
    parsed.clear()
    assert outcome(novel, CHAPTERS) == diff
    assert sum(parsed) <= len(lines[-1])


def test_a_chapter_before_the_kept_state_parses_the_whole_log(
    novel: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, parsed: list[int]
) -> None:
    outcome(novel, CHAPTERS)
    new_start()
    parsed.clear()
    diff = outcome(novel, 10)
    assert len(log_of(novel).read_bytes()) in parsed
    assert diff == cold(novel, 10, tmp_path, monkeypatch)


@pytest.mark.parametrize("appended", ["torn", "not json", "repeat", "foreign", "init", "gap"])
def test_what_the_new_lines_break_is_reported_as_by_the_whole_log(
    novel: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, appended: str
) -> None:
    """The kept state answers only for new lines that parse, are plain and follow on; otherwise the whole log
    is parsed and replayed, with its error (and line number) or its diff."""
    log = log_of(novel)
    lines = log.read_bytes().splitlines(keepends=True)
    log.write_bytes(b"".join(lines[:-1]))
    outcome(novel, CHAPTERS - 1)  # keeps the state before chapter 29
    last = lines[-1]
    extra = {
        "torn": last[: len(last) // 2],
        "not json": b"{oops}\n" + last,
        "repeat": lines[-2] + last,
        "foreign": b'{"kind": "foreign", "tool": "other"}\n' + last,
        "init": last.replace(b'"kind":"patch"', b'"kind":"init"', 1),
        "gap": last.replace(b'"base_state_version":', b'"base_state_version":1', 1),
    }[appended]
    log.write_bytes(b"".join(lines[:-1]) + extra)
    new_start()
    assert outcome(novel, CHAPTERS) == cold(novel, CHAPTERS, tmp_path, monkeypatch)


@pytest.mark.parametrize("same_stat", [False, True], ids=["ctime differs", "stat identical (racy window)"])
def test_a_hand_edit_that_keeps_size_and_mtime_is_seen(
    novel: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, same_stat: bool
) -> None:
    """Before: the parsed log was memoised by (size, mtime) alone, so a rewrite of the same size in the same
    timestamp tick, within one process, kept showing the old diff. `stat identical`: even a file system that
    keeps every stat field as it was is caught while the file is within the racy window (its bytes compared)."""
    log = log_of(novel)
    raw = log.read_bytes()
    log.write_bytes(raw)  # written just now, as a commit or a hand edit leaves it: within the racy window
    project = Project.open(novel)
    state_diff_for_chapter(project, 10)  # the whole log parsed and memoised
    before = state_diff_for_chapter(project, CHAPTERS)
    st = log.stat()
    head, last = raw.rsplit(b"\n", 2)[0], raw.split(b"\n")[-2]
    assert b'"value":10}' in last
    edited = head + b"\n" + last.replace(b'"value":10}', b'"value":70}', 1) + b"\n"  # chen-lao +70, not +10
    assert len(edited) == len(raw) and edited != raw
    if same_stat:  # a file system whose stat shows nothing of the rewrite
        key = state_diff._stat(log)
        monkeypatch.setattr(state_diff, "_stat", lambda path: key if path == log else None)
    log.write_bytes(edited)
    os.utime(log, ns=(st.st_atime_ns, st.st_mtime_ns))
    after = outcome(novel, CHAPTERS)
    assert isinstance(after, StateDiff) and after != before
    if same_stat:
        monkeypatch.undo()
    assert after == cold(novel, CHAPTERS, tmp_path, monkeypatch)


def test_a_log_read_after_the_racy_window_is_not_read_again(novel: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    log = log_of(novel)
    past = log.stat().st_mtime_ns - 10 * state_diff.RACY_NS
    os.utime(log, ns=(past, past))
    project = Project.open(novel)
    first = state_diff_for_chapter(project, 10)
    reads: list[Path] = []
    original = state_diff._read
    def reading(path: Path) -> tuple[bytes, bool] | None:
        reads.append(path)
        return original(path)

    monkeypatch.setattr(state_diff, "_read", reading)
    assert state_diff_for_chapter(project, 10) == first
    assert reads == []


def test_warm_parses_the_whole_log_once_so_a_selection_parses_nothing(
    novel: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, parsed: list[int]
) -> None:
    """The studio warms the log in a thread after its first paint (which parsed only the newest lines)."""
    outcome(novel, CHAPTERS)
    new_start()
    assert isinstance(outcome(novel, CHAPTERS), StateDiff)  # the first paint: the newest lines only
    state_diff.warm(log_of(novel))
    parsed.clear()
    diff = outcome(novel, 10)
    assert parsed == []
    assert diff == cold(novel, 10, tmp_path, monkeypatch)


def test_warm_leaves_a_broken_log_to_the_pane(novel: Path) -> None:
    log = log_of(novel)
    log.write_bytes(log.read_bytes() + b"{oops}\n")
    state_diff.warm(log)  # no error here: the pane shows it, with its line, when the chapter is shown
    assert isinstance(outcome(novel, 10), str)
