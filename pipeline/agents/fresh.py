"""`FreshProjectAgents`: the real agents (`ModelAgents`), rebuilt on a freshly opened project for every chapter.

A `Project` is a snapshot, and the state, summaries and memories change with each commit, so a run of several
chapters must not reuse one. Shared by `continue` and the quick start's trial chapters.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pipeline.agents.protocol import (
    JudgeOutput,
    RefinerOutput,
    RevisionInput,
    SummarizerOutput,
    TextSink,
    WriterOutput,
)
from pipeline.providers.base import Provider
from pipeline.providers.retry import RetryHook
from studio.models.settings import Settings

__all__ = ["FreshProjectAgents", "RetryHook"]


class FreshProjectAgents:
    """The real agents, rebuilt on a freshly opened project for every chapter (see the module docstring)."""

    def __init__(self, root: Path, settings: Settings, provider: Provider, on_retry: RetryHook | None = None) -> None:
        self.root = root
        self.settings = settings
        self.provider = provider
        self.on_retry = on_retry
        self._chapter: int | None = None
        self._agents: Any = None

    def _for(self, chapter: int) -> Any:
        if self._agents is None or self._chapter != chapter:
            from pipeline.agents.runner import ModelAgents
            from studio.project import Project

            self._agents = ModelAgents(Project.open(self.root), self.settings, self.provider, on_retry=self.on_retry)
            self._chapter = chapter
        return self._agents

    async def write(
        self, chapter: int, *, note: str | None, revision: RevisionInput | None, on_text: TextSink | None
    ) -> WriterOutput:
        self._agents = None  # a revision or a new draft: start from the files as they are now
        result: WriterOutput = await self._for(chapter).write(chapter, note=note, revision=revision, on_text=on_text)
        return result

    async def summarize(self, chapter: int, text: str, hints: str) -> SummarizerOutput:
        result: SummarizerOutput = await self._for(chapter).summarize(chapter, text, hints)
        return result

    async def refine(self, chapter: int, text: str, *, polish: bool) -> RefinerOutput:
        result: RefinerOutput = await self._for(chapter).refine(chapter, text, polish=polish)
        return result

    async def judge(self, chapter: int, text: str, *, key_chapter: bool, revision: int) -> JudgeOutput:
        result: JudgeOutput = await self._for(chapter).judge(chapter, text, key_chapter=key_chapter, revision=revision)
        return result
