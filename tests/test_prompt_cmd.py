"""`novel-studio prompt AGENT [CHAPTER] [--json]`: the request an agent would send, never sent."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipeline.agents.runner import ModelAgents
from pipeline.context import default_registry, writer_context
from pipeline.context_pieces import first_sentences
from pipeline.planning.prompt_context import (
    DEFAULT_VOLUME_LENGTH,
    PlanTarget,
    character_weaver_context,
    next_plan_target,
    plot_architect_context,
    style_analyzer_context,
    world_builder_context,
)
from pipeline.providers.anthropic_provider import AnthropicProvider, ProviderConfig
from pipeline.providers.offline import chapter_reply, judge_reply
from pipeline.staging import ChapterStaging
from studio.cli.main import main
from studio.cli.prompt_cmd import ALIASES, build_preview, request_body, safe_url
from studio.init_project import init_project
from studio.lock import ProjectLock
from studio.models.settings import Settings
from studio.project import Project
from studio.prompt_pins import installed_versions
from tests.fakeapi import FakeMessagesAPI, Reply

SETTINGS = Settings()
BRIEF_LINE = "冷雾里的热汤"
STAGED = "# 第3章 雾里的铃\n\n顾远舟把铃放回柜台。\n"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return init_project(tmp_path / "novel", sample=True)


def _tree(root: Path) -> dict[str, tuple[int, int]]:
    return {str(p.relative_to(root)): (p.stat().st_size, p.stat().st_mtime_ns) for p in root.rglob("*") if p.is_file()}


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_writer_preview_shows_blocks_and_cache_marks(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "prompt", "writer", "--project", str(root))
    assert code == 0
    assert f"chapter-writer v{installed_versions()['chapter-writer'][-1]}" in out and SETTINGS.models.chapter_writer in out
    assert "第 3 章" in out  # the sample has chapters 1-2 committed: the next chapter is 3
    assert "===== system[0]  [缓存断点] =====" in out
    assert "===== messages[0] user 第 0 块  [缓存断点] =====" in out
    assert "===== messages[0] user 第 1 块 =====" in out  # the chapter tier carries no mark
    system = out.split("===== system[0]")[1].split("===== messages[0]")[0]
    assert BRIEF_LINE in system
    assert "未发送" in out


def test_every_alias_renders(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for alias, prompt_id in ALIASES.items():
        code, out, err = _run(capsys, "prompt", alias, "--project", str(root), "--lang", "en")
        assert code == 0, (alias, err)
        latest = default_registry().get(prompt_id).version  # prompts gain versions (quality-judge v2)
        assert f"prompt {prompt_id} v{latest}" in out, alias
        planning = alias in {"world", "character", "plot", "style"}
        assert ("rendered from what the project holds now" in out) == planning, alias
        assert "not wired" not in out, alias  # the planning agents run since issue 7
        assert BRIEF_LINE in out, alias


def test_prompt_id_and_chapter_are_accepted(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "prompt", "quality-judge", "1", "--project", str(root))
    assert code == 0 and "第 1 章（读取已提交的正文）" in out
    assert "# 第1章" in out


def test_unknown_agent_is_a_usage_error(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(capsys, "prompt", "poet", "--project", str(root))
    assert code == 2 and "poet" in err and "writer" in err


def test_bad_chapter_is_a_usage_error(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(capsys, "prompt", "writer", "0", "--project", str(root))
    assert code == 2 and "0" in err


def test_reader_without_text_says_so(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(capsys, "prompt", "summarizer", "7", "--project", str(root))
    assert code == 1 and out == ""
    assert "第 7 章" in err and "暂存稿" in err


def test_readers_default_to_the_last_committed_chapter(root: Path) -> None:
    project = Project.open(root)
    for agent in ("summarizer", "refiner", "judge", "reviser"):
        preview = build_preview(project, SETTINGS, agent)
        assert (preview.chapter, preview.text_source) == (2, "committed"), agent


def test_readers_take_the_staged_next_chapter(root: Path) -> None:
    staged = ChapterStaging(Project.open(root).paths, 3).current
    staged.parent.mkdir(parents=True, exist_ok=True)
    staged.write_text(STAGED, encoding="utf-8")
    project = Project.open(root)
    for agent in ("summarizer", "refiner", "judge"):
        preview = build_preview(project, SETTINGS, agent)
        assert (preview.chapter, preview.text_source) == (3, "staged"), agent
        assert "顾远舟把铃放回柜台。" in json.dumps(request_body(preview.request), ensure_ascii=False)


def test_reviser_uses_the_chapters_evaluation(root: Path) -> None:
    preview = build_preview(Project.open(root), SETTINGS, "reviser", 2)
    assert preview.revision_source == "evaluation"
    assert preview.request.agent == "revision" and preview.request.model == SETTINGS.models.revision


def test_json_is_the_body_the_sdk_sends(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "prompt", "judge", "2", "--json", "--project", str(root))
    assert code == 0
    body = json.loads(out)
    assert body["stream"] is True and body["model"] == SETTINGS.models.quality_judge
    assert body["output_config"]["format"]["type"] == "json_schema"
    assert body["system"][0]["cache_control"] == {"type": "ephemeral"}
    assert set(body) == {"model", "max_tokens", "messages", "system", "output_config", "stream"}


async def test_json_equals_what_the_run_posts(root: Path) -> None:
    """The preview goes through the same request builder as ModelAgents: the fake API receives the same body."""
    project = Project.open(root)
    with FakeMessagesAPI() as api:
        provider = AnthropicProvider(
            ProviderConfig(base_url=api.base_url, env={"ANTHROPIC_API_KEY": "sk-secret-key"}, max_retries=0)
        )
        try:
            agents = ModelAgents(project, SETTINGS, provider)
            api.script(Reply(text=chapter_reply(writer_context(project, SETTINGS, 3).data)))
            await agents.write(3, note=None, revision=None, on_text=None)
            text = project.chapter_text(2) or ""
            ctx = {"chapter": 2, "quotes": first_sentences(text)}  # real quotes: one judge call, no follow-up
            api.script(Reply(text=json.dumps(judge_reply(ctx), ensure_ascii=False)))
            await agents.judge(2, text, key_chapter=False, revision=0)
        finally:
            await provider.aclose()
    writer_body, judge_body = (r.body for r in api.requests)
    assert request_body(build_preview(project, SETTINGS, "writer", 3).request) == writer_body
    assert request_body(build_preview(project, SETTINGS, "judge", 2).request) == judge_body
    assert "sk-secret-key" not in json.dumps(writer_body)


def test_no_lock_and_no_write(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    project = Project.open(root)
    with ProjectLock(project.paths, chapter=3):  # another run holds the project
        before = _tree(root)
        for agent in ("writer", "judge", "plot"):
            code, _, err = _run(capsys, "prompt", agent, "--project", str(root))
            assert code == 0, err
        assert _tree(root) == before


def test_endpoint_never_shows_credentials() -> None:
    assert safe_url("https://user:sk-123@proxy.example.com:8443/v1?key=sk-456#x") == "https://proxy.example.com:8443/v1"
    assert safe_url(None) == "https://api.anthropic.com"


# ---------------------------------------------------------------------------------------------- planning contexts


def test_plan_target_is_the_next_unplanned_volume(root: Path, tmp_path: Path) -> None:
    # the sample has volume 1 planned (chapters 1-10): the next plan is volume 2 from chapter 11
    assert next_plan_target(Project.open(root), 20) == PlanTarget(volume=2, first=11, last=30)
    fresh = Project.open(init_project(tmp_path / "fresh"))
    assert next_plan_target(fresh) == PlanTarget(volume=1, first=1, last=DEFAULT_VOLUME_LENGTH)
    with pytest.raises(ValueError):
        PlanTarget(volume=1, first=5, last=4)


def test_plot_prompt_carries_the_range_and_open_threads(root: Path) -> None:
    bundle = plot_architect_context(Project.open(root))
    chapter = bundle.section("chapter")
    assert "第 2 卷大纲（第 11 章至第 40 章）" in chapter
    assert "grandfather-ledger" in chapter and "main-arc" in chapter
    assert BRIEF_LINE in bundle.section("stable") and BRIEF_LINE not in chapter


def test_world_builder_mode_follows_the_project(root: Path, tmp_path: Path) -> None:
    assert world_builder_context(Project.open(root)).data["mode"] == "增量更新"
    fresh_root = init_project(tmp_path / "fresh")
    research = fresh_root / "research"
    research.mkdir(exist_ok=True)
    (research / "ports.md").write_text("# 港口\n民国时期的海关制度。\n", encoding="utf-8")
    bundle = world_builder_context(Project.open(fresh_root))
    assert bundle.data["mode"] == "初始化"
    assert '<doc name="ports.md">' in bundle.section("chapter") and "海关制度" in bundle.section("chapter")


def test_style_and_character_prompts_use_what_exists(root: Path, tmp_path: Path) -> None:
    style = style_analyzer_context(Project.open(root))
    assert style.data["sample_chapters"] == [1, 2] and "# 第1章" in style.section("chapter")
    fresh = Project.open(init_project(tmp_path / "fresh"))
    assert "尚无样本章节" in style_analyzer_context(fresh).section("chapter")
    weaver = character_weaver_context(fresh)
    assert weaver.data["character_ids"] == [] and "主角" in weaver.section("chapter")
    assert 'id="shen-zhao"' in character_weaver_context(Project.open(root)).section("chapter")


def test_a_staged_chapter_that_is_not_utf8_is_reported(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    staged = ChapterStaging(Project.open(root).paths, 3).current
    staged.parent.mkdir(parents=True, exist_ok=True)
    staged.write_bytes(b"\xff\xfe\x00\x81 not utf-8")
    code, out, err = _run(capsys, "prompt", "judge", "3", "--project", str(root))
    assert code == 1 and out == "" and "chapter-003" in err
    assert staged.read_bytes() == b"\xff\xfe\x00\x81 not utf-8"  # nothing rewritten


def test_contracts_preview_shows_the_batch_that_holds_the_chapter(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(capsys, "prompt", "contracts", "5", "--project", str(root))
    assert code == 0, err
    assert "plot-contracts v1" in out
    assert "涵盖第 1-10 章" in out  # the sample's volume 1 outline holds chapters 1-10: one batch
    assert "为第 1 章至第 10 章各写一条章节契约" in out
    code, out, err = _run(capsys, "prompt", "plot-contracts", "--project", str(root), "--lang", "en")
    assert code == 0 and "covers chapters 1-10" in out, err


def test_contracts_preview_outside_every_plan_says_to_plan(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(capsys, "prompt", "contracts", "99", "--project", str(root))
    assert code == 1
    assert "第 99 章" in err and "novel-studio plan" in err


def test_survey_preview_reads_the_written_chapters(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(capsys, "prompt", "survey", "--project", str(root))
    assert code == 0, err
    assert "import-survey v1" in out and "涵盖第 1-2 章" in out  # the sample has chapters 1-2 committed
    assert '<chapter n="1">' in out and '<chapter n="2">' in out
    code, _, err = _run(capsys, "prompt", "survey", "3", "--project", str(root))
    assert code == 1 and "第 3 章" in err
