"""Writer replies cleaned into chapter text, and replies that are no chapter (issue 9 item 7)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipeline.agents.draft_text import clean_draft, not_a_chapter
from pipeline.agents.runner import ModelAgents
from pipeline.agents.writer import InvalidDraftError, draft_problem
from pipeline.providers.base import ModelRequest, ModelResult, TextCallback, Usage
from studio.init_project import init_project
from studio.models.settings import Settings
from studio.project import Project

BODY = "\n\n".join(f"沈照把第{i}单外卖挂上车把，雾从巷口漫进来，灯火只照出三丈。" for i in range(1, 120))
CHAPTER = f"# 第3章 旧书店的熟客\n\n{BODY}"


@pytest.mark.parametrize(
    "reply",
    [
        f"好的，以下是第3章的正文：\n\n{CHAPTER}",
        f"```markdown\n{CHAPTER}\n```",
        f"Sure, here is chapter 3:\n```\n{CHAPTER}\n```",
        f"# 第3章 旧书店的熟客\n\n# 第3章 旧书店的熟客\n\n{BODY}",
        f"# 第3章 旧书店的熟客\n\n**第3章 旧书店的熟客**\n\n旧书店的熟客\n\n{BODY}",
        f"{CHAPTER}\n\n以上是第3章的全部内容，如需修改请告诉我。",
        f"\ufeff这是根据您的大纲续写的第三章：\n{CHAPTER}",
    ],
)
def test_preambles_fences_and_repeated_headings_are_stripped(reply: str) -> None:
    assert clean_draft(reply) == CHAPTER


def test_prose_is_left_alone() -> None:
    opening = "“好的，以下是今晚的单子。”许青禾把登记册推过来。"
    text = f"# 第3章 雾\n\n{opening}\n\n{BODY}\n\n（本章完）"
    assert clean_draft(text) == text
    long_preface = "雾" * 300 + "。"  # a long text before the heading may be prose: kept
    assert clean_draft(f"{long_preface}\n\n{CHAPTER}").startswith(long_preface)


@pytest.mark.parametrize(
    ("reply", "kind"),
    [
        ("抱歉，我无法续写这一章，因为其中涉及的内容不适合创作。", "refusal"),
        ("I'm sorry, but I can't write this chapter.", "refusal"),
        ("# 第3章 雾\n\n对不起，作为一个AI助手，我不能提供这段内容。", "refusal"),
        ("# 第3章 提纲\n\n" + "\n".join(f"- 场景{i}：沈照去书店" for i in range(1, 9)), "outline"),
        ("## 第一幕\n\n1. 沈照出门\n2. 遇雾\n3. 点灯\n4. 许青禾来\n5. 收灯", "outline"),
    ],
)
def test_not_a_chapter(reply: str, kind: str) -> None:
    found = not_a_chapter(clean_draft(reply))
    assert found is not None and found[0] == kind
    problem = draft_problem(clean_draft(reply), min_chars=10, max_chars=3500)
    assert problem is not None and problem.kind == kind


def test_a_chapter_is_a_chapter() -> None:
    assert not_a_chapter(CHAPTER) is None
    apology_in_dialogue = "# 第3章 雾\n\n“对不起，我不能把灯交给你。”沈照说。\n\n" + BODY
    assert not_a_chapter(apology_in_dialogue) is None


class Scripted:
    name = "scripted"
    offline = False

    def __init__(self, *replies: str) -> None:
        self.replies = list(replies)

    async def run(self, request: ModelRequest, on_text: TextCallback | None = None) -> ModelResult:
        return ModelResult(self.replies.pop(0), "end_turn", Usage(input_tokens=1, output_tokens=1), request.model, 1, 1)


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project.open(init_project(tmp_path / "novel", sample=True))


async def test_a_refusal_is_drafted_again_and_never_returned(project: Project) -> None:
    refusal = "很抱歉，我无法完成这个续写请求。"
    settings = Settings()
    settings.writing.chapter_min_chars = 1000
    settings.writing.chapter_max_chars = 10_000  # in range: no continuation or trim call
    agents = ModelAgents(project, settings, Scripted(refusal, f"好的，以下是正文：\n```\n{CHAPTER}\n```"))
    out = await agents.write(3, note=None, revision=None, on_text=None)
    assert out.text == CHAPTER + "\n" and len(out.calls) == 2


async def test_refusals_every_time_fail_the_stage(project: Project) -> None:
    refusal = "很抱歉，我无法完成这个续写请求。"
    agents = ModelAgents(project, Settings(), Scripted(refusal, refusal, refusal))
    with pytest.raises(InvalidDraftError) as caught:
        await agents.write(3, note=None, revision=None, on_text=None)
    assert caught.value.problem.kind == "refusal"


async def test_a_long_draft_is_trimmed_once_by_edits(project: Project) -> None:
    settings = Settings()
    settings.writing.chapter_min_chars = 1000
    settings.writing.chapter_max_chars = 2000
    first = "沈照把第1单外卖挂上车把，雾从巷口漫进来，灯火只照出三丈。"
    trim = json.dumps({"edits": [{"original": first, "refined": "", "reason": "删减"}]}, ensure_ascii=False)
    agents = ModelAgents(project, settings, Scripted(CHAPTER, trim))
    out = await agents.write(3, note=None, revision=None, on_text=None)
    assert [c.stage for c in out.calls] == ["draft", "trim"]
    assert first not in out.text and out.text.startswith("# 第3章 旧书店的熟客\n")
