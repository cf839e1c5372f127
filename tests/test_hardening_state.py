"""Issue 11, "wedged or wrong state": each test fails on the code before the fix.

Torn changelog tails cut inside a character, checkpoints the disk contradicts, a missing state/ folder,
repeated changelog lines, state/changelog mismatches found only mid-commit, undo and rebuild that drop what
the log does not describe, a polish paid twice, temp files of interrupted writes outside staging, and
`status` silent about all of it. (The lock take-over guard of item 8: tests/test_lock_takeover.py.)
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest

from pipeline.commit import STATE_BEFORE, archive_dir, run_commit
from pipeline.decisions import take_recommended
from pipeline.orchestrator import Orchestrator, RunResult
from pipeline.rebuild import rebuild_chapter
from pipeline.undo import undo_last_chapter
from studio import fileio
from studio.cli.main import main
from studio.coldstart import ColdStartRefused, check_cold_start
from studio.errors import FormatError, StudioError
from studio.init_project import init_project
from studio.models.checkpoint import Checkpoint, PipelineStage
from studio.models.settings import Settings
from studio.models.state import CurrentState
from studio.paths import ProjectPaths
from studio.project import Project
from studio.state_engine import last_changelog_entry, load_changelog, load_state, replay
from studio.status import build_status
from tests.fake_agents import FakeAgents

# ---------------------------------------------------------------------------------------------- helpers


class Boom(BaseException):
    """A kill simulated in process: nothing after the hook runs (the lock is released by `finally`)."""


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return init_project(tmp_path / "novel", sample=True)


def run(root: Path, chapters: int = 1, *, hook: Any = None, **agent_args: Any) -> tuple[RunResult, FakeAgents]:
    agents = FakeAgents(ProjectPaths(root), **agent_args)
    orch = Orchestrator(root, agents, decider=take_recommended, emit=lambda e: None, settings=Settings(),
                        step_hook=hook)
    return asyncio.run(orch.run(chapters)), agents


def kill_at(step: str) -> Any:
    def hook(name: str) -> None:
        if name == step:
            raise Boom(step)
    return hook


def set_checkpoint(root: Path, **changes: Any) -> Checkpoint:
    paths = ProjectPaths(root)
    cp = Checkpoint.load(paths.checkpoint).model_copy(update=changes)
    paths.checkpoint.write_text(json.dumps(cp.to_data(), ensure_ascii=False), encoding="utf-8")
    return cp


def keys(root: Path) -> tuple[list[str], list[str]]:
    report = build_status(Project.open(root))
    return [b.key for b in report.blockers], [r.key for r in report.self_repairs]


def torn(line: bytes, *, multibyte: bool) -> bytes:
    """`line` cut short: inside a multi-byte character, or at an ASCII byte."""
    if multibyte:
        start = next(i for i, b in enumerate(line) if b >= 0xE0)  # the lead byte of a CJK character
        return line[: start + 1]
    return line[: line.index(b'"ops"')]


# ---------------------------------------------------------------------------------------------- 1. torn tail


@pytest.mark.parametrize("multibyte", [False, True], ids=["ascii-cut", "multibyte-cut"])
def test_torn_changelog_tail_is_repaired_wherever_it_is_cut(root: Path, multibyte: bool) -> None:
    paths = ProjectPaths(root)
    run(root)
    last = [line for line in paths.changelog.read_bytes().split(b"\n") if line.strip()][-1]
    with open(paths.changelog, "ab") as fh:
        fh.write(torn(last, multibyte=multibyte))

    blockers, repairs = keys(root)
    assert blockers == [] and repairs == ["changelog_torn"]  # status agrees with continue: it goes on
    result, _ = run(root)
    assert result.exit_code == 0 and result.committed == [4]
    entries = load_changelog(paths.changelog)
    assert [e.chapter for e in entries][-2:] == [3, 4]
    assert replay(entries).to_data() == load_state(paths).to_data()
    assert keys(root) == ([], [])


def test_a_torn_tail_points_at_repair(root: Path) -> None:
    paths = ProjectPaths(root)
    last = [line for line in paths.changelog.read_bytes().split(b"\n") if line.strip()][-1]
    with open(paths.changelog, "ab") as fh:
        fh.write(torn(last, multibyte=True))
    with pytest.raises(FormatError, match="novel-studio repair"):
        last_changelog_entry(paths.changelog)
    with pytest.raises(FormatError, match="novel-studio repair"):
        load_changelog(paths.changelog)


# ---------------------------------------------------------------------------------------------- 2. cold start


def test_a_checkpoint_ahead_of_the_chapters_is_refused(root: Path) -> None:
    paths = ProjectPaths(root)
    set_checkpoint(root, last_completed_chapter=7)
    before = paths.checkpoint.read_bytes()
    with pytest.raises(ColdStartRefused) as caught:
        run(root)
    assert "3-7" in str(caught.value) and ".checkpoint.json" in str(caught.value)  # what and the way out
    assert not paths.chapter(8).exists() and paths.checkpoint.read_bytes() == before
    assert not paths.lock_dir.exists()
    assert "chapters_missing" in keys(root)[0]


def test_an_absurd_inflight_chapter_is_refused_and_repair_clears_it(root: Path, capsys: Any) -> None:
    paths = ProjectPaths(root)
    set_checkpoint(root, inflight_chapter=99, pipeline_stage=PipelineStage.DRAFTING)
    with pytest.raises(ColdStartRefused, match="99"):
        run(root)
    assert not paths.chapter(99).exists() and not paths.staged_chapter(99).exists()
    assert keys(root)[0] == ["inflight_absurd"]

    assert main(["repair", "--yes", "--json", "--project", str(root)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [f["key"] for f in out["fixed"]] == ["inflight_reset"] and out["cannot"] == []
    assert Path(out["backup"], ".checkpoint.json").is_file()
    result, _ = run(root)
    assert result.committed == [3]


def test_a_chapter_already_on_disk_is_not_overwritten(root: Path) -> None:
    paths = ProjectPaths(root)
    paths.chapter(3).write_text("作者手写的第三章\n", encoding="utf-8")
    with pytest.raises(ColdStartRefused, match="chapter-003|第 3 章"):
        run(root)
    assert paths.chapter(3).read_text(encoding="utf-8") == "作者手写的第三章\n"


def test_a_log_ahead_of_the_checkpoint_is_refused(root: Path) -> None:
    run(root)
    set_checkpoint(root, last_completed_chapter=2)
    ProjectPaths(root).chapter(3).unlink()
    with pytest.raises(ColdStartRefused):
        run(root)
    assert "log_ahead" in keys(root)[0]


def test_cold_start_rules_are_a_table_per_orchestrator_state(root: Path) -> None:
    from studio.coldstart import COMMON, RULES
    from studio.models.checkpoint import OrchestratorState

    assert RULES[OrchestratorState.WRITING] and COMMON
    cp = Checkpoint.load(ProjectPaths(root).checkpoint).model_copy(
        update={"last_completed_chapter": 9, "orchestrator_state": OrchestratorState.QUICK_START}
    )
    # quick start writes its trial chapters: the writing rules hold there too (a checkpoint ahead of the disk)
    assert [f.key for f in check_cold_start(ProjectPaths(root), cp)] == ["chapters_missing"]
    planning = cp.model_copy(update={"orchestrator_state": OrchestratorState.VOL_PLANNING})
    # volume planning has the writing rules plus its own (tests/test_plan_apply.py)
    assert "planning_unfinished" in [f.key for f in check_cold_start(ProjectPaths(root), planning)]


# ---------------------------------------------------------------------------------------------- 3. state/


def test_a_missing_state_folder_is_an_error_not_a_restart(root: Path) -> None:
    paths = ProjectPaths(root)
    shutil.rmtree(paths.current_state.parent)
    with pytest.raises(ColdStartRefused, match="state/"):
        run(root)
    assert not paths.current_state.parent.exists()
    assert not paths.chapter(3).exists()
    assert keys(root)[0] == ["state_dir_missing"]


# ---------------------------------------------------------------------------------------------- 4. duplicates


def _duplicate_last_line(paths: ProjectPaths) -> None:
    lines = [line for line in paths.changelog.read_bytes().split(b"\n") if line.strip()]
    paths.changelog.write_bytes(b"".join(line + b"\n" for line in [*lines, lines[-1]]))


def test_a_duplicated_changelog_line_is_detected_and_repair_removes_it(root: Path, capsys: Any) -> None:
    paths = ProjectPaths(root)
    run(root)
    _duplicate_last_line(paths)
    with pytest.raises(FormatError, match="repeats"):
        last_changelog_entry(paths.changelog)
    with pytest.raises(ColdStartRefused, match="novel-studio repair"):
        run(root)
    assert not paths.chapter(4).exists()  # not built upon
    with pytest.raises(StudioError, match="novel-studio repair"):
        undo_last_chapter(paths)  # refuses clearly ...
    assert paths.chapter(3).exists()  # ... and changed nothing

    assert main(["repair", "--yes", "--project", str(root)]) == 0
    assert "重复" in capsys.readouterr().out
    undo_last_chapter(paths)
    assert not paths.chapter(3).exists()
    assert load_state(paths).state_version == 2


# ---------------------------------------------------------------------------------------------- 5. validate first


def test_a_mismatch_is_found_before_the_commit_moves_anything(root: Path) -> None:
    paths = ProjectPaths(root)
    with pytest.raises(Boom):
        run(root, hook=kill_at("commit:prepared"))
    assert ProjectPaths(root).staging.joinpath("commit-chapter-003.json").is_file()
    state = load_state(paths)
    state.model_copy(update={"state_version": state.state_version + 3}).save(paths.current_state)

    with pytest.raises(StudioError) as caught:
        run_commit(paths, 3)
    assert "novel-studio repair" in str(caught.value) and "replay" not in str(caught.value)
    assert not paths.chapter(3).exists()
    assert not archive_dir(paths, 3).exists()
    assert not paths.summary(3).exists()


def test_repair_rebuilds_a_state_behind_the_log_from_it_with_a_backup(root: Path, capsys: Any) -> None:
    paths = ProjectPaths(root)
    old = paths.current_state.read_bytes()
    run(root, 2)
    expected = paths.current_state.read_bytes()
    paths.current_state.write_bytes(old)  # two versions behind: a lost state write, say

    assert main(["repair", "--yes", "--json", "--project", str(root)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [f["key"] for f in out["fixed"]] == ["state_rebuilt"]
    assert paths.current_state.read_bytes() == expected
    assert Path(out["backup"], "state", "current-state.json").read_bytes() == old
    assert main(["repair", "--json", "--project", str(root)]) == 0  # nothing left
    assert json.loads(capsys.readouterr().out)["fixed"] == []


def test_repair_reports_what_it_cannot_fix(root: Path, capsys: Any) -> None:
    set_checkpoint(root, last_completed_chapter=7)
    assert main(["repair", "--yes", "--json", "--project", str(root)]) == 1
    out = json.loads(capsys.readouterr().out)
    assert [f["key"] for f in out["cannot"]] == ["chapters_missing"]


# ---------------------------------------------------------------------------------------------- 6. undo / rebuild


def _log_without_start(paths: ProjectPaths) -> None:
    """As another tool leaves it: the changelog without its init snapshot line."""
    lines = [line for line in paths.changelog.read_bytes().split(b"\n") if line.strip()]
    assert json.loads(lines[0])["kind"] == "init"
    paths.changelog.write_bytes(b"".join(line + b"\n" for line in lines[1:]))


def test_undo_keeps_what_the_changelog_does_not_describe(root: Path) -> None:
    paths = ProjectPaths(root)
    before = load_state(paths).to_data()
    assert before["characters"]  # the sample's starting characters come from the init snapshot
    run(root)
    assert (archive_dir(paths, 3) / STATE_BEFORE).is_file()
    _log_without_start(paths)
    undo_last_chapter(paths)
    assert load_state(paths).to_data() == before


def test_undo_refuses_rather_than_recompute_from_empty(root: Path) -> None:
    paths = ProjectPaths(root)
    run(root)
    _log_without_start(paths)
    (archive_dir(paths, 3) / STATE_BEFORE).unlink()  # a chapter committed by an older version
    state = paths.current_state.read_bytes()
    with pytest.raises(StudioError, match="变更日志没有记录完整的状态"):
        undo_last_chapter(paths)
    assert paths.chapter(3).exists() and paths.current_state.read_bytes() == state


def test_rebuild_keeps_what_the_changelog_does_not_describe_and_a_backup(root: Path) -> None:
    paths = ProjectPaths(root)
    run(root)
    _log_without_start(paths)
    characters = load_state(paths).to_data()["characters"]
    result = asyncio.run(rebuild_chapter(root, 3, FakeAgents(paths)))
    state = load_state(paths).to_data()
    assert state["characters"].keys() == characters.keys()
    assert state["characters"]["shen-zhao"]["display_name"] == "沈照"
    assert result.backup_dir is not None
    assert (result.backup_dir / "state" / "changelog.jsonl").is_file()
    assert (result.backup_dir / "state" / "current-state.json").is_file()


# ---------------------------------------------------------------------------------------------- 7. polish


def test_a_kill_after_the_polish_does_not_polish_again(root: Path, tmp_path: Path) -> None:
    reference = init_project(tmp_path / "reference", sample=True)
    run(reference, scores={3: [3.7]})
    with pytest.raises(Boom):
        run(root, hook=kill_at("polish"), scores={3: [3.7]})
    result, agents = run(root, scores={3: [3.7]})
    assert result.committed == [3]
    assert ("polish", 3) not in agents.log  # not paid twice
    paths = ProjectPaths(root)
    assert paths.chapter(3).read_bytes() == ProjectPaths(reference).chapter(3).read_bytes()


# ---------------------------------------------------------------------------------------------- 16. status


def test_status_says_what_continue_would_refuse(root: Path) -> None:
    paths = ProjectPaths(root)
    assert keys(root) == ([], [])
    paths.settings.write_text("[provider\n", encoding="utf-8")
    paths.chapter(2).write_text("", encoding="utf-8")
    blockers, _ = keys(root)
    assert blockers == ["settings_invalid", "chapters_empty"]
    paths.chapter(2).unlink()
    assert keys(root)[0] == ["settings_invalid", "chapters_missing"]
    from studio.status import render_status

    text = render_status(build_status(Project.open(root)), "en")
    assert "continue would refuse" in text and "novel-studio.toml" in text


def test_status_json_carries_the_findings(root: Path, capsys: Any) -> None:
    set_checkpoint(root, inflight_chapter=99, pipeline_stage=PipelineStage.DRAFTING)
    assert main(["status", "--json", "--project", str(root)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [b["key"] for b in data["blockers"]] == ["inflight_absurd"]


# ---------------------------------------------------------------------------------------------- 18. temp files


def test_temp_files_of_interrupted_writes_are_swept_project_wide(root: Path) -> None:
    paths = ProjectPaths(root)
    left = [
        root / "chapters" / ".chapter-002.md.k2j4x9_q.tmp",
        paths.current_state.parent / ".current-state.json.ab12cd34.tmp",
        root / ".checkpoint.json.zz99yy88.tmp",
    ]
    for path in left:
        path.write_text("half", encoding="utf-8")
    keep = root / "chapters" / ".my-notes.tmp"  # not a name the atomic writer makes
    keep.write_text("mine", encoding="utf-8")
    result, _ = run(root)
    assert result.committed == [3]
    assert [p for p in left if p.exists()] == []
    assert keep.exists()


def test_a_temp_file_being_written_is_not_swept(tmp_path: Path) -> None:
    inflight = tmp_path / ".x.md.abcdefgh.tmp"
    inflight.write_text("being written")
    fileio._in_flight.add(str(inflight))
    try:
        assert fileio.find_temp_files(tmp_path) == []
    finally:
        fileio._in_flight.discard(str(inflight))
    assert fileio.find_temp_files(tmp_path) == [inflight]


def test_tests_write_temp_folders_under_pytest_basetemp(tmp_path_factory: pytest.TempPathFactory) -> None:
    base = tmp_path_factory.getbasetemp().resolve()
    assert Path(tempfile.gettempdir()).resolve().is_relative_to(base)
    assert Path(os.environ["TMPDIR"]).resolve().is_relative_to(base)


def test_current_state_model_still_loads_a_snapshot(root: Path) -> None:
    run(root)
    snapshot = CurrentState.load(archive_dir(ProjectPaths(root), 3) / STATE_BEFORE)
    assert snapshot.state_version == 2


def test_chapters_without_a_checkpoint_are_not_overwritten(root: Path) -> None:
    paths = ProjectPaths(root)
    paths.checkpoint.unlink()  # a project brought from another tool: chapters, no checkpoint
    text = paths.chapter(1).read_bytes()
    with pytest.raises(ColdStartRefused) as caught:
        run(root)
    assert "1-2" in str(caught.value) and "last_completed_chapter" in str(caught.value)
    assert paths.chapter(1).read_bytes() == text
