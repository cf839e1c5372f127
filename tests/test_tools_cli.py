"""`novel-studio character ...` and `world rule ...` end to end: offline and through the real SDK against the
loopback fake Messages API (tests/fakeapi.py), on the sample novel and on the plugin project. Without a
terminal a change waits for the author (exit 3, the question as JSON, nothing written); `--yes` applies it;
`--max-cost` stops before the call; spend goes into the ledger; a protected character is refused (exit 1)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from pipeline.planning.character_tool import weaver_request
from pipeline.planning.offline_replies import character_reply
from studio.cli.main import main
from studio.config import load_settings
from studio.fileio import atomic_write_text, read_json, read_text
from studio.models.character import CharacterFile
from studio.paths import ProjectPaths
from studio.project import Project
from studio.spend_ledger import read_spend
from tests.fakeapi import FakeMessagesAPI, Reply

PLUGIN = Path(__file__).parent / "fixtures" / "plugin-project"


@pytest.fixture(params=["sample", "plugin"])
def novel(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    if request.param == "plugin":
        root = tmp_path / "plugin"
        shutil.copytree(PLUGIN, root)
        return root
    from studio.init_project import init_project

    return init_project(tmp_path / "novel", sample=True)


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, Any]]:
    code = main([*argv, "--json"])
    out = capsys.readouterr().out
    return code, json.loads(out)


def _use_api(root: Path, base_url: str) -> None:
    toml = root / "novel-studio.toml"
    text = toml.read_text("utf-8") if toml.is_file() else ""
    atomic_write_text(toml, text + f'\n[provider]\npreset = "anthropic"\nbase_url = "{base_url}"\nmax_retries = 0\n'
                      "stage_retries = 0\n")


def test_every_command_offline_on_both_projects(novel: Path, capsys: pytest.CaptureFixture[str]) -> None:
    p = ["--project", str(novel)]
    code, data = _run(capsys, "character", "add", "周衡", "--role", "反派", "--offline", "--yes", *p)
    assert code == 0 and data["applied"] is True and data["slug"] == "zhou-heng"
    assert CharacterFile.load(ProjectPaths(novel).character("zhou-heng")).contracts  # L2 contracts from the model
    code, data = _run(capsys, "character", "update", "zhou-heng", "--note", "他其实是卧底", "--offline", "--yes", *p)
    assert code == 0 and any("卧底" in str(line) for line in data["lines"])
    code, data = _run(capsys, "character", "update", "zhou-heng", "--field", "age=40", "--yes", *p)
    assert code == 0 and read_json(ProjectPaths(novel).character("zhou-heng"))["age"] == 40
    code, data = _run(capsys, "character", "rename", "shen-zhao", "沈昭", "--yes", *p)
    assert code == 0 and data["old_name_in_committed_chapters"]
    code, data = _run(capsys, "character", "retire", "zhou-heng", "--reason", "离开", "--yes", *p)
    assert code == 0 and (novel / "characters" / "retired" / "zhou-heng.json").is_file()
    code, data = _run(capsys, "world", "rule", "add", "渡口子时不收活人", "--soft", "--yes", *p)
    assert code == 0
    rule_id = str(data["rule_id"])
    code, data = _run(capsys, "world", "rule", "update", rule_id, "--hard", "--yes", *p)
    assert code == 0 and data["rule"]["constraint_type"] == "hard"
    Project.open(novel)
    assert (novel / "characters" / "changelog.md").is_file() and (novel / "world" / "changelog.md").is_file()
    offline_calls = [e for e in read_spend(ProjectPaths(novel).spend_ledger)[0] if e.agent == "character_weaver"]
    assert len(offline_calls) == 2  # add and update, booked in the ledger


def test_without_yes_nothing_is_written_and_the_question_is_json(sample: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    paths = ProjectPaths(sample)
    before = {p: p.read_bytes() for p in sample.rglob("*") if p.is_file()}
    code, data = _run(capsys, "character", "rename", "shen-zhao", "沈昭", "--project", str(sample))
    assert code == 3 and data["event"] == "question" and data["applied"] is False
    assert any(line.startswith("+") and "沈昭" in line for line in data["diff"])
    assert {p: p.read_bytes() for p in sample.rglob("*") if p.is_file() and ".novel.lock" not in p.parts} == {
        p: b for p, b in before.items() if ".novel.lock" not in p.parts}
    assert CharacterFile.load(paths.character("shen-zhao")).display_name == "沈照"


def test_retire_refused_with_the_blockers(sample: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, data = _run(capsys, "character", "retire", "gu-yuan-zhou", "--yes", "--project", str(sample))
    assert code == 1 and len(data["blockers"]) == 4
    assert ProjectPaths(sample).character("gu-yuan-zhou").is_file()


def test_bad_input_is_a_clear_message(sample: Path, capsys: pytest.CaptureFixture[str]) -> None:
    p = ["--project", str(sample), "--yes"]
    code, data = _run(capsys, "character", "rename", "nobody", "谁", *p)
    assert code == 1 and "nobody" in str(data["error"])
    code, data = _run(capsys, "character", "update", "shen-zhao", "--field", "display_name=x", *p)
    assert code == 1 and "rename" in str(data["error"])
    code, data = _run(capsys, "character", "update", "shen-zhao", *p)
    assert code == 1
    code, data = _run(capsys, "world", "rule", "update", "W-404", "--soft", *p)
    assert code == 1 and "W-404" in str(data["error"])
    code, data = _run(capsys, "character", "add", "周衡", "--slug", "Bad Slug", "--manual", *p)
    assert code == 1


def test_add_through_the_sdk_with_a_repair_round(sample: Path, capsys: pytest.CaptureFixture[str],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    request = weaver_request(Project.open(sample), load_settings(sample), "add", name="周衡", role="反派")
    good = character_reply(request.context)
    wrong_name = json.loads(json.dumps(good))
    wrong_name["characters"][0]["display_name"] = "周恒"
    with FakeMessagesAPI() as api:
        _use_api(sample, api.base_url)
        api.script(Reply(json.dumps(wrong_name, ensure_ascii=False), usage={"input_tokens": 1000, "output_tokens": 500}),
                   Reply(json.dumps(good, ensure_ascii=False), usage={"input_tokens": 1200, "output_tokens": 500}))
        code, data = _run(capsys, "character", "add", "周衡", "--role", "反派", "--yes", "--project", str(sample))
        assert api.request_count == 2
        second = api.requests[1].body
    assert code == 0 and data["applied"] is True
    assert "周衡" in json.dumps(second["messages"][-1], ensure_ascii=False)  # the error line went back
    assert float(data["estimate_usd"]) > 0 and float(data["cost_usd"]) > 0
    entries = [e for e in read_spend(ProjectPaths(sample).spend_ledger)[0] if e.agent == "character_weaver"]
    assert [e.stage for e in entries] == ["character", "character-repair"]
    assert CharacterFile.load(ProjectPaths(sample).character("zhou-heng")).display_name == "周衡"


def test_max_cost_stops_before_the_call(sample: Path, capsys: pytest.CaptureFixture[str],
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    with FakeMessagesAPI() as api:
        _use_api(sample, api.base_url)
        code, data = _run(capsys, "character", "add", "周衡", "--yes", "--max-cost", "0.0001", "--project",
                          str(sample))
        assert api.request_count == 0
    assert code == 0 and data["stopped_by_cost"] is True
    assert not ProjectPaths(sample).character("zhou-heng").exists()


def test_a_reply_that_stays_wrong_writes_nothing(sample: Path, capsys: pytest.CaptureFixture[str],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    with FakeMessagesAPI() as api:
        _use_api(sample, api.base_url)
        api.script(*[Reply('{"characters": []}') for _ in range(3)])
        code, data = _run(capsys, "character", "add", "周衡", "--yes", "--project", str(sample))
        assert api.request_count == 3
    assert code == 1 and "模型的回复不合格" in str(data["error"])
    assert not ProjectPaths(sample).character("zhou-heng").exists()
    assert "周衡" not in read_text(ProjectPaths(sample).current_state)


def test_a_paused_add_keeps_the_reply_and_yes_applies_it_without_a_new_call(
    sample: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    request = weaver_request(Project.open(sample), load_settings(sample), "add", name="周衡")
    good = json.dumps(character_reply(request.context), ensure_ascii=False)
    with FakeMessagesAPI() as api:
        _use_api(sample, api.base_url)
        api.script(Reply(good))
        code, data = _run(capsys, "character", "add", "周衡", "--project", str(sample))
        assert code == 3 and data["event"] == "question" and api.request_count == 1
        assert not ProjectPaths(sample).character("zhou-heng").exists()
        code, data = _run(capsys, "character", "add", "周衡", "--yes", "--project", str(sample))
        assert api.request_count == 1  # the kept reply, not a second call
    assert code == 0 and data["applied"] is True and data["reused_reply"] is True
    assert ProjectPaths(sample).character("zhou-heng").is_file()
    assert not list((sample / ".novel-studio" / "tool-replies").glob("*.json"))
