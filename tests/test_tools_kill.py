"""A tool change killed at any write point (SIGKILL, `NOVEL_STUDIO_FAULT_WRITE`) leaves the project either
as before or, once resumed, exactly as after the uninterrupted change: a rename with a new slug (files
moved, state, relationships, storylines, outline, contracts) and a retire. Not `serial`: each forked child
kills itself at its own write point in its own folder (see tests/conftest.py)."""

from __future__ import annotations

import os
import shutil
import signal
from collections.abc import Callable
from pathlib import Path

import pytest

from studio import fileio
from studio.init_project import init_project
from studio.paths import ProjectPaths
from studio.tools import shared
from studio.tools.characters import add_character, rename_character, retire_character
from studio.tools.plan import ToolPlan
from studio.tools.txn import apply_changes, journal_dir, resume_tool_changes
from tests.fault_runner import forked, tree_bytes

COMPARED = ("characters", "state", "storylines", "volumes", "world", "chapters", "foreshadowing")
FROZEN = "2026-01-01T00:00:00+00:00"


def _snapshot(root: Path) -> dict[str, bytes]:
    return tree_bytes(root, COMPARED, skip_temp=True)


def _child(root: Path, change: Callable[[ProjectPaths], ToolPlan] | None, fault: int | None,
           count: Path | None = None) -> int:
    def body() -> int:
        shared._now = lambda: FROZEN  # the only clocks in the compared files
        paths = ProjectPaths(root)
        fileio.sweep_temp_files(root)  # what every tool command does first, under the lock (studio.cli.tool_run)
        resume_tool_changes(paths)
        if change is not None:
            plan = change(paths)
            apply_changes(plan.changes, command=plan.command, summary=plan.title)
        return 0

    return forked(body, fault, count)


def _kill_everywhere(start: Path, tmp_path: Path, change: Callable[[ProjectPaths], ToolPlan]) -> None:
    before = _snapshot(start)
    reference = tmp_path / "reference"
    shutil.copytree(start, reference)
    count = tmp_path / "writes.txt"
    assert _child(reference, change, None, count) == 0
    writes = int(count.read_text())
    after = _snapshot(reference)
    assert after != before and writes >= 6
    failures: list[str] = []
    for n in range(1, writes + 1):
        root = tmp_path / f"kill-{n}"
        shutil.copytree(start, root)
        if (code := _child(root, change, n)) != -signal.SIGKILL:
            failures.append(f"write {n}: ended with {code}, not SIGKILL")
            continue
        killed = _snapshot(root)
        if killed not in (before, after) and not list(journal_dir(ProjectPaths(root)).glob("*.json")):
            failures.append(f"write {n}: half applied and no journal")
        if (code := _child(root, None, None)) != 0:  # the next start resumes (or drops) it
            failures.append(f"write {n}: resume exited {code}")
            continue
        got = _snapshot(root)
        if got not in (before, after):
            differ = sorted(k for k in after.keys() | got.keys() if after.get(k) != got.get(k))
            failures.append(f"write {n}: neither before nor after: {differ}")
        leftovers = [p for p in (root / "staging" / "tools").rglob("*")] if (root / "staging" / "tools").exists() else []
        if leftovers:
            failures.append(f"write {n}: staging left: {leftovers}")
        shutil.rmtree(root)
    assert not failures, "\n".join(failures)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork and SIGKILL")
def test_kill_mid_rename_resumes_or_rolls_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(fileio.NO_FSYNC_ENV, "1")
    start = init_project(tmp_path / "novel", sample=True)
    _kill_everywhere(start, tmp_path, lambda paths: rename_character(paths, "shen-zhao", "沈昭", new_slug="shen-zhao-2"))


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork and SIGKILL")
def test_kill_mid_retire_resumes_or_rolls_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(fileio.NO_FSYNC_ENV, "1")
    start = init_project(tmp_path / "novel", sample=True)
    paths = ProjectPaths(start)
    plan = add_character(paths, "周衡", role="反派")
    apply_changes(plan.changes, command=plan.command)
    _kill_everywhere(start, tmp_path, lambda paths: retire_character(paths, "zhou-heng", reason="离开"))


def test_continue_finishes_an_interrupted_tool_change_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from studio.cli.main import main
    from studio.coldstart import check_cold_start, refusals
    from studio.models.character import CharacterFile

    root = init_project(tmp_path / "novel", sample=True)
    paths = ProjectPaths(root)
    plan = rename_character(paths, "shen-zhao", "沈昭")

    def cut(step: str) -> None:
        if step == "journal":
            raise KeyboardInterrupt  # stands for a kill right after the commit point

    with pytest.raises(KeyboardInterrupt):
        apply_changes(plan.changes, command=plan.command, hook=cut)
    assert CharacterFile.load(paths.character("shen-zhao")).display_name == "沈照"  # nothing applied yet
    findings = check_cold_start(paths)
    assert [f.key for f in findings if f.key == "tool_change_pending"] and not refusals(findings)
    assert main(["continue", "1", "--project", str(root), "--offline", "--yes"]) == 0
    assert CharacterFile.load(paths.character("shen-zhao")).display_name == "沈昭"
    assert not list(journal_dir(paths).glob("*.json"))
