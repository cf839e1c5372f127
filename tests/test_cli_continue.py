"""`novel-studio continue` and `novel-studio undo` through main(), with fake agents injected."""

from __future__ import annotations

import functools
import json
from pathlib import Path

import pytest

from studio.cli import continue_cmd
from studio.cli.main import main
from studio.init_project import init_project
from studio.lock import ProjectLock
from studio.models.checkpoint import Checkpoint
from studio.paths import ProjectPaths
from tests.fake_agents import FakeAgents


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return init_project(tmp_path / "novel", sample=True)


def use_fake(monkeypatch: pytest.MonkeyPatch, **kwargs: object) -> list[FakeAgents]:
    made: list[FakeAgents] = []

    def factory(root: Path, settings: object, offline: bool) -> FakeAgents:
        agents = FakeAgents(ProjectPaths(root), **kwargs)  # type: ignore[arg-type]
        made.append(agents)
        return agents

    monkeypatch.setattr(continue_cmd, "AGENTS_FACTORY", factory)
    return made


def test_continue_writes_and_prints_prd_lines(root: Path, monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    use_fake(monkeypatch, scores={3: [3.2, 4.1]})
    assert main(["continue", "2", "--project", str(root), "--yes"]) == 0
    out = capsys.readouterr().out
    assert "预计 2 章约 $" in out
    assert "第3章：" in out and "字 3.2→修订→4.1 ✅" in out
    assert "第4章：" in out and "字 4.2 ✅" in out
    assert "本次：2 章" in out
    assert Checkpoint.load(ProjectPaths(root).checkpoint).last_completed_chapter == 4


def test_continue_english_and_note(root: Path, monkeypatch: pytest.MonkeyPatch,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    made = use_fake(monkeypatch)
    assert main(["continue", "--project", str(root), "--yes", "--lang", "en", "--note", "受伤"]) == 0
    out = capsys.readouterr().out
    assert "Ch 3: " in out and "characters 4.2 ✅" in out and "This run: 1 chapter," in out
    assert "estimated $0.21 for 1 chapter (" in out
    assert "第3章" not in out
    assert made[0].writes[0][1] == "受伤"


def test_low_score_pauses_by_default_exit_3(root: Path, monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    use_fake(monkeypatch, scores={3: [2.5]})
    assert main(["continue", "--project", str(root), "--yes"]) == 3
    cp = Checkpoint.load(ProjectPaths(root).checkpoint)
    assert cp.pending_actions and cp.pending_actions[0].kind == "gate_low"
    assert "已暂停" in capsys.readouterr().out
    # accepting on the next run commits it, force-passed
    use_fake(monkeypatch, scores={3: [2.5]})
    assert main(["continue", "--project", str(root), "--yes", "--on-low-score", "accept"]) == 0
    assert "⚠️ 强制通过" in capsys.readouterr().out


def test_hard_violation_is_not_accepted_by_flag(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    use_fake(monkeypatch, scores={3: [4.5]}, violations={(3, r): ["W-001"] for r in range(3)})
    assert main(["continue", "--project", str(root), "--yes", "--on-low-score", "accept"]) == 3
    assert not ProjectPaths(root).chapter(3).exists()


def test_locked_project_exit_4(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    use_fake(monkeypatch)
    holder = ProjectLock(ProjectPaths(root), heartbeat_interval=0)
    holder.acquire()
    try:
        assert main(["continue", "--project", str(root), "--yes"]) == 4
        assert main(["undo", "--project", str(root), "--yes"]) == 4
    finally:
        holder.release()


def test_interrupted_chapter_without_terminal_pauses(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    use_fake(monkeypatch, fail={"judge": 1})
    assert main(["continue", "--project", str(root), "--yes"]) == 1  # stage error: resumable
    assert Checkpoint.load(ProjectPaths(root).checkpoint).orchestrator_state == "ERROR_RETRY"
    use_fake(monkeypatch)
    assert main(["continue", "--project", str(root)]) == 3  # asks resume/discard; stdin is no terminal
    assert main(["continue", "--project", str(root), "--yes"]) == 0  # --yes resumes


def test_max_cost_stops_before_spending(root: Path, monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    use_fake(monkeypatch)
    assert main(["continue", "3", "--project", str(root), "--yes", "--max-cost", "0.1"]) == 0
    out = capsys.readouterr().out
    assert "上限" in out and "第3章：" not in out


def test_missing_key_is_a_clear_error(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["continue", "--project", str(root), "--yes"]) == 1
    err = capsys.readouterr().err
    assert "ANTHROPIC_API_KEY" in err and "--offline" in err


def test_undo_command(root: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    use_fake(monkeypatch)
    assert main(["continue", "--project", str(root), "--yes"]) == 0
    assert main(["undo", "--project", str(root)]) == 3  # asks first; no terminal
    assert ProjectPaths(root).chapter(3).exists()
    capsys.readouterr()
    assert main(["undo", "--project", str(root), "--yes", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["chapter"] == 3
    assert not ProjectPaths(root).chapter(3).exists()
    assert Checkpoint.load(ProjectPaths(root).checkpoint).last_completed_chapter == 2


def test_offline_provider_end_to_end(root: Path, monkeypatch: pytest.MonkeyPatch,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    offline = pytest.importorskip("pipeline.providers.offline")
    pytest.importorskip("pipeline.agents.runner")
    monkeypatch.setattr(offline, "OfflineProvider", functools.partial(offline.OfflineProvider, delay_s=0))
    code = main(["continue", "2", "--project", str(root), "--offline", "--yes", "--on-low-score", "accept"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "离线模式" in out and "第3章：" in out and "第4章：" in out
    paths = ProjectPaths(root)
    log = json.loads(paths.log(3).read_text(encoding="utf-8"))
    assert log.get("offline") is True
    assert not any(p.is_file() for p in paths.staging.rglob("*")) if paths.staging.exists() else True
    from tests.test_orchestrator import assert_consistent, patch_chapters

    assert patch_chapters(root)[-2:] == [3, 4] or 3 in Checkpoint.load(paths.checkpoint).skipped_ops_chapters
    assert_consistent(root)


def test_continue_prints_each_chapter_as_it_commits(root: Path, monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """Chapter 3's line is out before chapter 4 is written (not all at the end), once, with its gate path."""
    made = use_fake(monkeypatch, scores={3: [3.2, 4.1]})
    seen_before_4: list[str] = []
    original = FakeAgents.write

    async def write(self: FakeAgents, chapter: int, *args: object, **kwargs: object) -> object:
        if chapter == 4 and not seen_before_4:
            seen_before_4.append(capsys.readouterr().out)
        return await original(self, chapter, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(FakeAgents, "write", write)
    assert main(["continue", "2", "--project", str(root), "--yes"]) == 0
    rest = capsys.readouterr().out
    assert made and seen_before_4
    assert "第3章：" in seen_before_4[0] and "字 3.2→修订→4.1 ✅" in seen_before_4[0]
    everything = seen_before_4[0] + rest
    assert everything.count("第3章：") == 1 and everything.count("第4章：") == 1
    assert everything.index("第4章：") < everything.index("本次：2 章")
