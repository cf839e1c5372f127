"""The volume end and `novel-studio review` (issue 7 item 5): `continue` stops at the volume's last chapter and
says to review and plan; the review (interim, finished, past), its files, the clean-up question (exit 3 without a
terminal, `--yes` later without a new call), the clean-up through the state engine (replay and undo stay
consistent), the call through the real SDK against the loopback fake API, and two volumes end to end offline."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipeline.planning.offline_replies import review_reply
from pipeline.rebuild import effective_chain
from studio import own_writes
from studio.cli.main import main
from studio.coldstart import check_cold_start
from studio.fileio import atomic_write_json, atomic_write_text, read_json, read_text
from studio.init_project import init_project
from studio.models.changelog import ChangelogEntry
from studio.models.checkpoint import Checkpoint, OrchestratorState
from studio.models.patch import StatePatch
from studio.models.state import CurrentState
from studio.models.volume_review import ReviewJournal
from studio.outline import parse_outline, render_outline
from studio.paths import ProjectPaths
from studio.planning.review import final_state_path, review_journal_path, review_path
from studio.project import Project
from studio.state_engine import load_changelog, load_state, merge_patch, replay
from tests.fakeapi import FakeMessagesAPI, Reply

pytestmark = pytest.mark.usefixtures("no_offline_delay")  # the streaming pace is not tested here


def short_volume(tmp_path: Path) -> Path:
    """The sample with volume 1 cut to chapters 1-3 (chapters 1-2 committed)."""
    root = init_project(tmp_path / "novel", sample=True)
    paths = ProjectPaths(root)
    outline = parse_outline(read_text(paths.outline(1)), paths.outline(1))
    atomic_write_text(paths.outline(1), render_outline(outline.model_copy(update={"chapters": outline.chapters[:3]})))
    return root


def to_volume_end(root: Path, capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["continue", "5", "--project", str(root), "--yes", "--offline"]) == 0
    cp = Checkpoint.load(ProjectPaths(root).checkpoint)
    assert (cp.last_completed_chapter, cp.orchestrator_state) == (3, OrchestratorState.VOL_REVIEW)
    return capsys.readouterr().out


def temporary_entries(root: Path) -> None:
    """State entries the clean-up rules judge (merged through the engine as chapter 2's late patch), and a
    thread the ledger resolved by hand that is still listed as active."""
    paths = ProjectPaths(root)
    state = load_state(paths)
    ops = [
        {"op": "set", "path": "items.broken-shade", "value": {"display_name": "碎灯罩", "status": "已毁"}},
        {"op": "set", "path": "items.ferry-ticket", "value": {"display_name": "渡船票", "temporary": True}},
        # gone, but still in a character's inventory: kept
        {"op": "set", "path": "items.seventh-lamp", "value": {"display_name": "长明灯（第七盏）", "status": "已毁"}},
    ]
    merge_patch(paths, StatePatch(chapter=2, base_state_version=state.state_version, storyline_id="main-arc", ops=ops))
    ledger = read_json(paths.global_foreshadowing)
    for item in ledger["foreshadowing"]:
        if item["id"] == "bell-in-fog":
            item["status"] = "resolved"
    atomic_write_json(paths.global_foreshadowing, ledger)


def ledger_lines(root: Path) -> int:
    path = ProjectPaths(root).spend_ledger
    return len(path.read_text("utf-8").splitlines()) if path.is_file() else 0


def tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and ".novel-studio" not in p.parts and p.name != "spend.jsonl"}


# ------------------------------------------------------------------------------------------------ CLI


def test_continue_stops_at_the_volume_end_and_says_review_then_plan(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    root = short_volume(tmp_path)
    out = to_volume_end(root, capsys)
    assert "novel-studio review" in out and "novel-studio plan" in out
    paths = ProjectPaths(root)
    assert not paths.volume_dir(2).exists() and not (paths.staging / "plan").exists()  # it never plans itself
    # continue again: still stopped, exit 0, the same advice
    assert main(["continue", "1", "--project", str(root), "--yes", "--offline"]) == 0
    assert "卷末回顾" in capsys.readouterr().out
    assert not paths.chapter(4).exists()


def test_an_unfinished_volume_gets_an_interim_report_that_writes_nothing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = short_volume(tmp_path)
    before = tree(root)
    spent = ledger_lines(root)
    assert main(["review", "--project", str(root), "--offline"]) == 0
    out = capsys.readouterr().out
    assert "中期报告" in out and "已写 2/3 章" in out and "平均分" in out and "bell-in-fog" in out
    assert tree(root) == before and ledger_lines(root) == spent
    assert main(["review", "--project", str(root), "--offline", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["kind"], data["written"], data["calls"]) == ("unfinished", False, 0)
    assert [c["chapter"] for c in data["review"]["chapters"]] == [1, 2]


def test_review_without_a_terminal_asks_the_clean_up_then_yes_finishes_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = short_volume(tmp_path)
    temporary_entries(root)
    to_volume_end(root, capsys)
    paths = ProjectPaths(root)
    state_before = load_state(paths)
    spent = ledger_lines(root)
    assert main(["review", "--project", str(root), "--offline", "--json"]) == 3
    data = json.loads(capsys.readouterr().out)
    assert (data["event"], data["kind"], data["exit_code"]) == ("question", "review_cleanup", 3)
    assert [o["key"] for o in data["options"]] == ["apply", "keep"] and data["recommended"] == "apply"
    proposed = {item["path"] for item in data["data"]["cleanup"]}
    assert proposed == {"items.broken-shade", "items.ferry-ticket", "active_foreshadowing.bell-in-fog"}
    assert ledger_lines(root) == spent + 1  # the one review call, booked
    journal = ReviewJournal.load(review_journal_path(paths, 1))
    assert journal.answer is None and journal.suggestions.next_volume
    assert load_state(paths) == state_before  # nothing applied before the author answers
    assert Checkpoint.load(paths.checkpoint).orchestrator_state is OrchestratorState.VOL_REVIEW
    assert [f.key for f in check_cold_start(paths)] == ["review_pending"]  # repairable, not a refusal

    assert main(["review", "--project", str(root), "--offline", "--yes"]) == 0
    out = capsys.readouterr().out
    assert "已完成上次被中断的第 1 卷回顾" in out and "novel-studio plan 规划第 2 卷" in out
    assert ledger_lines(root) == spent + 1  # answering made no new call
    state = load_state(paths)
    assert "broken-shade" not in state.items and "ferry-ticket" not in state.items
    assert "seventh-lamp" in state.items and "bell-in-fog" not in state.active_foreshadowing
    assert state.state_version == state_before.state_version + 1
    entries = load_changelog(paths.changelog)
    assert getattr(entries[-1], "review_cleanup", None) == 1
    assert replay(entries).to_data() == state.to_data()  # the log still describes the state
    final = CurrentState.load(final_state_path(paths, 1))
    assert final.to_data() == state_before.to_data()  # archived before the clean-up
    text = read_text(review_path(paths, 1))
    assert "已清理 3 个临时条目" in text and "items.broken-shade" in text and "## 下一卷建议" in text
    assert not review_journal_path(paths, 1).exists() and not paths.staging.exists()
    assert Checkpoint.load(paths.checkpoint).orchestrator_state is OrchestratorState.VOL_PLANNING
    assert [f.key for f in check_cold_start(paths)] == ["plan_next"]
    # a past review is shown again: no call, nothing written
    before = tree(root)
    assert main(["review", "--project", str(root), "--offline", "--volume", "1"]) == 0
    assert "已清理 3 个临时条目" in capsys.readouterr().out
    assert tree(root) == before and ledger_lines(root) == spent + 1


def test_keep_leaves_the_state_alone(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    root = short_volume(tmp_path)
    temporary_entries(root)
    to_volume_end(root, capsys)
    paths = ProjectPaths(root)
    before = load_state(paths)
    monkeypatch.setattr("studio.cli.review_cmd.is_interactive", lambda: True)
    monkeypatch.setattr("builtins.input", lambda prompt="": "keep")
    assert main(["review", "--project", str(root), "--offline"]) == 0
    assert load_state(paths) == before
    assert "作者选择保留" in read_text(review_path(paths, 1))
    assert Checkpoint.load(paths.checkpoint).orchestrator_state is OrchestratorState.VOL_PLANNING


def test_undo_after_the_review_takes_back_the_chapter_and_the_clean_up(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = short_volume(tmp_path)
    temporary_entries(root)
    paths = ProjectPaths(root)
    before_chapter_3 = load_state(paths)
    to_volume_end(root, capsys)
    assert main(["review", "--project", str(root), "--offline", "--yes"]) == 0
    assert main(["undo", "--project", str(root), "--yes"]) == 0
    capsys.readouterr()
    state = load_state(paths)
    assert state.to_data() == before_chapter_3.to_data()  # chapter 3's ops and the clean-up after them are gone
    entries = load_changelog(paths.changelog)
    assert all(e.chapter < 3 for e in entries) and not any(getattr(e, "review_cleanup", None) for e in entries)
    cp = Checkpoint.load(paths.checkpoint)
    assert (cp.last_completed_chapter, cp.orchestrator_state) == (2, OrchestratorState.WRITING)
    assert main(["continue", "1", "--project", str(root), "--yes", "--offline"]) == 0  # writing goes on
    assert paths.chapter(3).is_file()


def test_two_volumes_offline(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Volume 1 written -> continue stops (exit 0) -> review -> files valid -> plan -> volume 2 written."""
    root = short_volume(tmp_path)
    to_volume_end(root, capsys)
    assert main(["review", "--project", str(root), "--offline", "--yes", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["kind"], data["written"], data["next_volume"]) == ("finished", True, 2)
    assert data["review"]["average"] is not None and data["review"]["weakest"]["chapter"] in (1, 2, 3)
    paths = ProjectPaths(root)
    Project.open(root)  # every file of the project still validates
    CurrentState.load(final_state_path(paths, 1))
    for written in (review_path(paths, 1), final_state_path(paths, 1), paths.checkpoint):
        assert own_writes.is_own(written, written.read_bytes())  # the watcher does not take them for hand edits
    for line in paths.changelog.read_text("utf-8").splitlines():
        ChangelogEntry.model_validate_json(line)
    # the review reaches the next plan's prompt
    assert main(["prompt", "plot", "--project", str(root), "--json"]) == 0
    assert "下一卷建议" in capsys.readouterr().out
    assert main(["plan", "--project", str(root), "--offline", "--yes", "--volume-length", "3"]) == 0
    capsys.readouterr()
    cp = Checkpoint.load(paths.checkpoint)
    assert (cp.current_volume, cp.orchestrator_state) == (2, OrchestratorState.WRITING)
    assert main(["continue", "3", "--project", str(root), "--yes", "--offline", "--on-low-score", "accept"]) == 0
    capsys.readouterr()
    cp = Checkpoint.load(paths.checkpoint)
    assert (cp.last_completed_chapter, cp.orchestrator_state) == (6, OrchestratorState.VOL_REVIEW)
    assert main(["review", "--project", str(root), "--offline", "--yes"]) == 0
    assert "第 2 卷回顾（第 4-6 章）" in read_text(review_path(paths, 2))
    assert final_state_path(paths, 2).is_file()
    Project.open(root)


# ------------------------------------------------------------------------------------------------ real SDK


def _use_api(root: Path, base_url: str) -> None:
    toml = root / "novel-studio.toml"
    text = toml.read_text("utf-8") if toml.is_file() else ""
    atomic_write_text(toml, text + f'\n[provider]\npreset = "anthropic"\nbase_url = "{base_url}"\nmax_retries = 0\n'
                      "stage_retries = 0\n")


def test_review_through_the_sdk_with_a_repair_round(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    root = short_volume(tmp_path)
    to_volume_end(root, capsys)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    good = json.dumps(review_reply({"volume": 1, "weakest": 2, "storyline_ids": ["main-arc"]}), ensure_ascii=False)
    with FakeMessagesAPI() as api:
        _use_api(root, api.base_url)
        api.script(Reply('{"summary": ["不是字符串"]'), Reply(good))
        assert main(["review", "--project", str(root), "--yes"]) == 0
        assert api.request_count == 2
        first = json.dumps(api.requests[0].body, ensure_ascii=False)
        assert "复盘第 1 卷" in first and "平均分" in first and "子时送单" in first
    out = capsys.readouterr().out
    assert "卷末回顾：预计最多 $" in out  # the estimate is printed before the call
    stages = [json.loads(line)["stage"] for line in ProjectPaths(root).spend_ledger.read_text("utf-8").splitlines()]
    assert stages[-2:] == ["review", "review-repair"]
    assert "第2章评分最低" in read_text(review_path(ProjectPaths(root), 1))


def test_a_reply_that_never_parses_is_kept_as_text(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    root = short_volume(tmp_path)
    to_volume_end(root, capsys)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    with FakeMessagesAPI() as api:
        _use_api(root, api.base_url)
        api.script(Reply("建议下一卷多写配角。"), Reply("还是建议多写配角。"))
        assert main(["review", "--project", str(root), "--yes"]) == 0
    text = read_text(review_path(ProjectPaths(root), 1))
    assert "模型回复未能解析" in text and "还是建议多写配角。" in text


def test_max_cost_stops_before_the_call(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    root = short_volume(tmp_path)
    to_volume_end(root, capsys)
    paths = ProjectPaths(root)
    before = tree(root)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    with FakeMessagesAPI() as api:
        _use_api(root, api.base_url)
        before = tree(root)
        assert main(["review", "--project", str(root), "--yes", "--max-cost", "0.0001"]) == 0
        assert api.request_count == 0
    assert "超过上限" in capsys.readouterr().out
    assert tree(root) == before
    assert Checkpoint.load(paths.checkpoint).orchestrator_state is OrchestratorState.VOL_REVIEW


def test_no_key_is_a_clear_error_that_writes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    root = short_volume(tmp_path)
    to_volume_end(root, capsys)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    toml = root / "novel-studio.toml"
    atomic_write_text(toml, (toml.read_text("utf-8") if toml.is_file() else "") + '\n[provider]\npreset = "anthropic"\n')
    before = tree(root)
    assert main(["review", "--project", str(root), "--yes"]) == 1
    assert "ANTHROPIC_API_KEY" in capsys.readouterr().err
    assert tree(root) == before


def test_a_rebuild_after_the_review_keeps_every_chapter_and_the_log_replayable(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = short_volume(tmp_path)
    temporary_entries(root)
    to_volume_end(root, capsys)
    assert main(["review", "--project", str(root), "--offline", "--yes"]) == 0
    paths = ProjectPaths(root)
    chain = effective_chain(load_changelog(paths.changelog))
    assert [link.chapter for link in chain] == [1, 2, 3, 3]  # the clean-up is a link of its own
    assert chain[2].ops and not chain[3].ops  # it did not replace chapter 3's ops
    # chapter 3 edited by hand -> rebuilt: its ops are re-derived, the clean-up is not re-emitted as chapter 3
    text = paths.chapter(3).read_text("utf-8")
    atomic_write_text(paths.chapter(3), text + "\n\n沈照把灯账合上，夜色更深了。\n")
    assert main(["rebuild", "3", "--project", str(root), "--offline", "--yes"]) == 0
    capsys.readouterr()
    entries = load_changelog(paths.changelog)
    state = load_state(paths)
    assert replay(entries).to_data() == state.to_data()
    chain = effective_chain(entries)
    assert chain[-1].chapter == 3 and chain[-1].entry.kind == "rebuild" and chain[-1].ops


def test_a_volume_without_an_outline_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = short_volume(tmp_path)
    before = tree(root)
    assert main(["review", "--project", str(root), "--offline", "--volume", "4"]) == 1
    assert "第 4 卷没有大纲" in capsys.readouterr().err
    assert tree(root) == before


def test_english_on_request(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = short_volume(tmp_path)
    to_volume_end(root, capsys)
    assert main(["review", "--project", str(root), "--offline", "--yes", "--lang", "en"]) == 0
    out = capsys.readouterr().out
    assert "# Review of volume 1 (chapters 1-3)" in out and "novel-studio plan plans volume 2" in out
    assert "# 第 1 卷回顾" in read_text(review_path(ProjectPaths(root), 1))  # the file stays Chinese


def test_prompt_review_shows_the_request_without_sending(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = short_volume(tmp_path)
    to_volume_end(root, capsys)
    before = tree(root)
    assert main(["prompt", "review", "--project", str(root), "--json"]) == 0
    body = json.loads(capsys.readouterr().out)
    text = json.dumps(body, ensure_ascii=False)
    assert "复盘第 1 卷" in text and "本卷统计报告" in text and "子时送单" in text
    assert tree(root) == before
