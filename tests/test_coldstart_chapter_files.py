"""Issue 11 item 5: the files a chapter reads are checked before its first model call, not after the chapter
started (and possibly after the model was paid) with "进度已保存，可稍后继续", which does not help when a file is
broken. A stage that meets a broken file anyway says how to get out."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from pipeline.agents.protocol import SummarizerOutput
from pipeline.orchestrator import ChapterFilesBroken
from studio.errors import FormatError, Problem
from studio.init_project import init_project
from studio.paths import ProjectPaths
from tests.fake_agents import FakeAgents
from tests.test_orchestrator import fake, run, staging_files


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return init_project(tmp_path / "novel", sample=True)


@pytest.mark.parametrize("rel", [
    "characters/active/shen-zhao.json",
    "volumes/vol-01/chapter-contracts/chapter-003.json",
    "storylines/storylines.json",
    "style-profile.json",
])
def test_a_broken_file_the_chapter_reads_stops_the_run_before_the_first_call(root: Path, rel: str) -> None:
    paths = ProjectPaths(root)
    (root / rel).write_bytes(b'{"id": [1], ' + b"\xff")
    checkpoint = paths.checkpoint.read_bytes()
    agents = FakeAgents(paths)
    with pytest.raises(ChapterFilesBroken) as caught:
        asyncio.run(run(root, agents))
    assert agents.log == [], "no model call before the files are checked"
    assert paths.checkpoint.read_bytes() == checkpoint, "the chapter must not be marked started"
    assert staging_files(root) == []
    zh = caught.value.text("zh")
    assert rel in zh and "没有调用模型" in zh and "novel-studio repair" in zh and "进度已保存" not in zh
    assert rel in str(caught.value) and "no model was called" in str(caught.value)


class BrokenFileAtSummary(FakeAgents):
    async def summarize(self, chapter: int, text: str, hints: str) -> SummarizerOutput:
        raise FormatError([Problem(self.paths.root / "world/rules.json", "not a JSON object", zh="不是 JSON 对象")])


def test_a_stage_that_meets_a_broken_file_says_how_to_get_out(root: Path) -> None:
    result = asyncio.run(run(root, BrokenFileAtSummary(ProjectPaths(root))))
    assert result.error is not None
    assert "world/rules.json" in result.error and "用文本编辑器修正这个文件" in result.error
    assert "novel-studio repair" in result.error


def test_a_sound_project_still_writes(root: Path) -> None:
    result = asyncio.run(run(root, fake(root)))
    assert result.committed == [3]
