"""`novel-studio plan`: sample novel -> write to the end of volume 1 -> plan volume 2 -> `continue` writes the
first chapter of volume 2; offline, and with the plan call through the real SDK against the loopback fake
Messages API (tests/fakeapi.py). Also: pausing without a terminal (exit 3, the question as JSON), `--yes`
approving the staged plan later, `--max-cost`, repair rounds and a plan rejected after them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipeline.planning.offline_replies import contracts_reply, plot_reply
from pipeline.planning.plan_volume import contracts_request, plan_request
from pipeline.planning.prompt_context import PlanTarget
from studio.cli.main import main
from studio.config import load_settings
from studio.fileio import atomic_write_text, read_text
from studio.init_project import init_project
from studio.models.checkpoint import Checkpoint, OrchestratorState
from studio.models.contract import ChapterContract
from studio.models.volume_plan import VolumePlanReply, load_volume_plan
from studio.outline import parse_outline, render_outline
from studio.paths import ProjectPaths
from studio.project import Project
from tests.fakeapi import FakeMessagesAPI, Reply


def _short_volume(tmp_path: Path) -> Path:
    """The sample with volume 1 cut to chapters 1-3 (chapters 1-2 committed)."""
    root = init_project(tmp_path / "novel", sample=True)
    paths = ProjectPaths(root)
    outline = parse_outline(read_text(paths.outline(1)), paths.outline(1))
    atomic_write_text(paths.outline(1), render_outline(outline.model_copy(update={"chapters": outline.chapters[:3]})))
    return root


def _to_volume_end(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["continue", "5", "--project", str(root), "--yes", "--offline"]) == 0
    cp = Checkpoint.load(ProjectPaths(root).checkpoint)
    assert (cp.last_completed_chapter, cp.orchestrator_state) == (3, OrchestratorState.VOL_REVIEW)
    assert "novel-studio plan" in capsys.readouterr().out  # the volume end says what comes next


def _check_volume_two(root: Path, first: int, last: int) -> None:
    paths = ProjectPaths(root)
    cp = Checkpoint.load(paths.checkpoint)
    assert (cp.current_volume, cp.orchestrator_state) == (2, OrchestratorState.WRITING)
    plan = load_volume_plan(paths, 2)  # seed 001 §9: volumes/vol-02/{outline.md, storyline-schedule.json, ...}
    assert (plan.first_chapter, plan.last_chapter) == (first, last)
    assert [c.chapter for c in plan.contracts] == list(range(first, last + 1))
    for n in range(first, last + 1):
        ChapterContract.load(paths.contract(2, n))
    assert plan.schedule.volume == 2 and plan.foreshadowing
    project = Project.open(root)  # validates every file of the project
    assert project.outline is not None and project.outline.chapter_range == (first, last)
    assert not (paths.staging / "plan").exists()


def _continue_writes(root: Path, n: int, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["continue", "1", "--project", str(root), "--yes", "--offline"]) == 0
    paths = ProjectPaths(root)
    assert paths.chapter(n).is_file() and paths.summary(n).is_file()
    assert Checkpoint.load(paths.checkpoint).last_completed_chapter == n
    capsys.readouterr()


def test_offline_volume_end_plan_continue(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _short_volume(tmp_path)
    _to_volume_end(root, capsys)
    assert main(["plan", "--project", str(root), "--offline", "--yes", "--volume-length", "3"]) == 0
    out = capsys.readouterr().out
    assert "第 2 卷计划（第 4-6 章，共 3 章）" in out and "爽点：" in out and "章末钩子：" in out
    assert "已应用第 2 卷计划" in out and "novel-studio continue 写第 4 章" in out
    _check_volume_two(root, 4, 6)
    _continue_writes(root, 4, capsys)


def test_without_a_terminal_the_plan_waits_for_approval(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _short_volume(tmp_path)
    _to_volume_end(root, capsys)
    assert main(["review", "--project", str(root), "--offline", "--yes"]) == 0  # reviewed: no question about it
    capsys.readouterr()
    assert main(["plan", "--project", str(root), "--offline", "--json", "--volume-length", "3"]) == 3
    data = json.loads(capsys.readouterr().out)
    assert data["event"] == "question" and data["exit_code"] == 3
    assert [o["key"] for o in data["options"]] == ["y", "k", "r", "e", "n"]
    assert [c["chapter"] for c in data["plan"]["chapters"]] == [4, 5, 6]
    paths = ProjectPaths(root)
    assert not paths.volume_dir(2).exists()  # staged, not applied
    # continue refuses while the plan waits, and says how to go on
    assert main(["continue", "1", "--project", str(root), "--yes", "--offline"]) != 0
    assert "novel-studio plan" in capsys.readouterr().err
    assert not paths.chapter(4).exists()
    spent = len(paths.spend_ledger.read_text("utf-8").splitlines())
    assert main(["plan", "--project", str(root), "--offline", "--yes", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["applied"] and data["activated"]
    assert len(paths.spend_ledger.read_text("utf-8").splitlines()) == spent  # approving made no new call
    _check_volume_two(root, 4, 6)


def test_planning_past_an_unreviewed_volume_asks_first(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`continue` at the volume end says "review first, then plan": `plan` for the next volume says the volume
    was not reviewed and asks; without a terminal it stops (exit 3) before any call, `--yes` plans anyway."""
    root = _short_volume(tmp_path)
    _to_volume_end(root, capsys)
    paths = ProjectPaths(root)
    spent = len(paths.spend_ledger.read_text("utf-8").splitlines())
    assert main(["plan", "--project", str(root), "--offline", "--json", "--volume-length", "3"]) == 3
    data = json.loads(capsys.readouterr().out)
    assert data["event"] == "question" and [o["key"] for o in data["options"]] == ["y", "n"]
    assert "第 1 卷还没有做卷末回顾" in data["question"] and "novel-studio review" in data["message"]
    assert len(paths.spend_ledger.read_text("utf-8").splitlines()) == spent  # no call was made
    assert not (paths.staging / "plan").exists() and not paths.volume_dir(2).exists()
    assert main(["plan", "--project", str(root), "--offline", "--json", "--lang", "en", "--volume-length", "3"]) == 3
    assert "volume 1 has not been reviewed" in json.loads(capsys.readouterr().out)["message"]
    assert main(["plan", "--project", str(root), "--offline", "--yes", "--volume-length", "3"]) == 0  # plan anyway
    _check_volume_two(root, 4, 6)


def test_the_studios_session_asks_the_same_and_stops_on_no(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The studio runs the same session (`PlanRunner`): the question reaches its decider; "n" stops before any
    call and says to review first."""
    import asyncio

    from pipeline.decisions import Question, QuestionKind
    from pipeline.events import Event, Notice
    from pipeline.planning.session import run_plan_session
    from pipeline.providers.offline import OfflineProvider
    from studio.planning.review import unreviewed_before

    root = _short_volume(tmp_path)
    _to_volume_end(root, capsys)
    assert unreviewed_before(Project.open(root), 2) == 1 and unreviewed_before(Project.open(root), 1) is None
    asked: list[Question] = []
    said: list[Event] = []

    async def decide(question: Question) -> str:
        asked.append(question)
        return "n"

    result = asyncio.run(run_plan_session(root, load_settings(root), OfflineProvider(), decide, said.append,
                                          volume_length=3, offline=True, lang="en"))
    assert [q.kind for q in asked] == [QuestionKind.PLAN_UNREVIEWED] and asked[0].recommended == "y"
    assert result.status == "cancelled" and result.calls == 0
    assert any(isinstance(e, Notice) and "run novel-studio review for volume 1 first" in e.message for e in said)
    assert not ProjectPaths(root).volume_dir(2).exists()


def test_max_cost_stops_before_the_call(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    root = _short_volume(tmp_path)
    _to_volume_end(root, capsys)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    with FakeMessagesAPI() as api:
        _use_api(root, api.base_url)
        assert main(["plan", "--project", str(root), "--yes", "--max-cost", "0.01", "--volume-length", "3"]) == 0
        assert api.request_count == 0
    assert "超过上限" in capsys.readouterr().out
    assert not ProjectPaths(root).volume_dir(2).exists()


def _use_api(root: Path, base_url: str) -> None:
    toml = root / "novel-studio.toml"
    text = toml.read_text("utf-8") if toml.is_file() else ""
    atomic_write_text(toml, text + f'\n[provider]\npreset = "anthropic"\nbase_url = "{base_url}"\nmax_retries = 0\n'
                      "stage_retries = 0\n")


def _plot_text(root: Path, target: PlanTarget, **changes: object) -> str:
    request = plan_request(Project.open(root), load_settings(root), target)
    reply = plot_reply(request.context)
    reply.update(changes)
    return json.dumps(reply, ensure_ascii=False)


def _contracts_text(root: Path, plot_text: str, target: PlanTarget, chapters: list[int]) -> str:
    """The offline contracts of one batch of the plan in `plot_text` (what the model would answer)."""
    plan = VolumePlanReply.parse_data(json.loads(plot_text)).to_plan(target.volume, target.first, target.last)
    request = contracts_request(Project.open(root), load_settings(root), plan, chapters, {})
    return json.dumps(contracts_reply(request.context), ensure_ascii=False)


def test_plan_through_the_sdk_with_a_repair_round(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    root = _short_volume(tmp_path)
    _to_volume_end(root, capsys)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    target = PlanTarget(2, 4, 6)
    good = _plot_text(root, target)
    bad = json.loads(good)
    bad["outline_md"] = bad["outline_md"].replace("- Storyline: main-arc", "- Storyline: no-such-line", 1)
    with FakeMessagesAPI() as api:
        _use_api(root, api.base_url)
        api.script(Reply(json.dumps(bad, ensure_ascii=False)), Reply(good),
                   Reply(_contracts_text(root, good, target, [4, 5, 6])))
        assert main(["plan", "--project", str(root), "--yes", "--volume-length", "3"]) == 0
        assert api.request_count == 3
        repair = api.requests[1].body["messages"]
        assert "no-such-line" in json.dumps(repair[-1], ensure_ascii=False)  # the error went back to the model
        batch = json.dumps(api.requests[2].body, ensure_ascii=False)
        assert "为第 4 章至第 6 章各写一条章节契约" in batch and "## 第6章" in batch  # the outline went along
    _check_volume_two(root, 4, 6)
    stages = [json.loads(line)["stage"] for line in ProjectPaths(root).spend_ledger.read_text("utf-8").splitlines()]
    assert stages[-3:] == ["plan", "plan-repair", "plan-contracts"]  # every call booked
    _continue_writes(root, 4, capsys)


def test_a_plan_still_wrong_after_two_repairs_stages_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    root = _short_volume(tmp_path)
    _to_volume_end(root, capsys)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    bad = json.loads(_plot_text(root, PlanTarget(2, 4, 6)))
    bad["outline_md"] = bad["outline_md"].replace("## 第5章", "## 第9章")  # a gap in the chapter numbers
    with FakeMessagesAPI() as api:
        _use_api(root, api.base_url)
        api.script(*[Reply(json.dumps(bad, ensure_ascii=False)) for _ in range(3)])
        assert main(["plan", "--project", str(root), "--yes", "--volume-length", "3"]) == 1
        assert api.request_count == 3
    assert "计划未通过检查" in capsys.readouterr().err
    paths = ProjectPaths(root)
    assert not paths.volume_dir(2).exists() and not (paths.staging / "plan").exists()
    assert Checkpoint.load(paths.checkpoint).orchestrator_state is OrchestratorState.VOL_REVIEW


def test_only_the_next_or_the_current_volume_can_be_planned(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _short_volume(tmp_path)
    assert main(["plan", "--project", str(root), "--offline", "--yes", "--volume", "3"]) == 2
    err = capsys.readouterr().err
    assert "第 2 卷" in err and "第 1 卷" in err


def _answers(monkeypatch: pytest.MonkeyPatch, *answers: str) -> list[str]:
    """The terminal's answers; the first, "y", plans volume 2 without reviewing volume 1 (asked first)."""
    queue = ["y", *answers]
    monkeypatch.setattr("studio.cli.plan_cmd.is_interactive", lambda: True)
    monkeypatch.setattr("builtins.input", lambda prompt="": queue.pop(0))
    return queue


def test_change_the_chapter_count_then_approve(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    root = _short_volume(tmp_path)
    _to_volume_end(root, capsys)
    left = _answers(monkeypatch, "k", "0", "4", "y")
    assert main(["plan", "--project", str(root), "--offline", "--volume-length", "3"]) == 0
    assert left == []
    out = capsys.readouterr().out
    assert "共 3 章" in out and "共 4 章" in out and "请输入一个正整数" in out
    _check_volume_two(root, 4, 7)


def test_replan_with_a_note_then_cancel(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    root = _short_volume(tmp_path)
    _to_volume_end(root, capsys)
    _answers(monkeypatch, "r", "让顾远舟早点出场", "n")
    assert main(["plan", "--project", str(root), "--offline", "--volume-length", "3"]) == 0
    assert "已取消" in capsys.readouterr().out
    paths = ProjectPaths(root)
    calls = [json.loads(line) for line in paths.spend_ledger.read_text("utf-8").splitlines()]
    stages = [c["stage"] for c in calls if c["agent"] == "plot_architect"]
    assert stages == ["plan", "plan-contracts", "plan", "plan-contracts"]
    assert not paths.volume_dir(2).exists() and not (paths.staging / "plan").exists()
    assert Checkpoint.load(paths.checkpoint).orchestrator_state is OrchestratorState.VOL_REVIEW


def test_a_project_without_an_outline_plans_its_first_volume(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = init_project(tmp_path / "fresh")
    assert main(["plan", "--project", str(root), "--offline", "--yes", "--volume-length", "3"]) == 0
    assert "novel-studio continue 写第 1 章" in capsys.readouterr().out
    paths = ProjectPaths(root)
    cp = Checkpoint.load(paths.checkpoint)
    assert (cp.current_volume, cp.orchestrator_state) == (1, OrchestratorState.WRITING)
    assert load_volume_plan(paths, 1).first_chapter == 1
    _continue_writes(root, 1, capsys)


def test_a_volume_planned_ahead_is_taken_up_at_the_volume_end(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _short_volume(tmp_path)  # writing chapter 3 of volume 1 (chapters 1-3)
    assert main(["plan", "--project", str(root), "--offline", "--yes", "--volume-length", "3"]) == 0
    paths = ProjectPaths(root)
    assert "写完当前卷后会接着写它" in capsys.readouterr().out
    assert Checkpoint.load(paths.checkpoint).current_volume == 1 and paths.outline(2).is_file()
    # planning again now targets volume 3, after the planned-ahead volume 2
    assert main(["plan", "--project", str(root), "--offline", "--json", "--volume-length", "2"]) == 3
    data = json.loads(capsys.readouterr().out)
    assert (data["plan"]["volume"], data["plan"]["first_chapter"]) == (3, 7)
    assert main(["plan", "--project", str(root), "--offline", "--yes"]) == 0
    capsys.readouterr()
    _to_volume_end(root, capsys)
    spent = len(paths.spend_ledger.read_text("utf-8").splitlines())
    assert main(["plan", "--project", str(root), "--offline", "--yes"]) == 0
    assert "现在转入该卷" in capsys.readouterr().out
    assert len(paths.spend_ledger.read_text("utf-8").splitlines()) == spent  # no new call
    _check_volume_two(root, 4, 6)
    _continue_writes(root, 4, capsys)


def test_edit_the_staged_outline_in_the_editor_then_approve(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    root = _short_volume(tmp_path)
    _to_volume_end(root, capsys)
    opened: list[list[str]] = []

    def editor(argv: list[str]) -> int:  # the author renames chapter 5 in $EDITOR
        opened.append(argv)
        path = Path(argv[-1])
        text = read_text(path)
        start = text.index("## 第5章")
        end = text.index("\n", start)
        atomic_write_text(path, text[:start] + "## 第5章 渡口夜雨" + text[end:])
        return 0

    monkeypatch.setenv("EDITOR", "my-editor --wait")
    monkeypatch.setattr("studio.cli.plan_cmd.EDITOR_RUN", editor)
    left = _answers(monkeypatch, "e", "y")
    assert main(["plan", "--project", str(root), "--offline", "--volume-length", "3"]) == 0
    assert left == []
    assert opened and opened[0][:2] == ["my-editor", "--wait"] and opened[0][-1].endswith("vol-02/outline.md")
    out = capsys.readouterr().out
    assert "大纲改动了第 5 章" in out and "第5章 渡口夜雨" in out
    _check_volume_two(root, 4, 6)
    assert "## 第5章 渡口夜雨" in read_text(ProjectPaths(root).outline(2))


def test_replan_the_current_volume_shows_the_diff_and_yes_stops_at_hand_edits(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = init_project(tmp_path / "novel", sample=True)  # volume 1, chapters 1-10 written by hand, 1-2 committed
    paths = ProjectPaths(root)
    outline_before = read_text(paths.outline(1))
    assert main(["plan", "--project", str(root), "--offline", "--yes", "--json", "--volume", "1"]) == 3
    data = json.loads(capsys.readouterr().out)
    assert data["event"] == "question" and data["recommended"] == ""
    assert data["plan"]["fixed_chapters"] == [1, 2] and data["plan"]["first_chapter"] == 3
    assert "-## 第3章" in data["diff"] and data["overwrites"]
    assert read_text(paths.outline(1)) == outline_before  # nothing applied
    assert main(["plan", "--project", str(root), "--offline", "--yes", "--volume", "1"]) == 3
    captured = capsys.readouterr()
    assert "手动修改过" in captured.out and "--yes 不会替你决定" in captured.err
    assert read_text(paths.outline(1)) == outline_before
