"""A quick start whose own files cannot be read (issue 11): it used to wedge the project. The cold start said to
run `start`, and `start` failed on the same file with a bare error. Now every command names the file and the
problem, `start --restart` sets the broken progress file aside (backed up with everything the quick start
wrote, never deleted) and begins again, and a broken request file is backed up and replaced by this run's
options, said aloud."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from studio.cli.main import main
from studio.coldstart import check_cold_start, refusals
from studio.models.checkpoint import Checkpoint, OrchestratorState
from studio.paths import ProjectPaths
from studio.planning.quick_start_progress import (
    QuickStartProgress,
    load_progress,
    progress_path,
    request_path,
    save_progress,
)
from tests.quick_start_helpers import BRIEF_ARGS, assert_quick_start_done, briefed_project

BROKEN: dict[str, bytes] = {
    "truncated": b'{"done": ["world", "charac',
    "empty": b"",
    "not_utf8": b'{"done": ["\xff\xfe"]}',
    "wrong_type": b'{"done": "world"}',
    "not_an_object": b"[1, 2]",
}


@pytest.mark.parametrize("kind", sorted(BROKEN))
def test_every_command_names_the_broken_progress_file_and_the_way_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str
) -> None:
    root = briefed_project(tmp_path)
    paths = ProjectPaths(root)
    progress_path(paths).parent.mkdir(parents=True, exist_ok=True)
    progress_path(paths).write_bytes(BROKEN[kind])
    before = sorted(p.relative_to(root) for p in root.rglob("*"))

    assert [f.key for f in refusals(check_cold_start(paths))] == ["quick_start_unreadable"]
    assert main(["continue", "--project", str(root), "--offline", "--yes"]) == 1
    err = capsys.readouterr().err
    assert "quick-start-progress.json" in err and "novel-studio start --restart" in err

    assert main(["start", str(root), "--offline", "--yes"]) == 1  # `--yes` alone never begins again
    err = capsys.readouterr().err
    assert "quick-start-progress.json" in err and "无法读取" in err and "novel-studio start --restart" in err
    assert "Traceback" not in err

    assert main(["start", str(root), "--offline", "--restart", "--json"]) == 3  # no terminal: asks, changes nothing
    question = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert question["event"] == "question" and question["kind"] == "restart"
    assert progress_path(paths).read_bytes() == BROKEN[kind]
    assert sorted(p.relative_to(root) for p in root.rglob("*")) == before

    assert main(["repair", "--yes", "--project", str(root)]) == 1  # repair points at the same way out
    assert "novel-studio start --restart" in capsys.readouterr().out


def test_start_restart_sets_the_broken_file_aside_and_the_quick_start_completes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "n"
    # a quick start that stopped at the trial confirmation: chapters 1-3 committed, the progress file there
    assert main(["start", str(root), "--offline", "--json", *BRIEF_ARGS]) == 3
    paths = ProjectPaths(root)
    assert load_progress(paths) is not None
    chapter_one = paths.chapter(1).read_bytes()
    broken = progress_path(paths).read_bytes()[:-7]  # cut short, as a full disk leaves it
    progress_path(paths).write_bytes(broken)
    capsys.readouterr()

    assert main(["start", str(root), "--offline", "--restart", "--yes"]) == 0
    out = capsys.readouterr().out
    assert "旧文件已备份到" in out and "快速起步完成" in out
    (backup,) = (root / ".novel-studio" / "quick-start-backup").iterdir()
    assert (backup / ".novel-studio" / "quick-start-progress.json").read_bytes() == broken
    assert (backup / "chapters" / "chapter-001.md").read_bytes() == chapter_one
    assert_quick_start_done(root)
    assert load_progress(paths) is None
    assert Checkpoint.load(paths.checkpoint).orchestrator_state is OrchestratorState.VOL_PLANNING
    assert "quick_start_unreadable" not in {f.key for f in check_cold_start(paths)}


def test_a_broken_request_file_is_backed_up_and_this_runs_options_are_used(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = briefed_project(tmp_path)
    paths = ProjectPaths(root)
    save_progress(paths, QuickStartProgress(done=["world"]))
    request_path(paths).write_bytes(b'{"style_source": "samples", "volume_length": "many"}')

    assert main(["start", str(root), "--offline", "--json", "--style", "preset", "--preset", "冷峻悬疑"]) == 3
    lines = [json.loads(line) for line in capsys.readouterr().out.strip().splitlines()]
    assert lines[-1]["kind"] == "trial_confirm"  # it went on from the world step
    (saved,) = (root / ".novel-studio" / "quick-start-backup").glob("quick-start-*.json")
    assert saved.read_bytes() == b'{"style_source": "samples", "volume_length": "many"}'
    stored = json.loads(request_path(paths).read_text(encoding="utf-8"))
    assert stored["style_source"] == "preset" and stored["preset"] == "冷峻悬疑"


def test_a_broken_request_file_is_said_in_chinese(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = briefed_project(tmp_path)
    paths = ProjectPaths(root)
    save_progress(paths, QuickStartProgress(done=["world"]))
    request_path(paths).write_bytes(b"\xff")
    # this run's options are not usable either: a usage error, the broken file left as it is
    assert main(["start", str(root), "--offline", "--yes", "--style", "preset", "--preset", "无此基调"]) == 2
    err = capsys.readouterr().err
    assert "快速起步选项有误：风格来源为 preset（预置基调）时基调应为以下之一" in err and "style_source" not in err
    assert request_path(paths).read_bytes() == b"\xff"
