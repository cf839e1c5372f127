"""Flows through the real studio on a real pseudo-terminal (the CLI as the author starts it, offline), the
screen read by pyte: write a chapter, undo it, review, quit mid-stream and resume after a restart.

Deterministic: every step waits for text on the screen or a fact on disk with a generous timeout; nothing
is timed. Each test owns its project under tmp_path and its own HOME.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from studio.init_project import init_project
from tests import pty_term
from tests.serve_client import serve_env

pytestmark = [
    pytest.mark.skipif(sys.platform == "win32", reason="needs a pty"),
    pytest.mark.serial,  # a child that does not quit is killed in `close`
    pytest.mark.xdist_group("serial"),
]


SIZE = (100, 30)


def _checkpoint(root: Path) -> dict[str, object]:
    try:
        data: dict[str, object] = json.loads((root / ".checkpoint.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data


def _last_completed(root: Path) -> object:
    return _checkpoint(root).get("last_completed_chapter")


@pytest.fixture
def novel(tmp_path: Path) -> Path:
    return init_project(tmp_path / "novel", sample=True)


@pytest.fixture
def studio(tmp_path: Path, novel: Path) -> Iterator[pty_term.PtyTerm]:
    term = pty_term.PtyTerm.spawn(pty_term.studio_argv(novel), size=SIZE, env=serve_env(tmp_path, 0.0))
    try:
        assert term.wait_for("大纲"), term.text()
        yield term
    finally:
        term.close()


def test_write_a_chapter_then_undo_it(studio: pty_term.PtyTerm, novel: Path) -> None:
    assert "2/10章" in studio.text()
    studio.press("c")
    assert studio.wait_until(lambda: _last_completed(novel) == 3 and "3/10章" in studio.text()), studio.text()
    assert (novel / "chapters" / "chapter-003.md").is_file()
    assert studio.wait_until(lambda: "运行中" not in studio.display()[0]), studio.text()  # the run has ended
    studio.settle()
    studio.press("u")
    assert studio.wait_for("撤销"), studio.text()
    studio.settle()
    studio.press("y")
    assert studio.wait_until(lambda: _last_completed(novel) == 2 and "2/10章" in studio.text()), studio.text()
    assert not (novel / "chapters" / "chapter-003.md").exists()
    studio.press("q")
    assert studio.wait_exit() == 0


def test_quit_mid_stream_then_resume_after_a_restart(tmp_path: Path, novel: Path) -> None:
    slow = pty_term.PtyTerm.spawn(pty_term.studio_argv(novel), size=SIZE, env=serve_env(tmp_path, 0.2))
    try:
        assert slow.wait_for("大纲"), slow.text()
        slow.press("c")
        assert slow.wait_for("写作中"), slow.text()  # the draft streams into the chapter pane
        slow.press("q")
        assert slow.wait_for("退出"), slow.text()
        slow.settle()
        slow.press("y")
        assert slow.wait_exit() == 0
    finally:
        slow.close()
    cp = _checkpoint(novel)
    assert cp.get("last_completed_chapter") == 2 and cp.get("inflight_chapter") == 3

    again = pty_term.PtyTerm.spawn(pty_term.studio_argv(novel), size=SIZE, env=serve_env(tmp_path, 0.0))
    try:
        assert again.wait_for("上次被中断"), again.text()  # asked at start-up: resume, later, discard
        again.settle()
        again.press("1")
        assert again.wait_until(lambda: _last_completed(novel) == 3), again.text()
        assert again.wait_for("3/10章"), again.text()
        again.settle()
        again.press("q")
        assert again.wait_exit() == 0
    finally:
        again.close()
    assert _checkpoint(novel).get("inflight_chapter") is None


def test_write_then_review_and_reject_every_edit(studio: pty_term.PtyTerm, novel: Path) -> None:
    studio.press("c")
    assert studio.wait_until(lambda: _last_completed(novel) == 3 and "3/10章" in studio.text()), studio.text()
    assert studio.wait_until(lambda: "运行中" not in studio.display()[0]), studio.text()  # the run has ended
    studio.settle()
    chapter = novel / "chapters" / "chapter-003.md"
    polished = chapter.read_text(encoding="utf-8")
    studio.press("r")
    # the review screen, its keys on the last line
    assert studio.wait_until(lambda: "润色审阅" in studio.text() and "全部拒绝" in studio.display()[-1]), studio.text()
    studio.settle()
    studio.press("d")
    assert studio.wait_until(lambda: "已接受 0" in studio.text() and "已拒绝 0" not in studio.text()), studio.text()
    studio.settle()
    studio.press("enter")
    assert studio.wait_until(lambda: chapter.read_text(encoding="utf-8") != polished), studio.text()
    assert studio.wait_for("润色审阅已应用"), studio.text()  # offered: rebuild the summary and state now or later
    studio.settle()
    studio.press("n")
    assert studio.wait_for("大纲"), studio.text()
    assert "深吸一口气" in chapter.read_text(encoding="utf-8")  # the blacklisted phrase the polish took out is back
    studio.settle()
    studio.press("q")
    assert studio.wait_exit() == 0


def _corner_colours(term: pty_term.PtyTerm) -> tuple[str, str] | None:
    """The colours of the outline pane's and the chapter pane's top-left border corners (on the row of the
    panes' titles; None before it is drawn): the focused pane's border is the accent colour."""
    for y, line in enumerate(term.display()):
        if "大纲" in line and "正文" in line:
            row = term.screen.buffer[y]
            corners = [x for x in range(term.screen.columns) if row[x].data == "╭"]
            return (row[corners[0]].fg, row[corners[1]].fg) if len(corners) >= 2 else None
    return None


def test_pane_switch_moves_the_accent_border_and_the_studio_goes_quiet(studio: pty_term.PtyTerm) -> None:
    """Keys `1` / `2` move the accent border between the panes (the `-focused` class, not `:focus-within`),
    and with either pane focused the studio stops writing: the chapter pane's text area no longer blinks an
    invisible cursor, which wrote a frame every 0.5 s while it had the focus."""
    studio.settle()
    studio.press("1")
    assert studio.wait_until(lambda: len(set(_corner_colours(studio) or ())) == 2), studio.text()
    studio.settle()
    outline_focused = _corner_colours(studio)
    assert outline_focused is not None
    studio.press("2")
    assert studio.wait_until(lambda: _corner_colours(studio) == outline_focused[::-1]), studio.text()
    # quiet: 1.5 s without a byte comes within a few tries (a 0.5 s blink never allowed it)
    assert any(not studio.pump(1.5) for _ in range(10)), "the studio kept writing with the chapter pane focused"
    studio.press("1")
    assert studio.wait_until(lambda: _corner_colours(studio) == outline_focused), studio.text()
    assert any(not studio.pump(1.5) for _ in range(10))
    studio.press("q")
    assert studio.wait_exit() == 0
