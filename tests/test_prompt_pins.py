"""Prompt versions pinned per project (issue 9 item 8) and the prompt cache's share in status and the header.

A second version of the writer's prompt lives in a copy of the installed prompts (`newer_prompts`), which the
registry and status read through `studio.prompt_pins.PROMPTS_FOLDER`.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import tomllib
from pathlib import Path

import pytest

import prompts
from pipeline.agents.requests import AgentRequests
from pipeline.agents.runner import ModelAgents, section_hashes
from pipeline.context import writer_context
from pipeline.prompts_registry import (
    PinnedPromptMissingError,
    ensure_pins,
    installed_registry,
    pin_notice,
    project_registry,
)
from pipeline.providers.offline import OfflineProvider
from studio import prompt_pins
from studio.cli.main import main
from studio.cli.prompts_cmd import pin_before_run
from studio.init_project import init_project
from studio.models.pipeline_log import PipelineLog
from studio.models.settings import Settings
from studio.models.spend import SpendEntry
from studio.paths import ProjectPaths
from studio.project import Project
from studio.prompt_pins import installed_versions, latest_pins, pins_text, read_pins, write_pins
from studio.spend_ledger import append_spend, read_spend
from studio.status import build_status, render_status
from widgets.studio_header import HeaderInfo, render_header

WRITER = "chapter-writer"
V2_RULE = "（新一版新增）开头三行之内必须抛出本章的钩子。"
# The fabricated newer writer is one above the newest real one (computed: a real v2, v3 ... never collides).
CURRENT = installed_versions()[WRITER][-1]
NEWER = CURRENT + 1


def install_newer_prompts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, prompt_id: str = WRITER) -> Path:
    """The installed prompts plus a fabricated next version of `prompt_id` (its newest real version with one more
    rule at the end of the stable section)."""
    folder = tmp_path / "prompts"
    shutil.copytree(Path(prompts.__file__).parent, folder, ignore=shutil.ignore_patterns("__pycache__", "*.py"))
    current = installed_versions(folder)[prompt_id][-1]
    text = (folder / f"{prompt_id}.v{current}.md").read_text(encoding="utf-8")
    newer = re.sub(r"^version: \d+$", f"version: {current + 1}", text, count=1, flags=re.MULTILINE)
    marker = "<!-- cache: volume -->" if "<!-- cache: volume -->" in newer else "<!-- cache: chapter -->"
    newer = newer.replace(marker, f"{V2_RULE}\n\n{marker}", 1)
    assert newer != text and V2_RULE in newer
    (folder / f"{prompt_id}.v{current + 1}.md").write_text(newer, encoding="utf-8")
    monkeypatch.setattr(prompt_pins, "PROMPTS_FOLDER", folder)
    return folder


@pytest.fixture
def newer_prompts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return install_newer_prompts(tmp_path, monkeypatch)


def _settings_without_pins(root: Path) -> None:
    path = ProjectPaths(root).settings
    text = path.read_text(encoding="utf-8")
    path.write_text(text[: text.index("# 提示词版本")], encoding="utf-8")
    assert read_pins(ProjectPaths(root)) is None


# ------------------------------------------------------------------------------------------ the file


def test_a_new_project_pins_the_latest_versions_and_keeps_the_template_comments(project_dir: Path) -> None:
    init_project(project_dir, title="剑来")
    paths = ProjectPaths(project_dir)
    assert read_pins(paths) == latest_pins() and read_pins(paths)
    text = paths.settings.read_text(encoding="utf-8")
    assert "# [writing]" in text and "# chapter_min_chars = 2500" in text  # the author's guide survives
    assert tomllib.loads(text)["project"] == {"title": "剑来"}


def test_rewriting_the_pins_keeps_every_other_setting_and_comment(tmp_path: Path) -> None:
    text = (
        "# my notes\n[project]\ntitle = \"书\"  # the title\n\n[prompts]\n# old comment\nchapter-writer = 1\n\n"
        "# 写作\n[writing]\nchapter_min_chars = 3000\n"
    )
    new, lost = pins_text(text, {"chapter-writer": 2, "summarizer": 1})
    assert not lost
    assert new.startswith("# my notes\n[project]\ntitle = \"书\"  # the title\n\n[prompts]\n")
    assert new.endswith("\n# 写作\n[writing]\nchapter_min_chars = 3000\n")
    assert "# old comment" not in new  # comments inside [prompts] itself are what is lost
    data = tomllib.loads(new)
    assert data["prompts"] == {"chapter-writer": 2, "summarizer": 1}
    assert data["writing"] == {"chapter_min_chars": 3000} and data["project"] == {"title": "书"}


def test_pins_written_as_dotted_keys_fall_back_to_a_whole_rewrite_and_say_so(tmp_path: Path) -> None:
    root = tmp_path / "p"
    root.mkdir()
    paths = ProjectPaths(root)
    paths.settings.write_text("# note\nprompts.chapter-writer = 1\n[writing]\nchapter_min_chars = 3000\n", "utf-8")
    result = write_pins(paths, {"chapter-writer": 2})
    assert result.comments_lost
    data = tomllib.loads(paths.settings.read_text(encoding="utf-8"))
    assert data == {"prompts": {"chapter-writer": 2}, "writing": {"chapter_min_chars": 3000}}


def test_a_bad_pin_is_a_clear_error_naming_the_file(project_dir: Path) -> None:
    init_project(project_dir)
    paths = ProjectPaths(project_dir)
    text = paths.settings.read_text(encoding="utf-8").replace(f"chapter-writer = {CURRENT}", 'chapter-writer = "new"')
    paths.settings.write_text(text, encoding="utf-8")
    with pytest.raises(Exception, match="chapter-writer") as info:
        read_pins(paths)
    assert "novel-studio.toml" in str(info.value)


def test_the_users_settings_file_never_pins(project_dir: Path, tmp_path: Path) -> None:
    from studio.config import load_settings

    init_project(project_dir)
    user = tmp_path / "user.toml"
    user.write_text("[prompts]\nchapter-writer = 7\n", encoding="utf-8")
    settings = load_settings(project_dir, env={}, user_file=user)
    assert settings.prompts[WRITER] == CURRENT  # the project's pin (init: the latest), not the user's 7


# ------------------------------------------------------------------------------------------ first run


def test_a_project_without_pins_is_pinned_on_its_first_run_to_what_its_logs_record(
    sample: Path, newer_prompts: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _settings_without_pins(sample)
    log_path = ProjectPaths(sample).log(2)
    data = json.loads(log_path.read_text(encoding="utf-8"))
    data["stages"][0].update(prompt_id=WRITER, prompt_version="1")  # written with the writer's v1
    log_path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")

    args = argparse.Namespace(command="continue", project=sample, lang="zh")
    pin_before_run(args)
    said = capsys.readouterr().err
    assert "首次固定了提示词版本" in said and "1 个沿用最近章节记录" in said
    pins = read_pins(ProjectPaths(sample))
    assert pins is not None and pins[WRITER] == 1  # what it used, although newer versions are installed
    assert pins["summarizer"] == installed_registry().latest("summarizer").version

    pin_before_run(args)  # said once
    assert capsys.readouterr().err == ""
    assert pin_notice(ensure_pins(sample)) is None


def test_without_logs_the_first_pin_is_the_latest(sample: Path, newer_prompts: Path) -> None:
    _settings_without_pins(sample)
    outcome = ensure_pins(sample)
    assert outcome.first and outcome.from_logs == {} and outcome.pins[WRITER] == NEWER
    assert "0 个沿用" in (pin_notice(outcome) or "")


def test_a_prompt_added_later_is_pinned_at_its_latest_and_said(project_dir: Path, newer_prompts: Path) -> None:
    init_project(project_dir)
    paths = ProjectPaths(project_dir)
    pins = read_pins(paths)
    assert pins is not None
    del pins["summarizer"]
    write_pins(paths, pins)
    outcome = ensure_pins(project_dir)
    assert outcome.added == {"summarizer": 1} and not outcome.first
    assert "summarizer v1" in (pin_notice(outcome, "en") or "")


# ------------------------------------------------------------------------------------------ newer versions


def test_a_newer_version_is_installed_but_never_used_until_upgraded(sample: Path, newer_prompts: Path) -> None:
    assert read_pins(ProjectPaths(sample)) == {**latest_pins(), WRITER: CURRENT}  # init ran before the copy existed
    registry = project_registry(sample)
    assert registry.get(WRITER).version == CURRENT and registry.latest(WRITER).version == NEWER
    project = Project.open(sample)
    bundle = writer_context(project, Settings(), 3)  # no registry given: the project's pins
    assert bundle.prompt_version == CURRENT and V2_RULE not in bundle.text
    request = AgentRequests(project, Settings(), registry).writer(3, note=None, revision=None).request
    assert request.prompt_version == str(CURRENT)
    assert ModelAgents(project, Settings(), OfflineProvider()).registry.get(WRITER).version == CURRENT

    report = build_status(project, prompt_versions={pid: installed_registry().versions(pid) for pid in installed_registry().ids()})
    assert [(n.prompt_id, n.pinned, n.latest) for n in report.prompt_updates] == [(WRITER, CURRENT, NEWER)]
    assert f"chapter-writer v{CURRENT}→v{NEWER}" in render_status(report)


def test_prompts_list_shows_pinned_and_latest(sample: Path, newer_prompts: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["prompts", "list", "--project", str(sample), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    writer = next(p for p in data["prompts"] if p["prompt_id"] == WRITER)
    assert (writer["pinned"], writer["latest"], writer["newer"]) == (CURRENT, NEWER, True)
    assert data["upgradable"] == [WRITER] and data["pinned"] is True
    assert main(["prompts", "list", "--project", str(sample)]) == 0
    out = capsys.readouterr().out
    assert "chapter-writer" in out and "有新版本" in out


def test_status_command_says_when_newer_versions_exist(
    sample: Path, newer_prompts: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["status", "--project", str(sample)]) == 0
    assert f"提示词有新版本：chapter-writer v{CURRENT}→v{NEWER}" in capsys.readouterr().out


def test_upgrade_shows_the_changes_pins_the_latest_and_the_next_chapter_log_records_it(
    sample: Path, newer_prompts: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Without --yes and without a terminal it asks, which here means exit 3 and nothing written.
    monkeypatch.setattr("studio.cli.common.is_interactive", lambda: False)
    assert main(["prompts", "upgrade", "writer", "--project", str(sample)]) == 3
    assert read_pins(ProjectPaths(sample))[WRITER] == CURRENT  # type: ignore[index]
    out = capsys.readouterr()
    assert f"chapter-writer：v{CURRENT} → v{NEWER}" in out.out and V2_RULE in out.out  # the diff of the stable section

    assert main(["prompts", "upgrade", "writer", "--yes", "--json", "--project", str(sample)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["upgraded"] == [WRITER]
    change = data["changes"][0]
    assert (change["from"], change["to"], change["changed_sections"]) == (CURRENT, NEWER, ["stable"])
    assert any(V2_RULE in line for line in change["diff"]["stable"])
    assert read_pins(ProjectPaths(sample))[WRITER] == NEWER  # type: ignore[index]

    assert main(["continue", "--project", str(sample), "--offline", "--yes"]) == 0
    log = PipelineLog.load(ProjectPaths(sample).log(3))
    assert log.prompt_versions is not None and log.prompt_versions[WRITER] == NEWER
    draft = next(s for s in log.stages if s.name == "draft")
    assert (draft.prompt_id, str(draft.prompt_version)) == (WRITER, str(NEWER))
    assert draft.section_hashes is not None and set(draft.section_hashes) >= {"stable"}
    assert (draft.model_extra or {}).get("prefix_hash")

    assert main(["prompts", "upgrade", "--all", "--yes", "--project", str(sample)]) == 0
    assert "没有需要升级的提示词" in capsys.readouterr().out


def test_the_stable_section_hash_changes_with_the_version_and_only_the_stable_one(
    sample: Path, newer_prompts: Path
) -> None:
    project = Project.open(sample)
    registry = installed_registry()
    old = AgentRequests(project, Settings(), registry.with_pins({WRITER: CURRENT})).writer(3, note=None, revision=None)
    new = AgentRequests(project, Settings(), registry.with_pins({WRITER: NEWER})).writer(3, note=None, revision=None)
    a, b = section_hashes(old.request), section_hashes(new.request)
    assert a["stable"] != b["stable"] and a.get("volume") == b.get("volume")


# ------------------------------------------------------------------------------------------ a missing file


def test_a_pinned_version_whose_file_is_gone_is_a_clear_error_with_the_way_out(
    sample: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    paths = ProjectPaths(sample)
    pins = read_pins(paths)
    assert pins is not None
    write_pins(paths, {**pins, WRITER: 9})
    with pytest.raises(PinnedPromptMissingError) as info:
        project_registry(sample)
    message = str(info.value)
    assert "chapter-writer" in message and "v9" in message and "prompts upgrade chapter-writer" in message
    assert main(["continue", "--project", str(sample), "--offline", "--yes"]) == 1
    assert "prompts upgrade chapter-writer" in capsys.readouterr().out
    assert ProjectPaths(sample).log(3).exists() is False  # stopped before any call

    assert main(["prompts", "list", "--project", str(sample), "--json"]) == 0
    writer = next(p for p in json.loads(capsys.readouterr().out)["prompts"] if p["prompt_id"] == WRITER)
    assert writer["missing"] is True
    assert main(["prompts", "upgrade", "chapter-writer", "--yes", "--project", str(sample)]) == 0
    assert read_pins(paths)[WRITER] == installed_versions()[WRITER][-1]  # type: ignore[index]
    assert project_registry(sample).get(WRITER).version == installed_versions()[WRITER][-1]


# ------------------------------------------------------------------------------------------ cache share


def test_status_and_header_show_the_cache_share_over_the_calls_that_reported_it(sample: Path) -> None:
    paths = ProjectPaths(sample)
    at = "2026-11-22T10:00:00+00:00"
    append_spend(paths.spend_ledger, SpendEntry(at=at, stage="draft", chapter=3, model="m", input_tokens=200,
                                                cache_write_tokens=300, cache_read_tokens=500, output_tokens=10))
    append_spend(paths.spend_ledger, SpendEntry(at=at, stage="judge", chapter=3, model="m", input_tokens=100,
                                                cache_read_tokens=900, output_tokens=10))
    # An offline call reports no cache use: it is left out instead of diluting the share.
    append_spend(paths.spend_ledger, SpendEntry(at=at, stage="draft", chapter=3, model="m", input_tokens=5000,
                                                output_tokens=10, offline=True))
    report = build_status(Project.open(sample))
    assert report.cache.book == pytest.approx(1400 / 2000) and report.cache.book_calls == 2
    assert report.cache.source == "ledger"
    text = render_status(report)
    assert "提示词缓存命中：全书 70.0%（花费账本，2 次报告了缓存的调用）" in text
    assert "cache 70%" in render_header(HeaderInfo(title="t", cache_share=report.cache.book), "en", width=200).plain


def test_the_last_chapters_share_comes_from_its_log(sample: Path) -> None:
    path = ProjectPaths(sample).log(2)
    data = json.loads(path.read_text(encoding="utf-8"))
    for stage in data["stages"]:
        stage.update(input_tokens=100, cache_creation_input_tokens=0, cache_read_input_tokens=300)
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    report = build_status(Project.open(sample))
    assert (report.cache.chapter, report.cache.chapter_share) == (2, 0.75)
    assert "第2章 75.0%" in render_status(report)


def test_no_cache_figures_no_line(sample: Path) -> None:
    """The sample's logs and empty ledger report no cache use: nothing is claimed."""
    report = build_status(Project.open(sample))
    assert report.cache.book is None and report.cache.chapter_share is None
    assert "缓存" not in render_status(report)
    assert "缓存" not in render_header(HeaderInfo(title="t"), "zh", width=200).plain


# ------------------------------------------------------------------------------------------ rebuild


def test_rebuild_uses_the_pinned_versions_and_says_a_newer_one_is_installed(
    sample: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pinned = installed_versions()["summarizer"][-1]
    install_newer_prompts(tmp_path, monkeypatch, "summarizer")
    assert main(["rebuild", "2", "--project", str(sample), "--offline", "--yes"]) == 0
    err = capsys.readouterr().err
    assert f"本次重建按项目固定的提示词版本进行（summarizer v{pinned}，已安装 v{pinned + 1}）" in err
    assert "quality-judge" not in err  # not used without --rejudge
    calls = [e for e in read_spend(ProjectPaths(sample).spend_ledger)[0] if e.prompt_id == "summarizer"]
    assert calls and {e.prompt_version for e in calls} == {str(pinned)}
    assert read_pins(ProjectPaths(sample))["summarizer"] == pinned  # type: ignore[index]


def test_rebuild_pins_an_unpinned_project_and_says_so_only_once_agreed(
    sample: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from studio.cli import continue_cmd

    _settings_without_pins(sample)
    monkeypatch.setattr("studio.cli.common.is_interactive", lambda: False)
    monkeypatch.setattr(continue_cmd, "AGENTS_FACTORY", lambda r, s, o: continue_cmd.default_agents(r, s, True))
    assert main(["rebuild", "2", "--project", str(sample)]) == 3  # asks first: no answer, nothing written
    assert read_pins(ProjectPaths(sample)) is None and "提示词" not in capsys.readouterr().err

    assert main(["rebuild", "2", "--project", str(sample), "--yes"]) == 0
    assert "首次固定了提示词版本" in capsys.readouterr().err
    assert read_pins(ProjectPaths(sample)) == latest_pins()
    assert main(["rebuild", "2", "--project", str(sample), "--yes", "--json"]) == 0
    out = capsys.readouterr()
    assert "首次固定" not in out.err and json.loads(out.out)["chapter"] == 2  # said once; --json stays one object
