"""Request building for the writing agents, apart from sending: what `ModelAgents` sends and what
`novel-studio prompt` prints come from these same functions.

Each builder assembles the agent's context (`pipeline.context`), renders it by cache tier into a
`ModelRequest` (system = stable tier, user turn = volume tier + chapter tier) and picks the model and
max_tokens of the agent from the settings; JSON agents carry their reply schema. Nothing here touches the
network, a lock or a file outside the project's reads.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from pipeline.agents.protocol import RevisionInput
from pipeline.agents.refiner import POLISH_CAP_RATIO, REFINE_CAP_RATIO
from pipeline.context import (
    ContextBundle,
    fixer_context,
    judge_context,
    refiner_context,
    request_from_bundle,
    reviser_context,
    summarizer_context,
    writer_context,
)
from pipeline.prompts_registry import PromptRegistry
from pipeline.providers.base import ModelRequest
from pipeline.refine_edits import RefineReply
from pipeline.replies import JudgeReply, SummarizerReply, schema_for
from studio.models.settings import Settings
from studio.project import Project

__all__ = ["AgentRequests", "WriterRequest"]


@dataclass(frozen=True)
class WriterRequest:
    request: ModelRequest
    bundle: ContextBundle
    stage: str  # draft | rewrite | revise


@dataclass(frozen=True)
class AgentRequests:
    """The request builders of the four writing agents for one project."""

    project: Project
    settings: Settings
    registry: PromptRegistry

    def build(
        self,
        bundle: ContextBundle,
        agent: str,
        *,
        schema_model: type[Any] | None = None,
        context: dict[str, Any] | None = None,
        chapter: int | None = None,
    ) -> ModelRequest:
        request = request_from_bundle(
            bundle,
            agent=agent,
            model=self.settings.model_for(agent),
            max_tokens=self.settings.max_tokens_for(agent),
            json_schema=schema_for(schema_model) if schema_model is not None else None,
            context=context,
        )
        # The chapter travels with the request so the spend ledger can book the call against it.
        return replace(request, chapter=chapter)

    def writer(self, chapter: int, *, note: str | None, revision: RevisionInput | None) -> WriterRequest:
        """A first draft, a full rewrite (revision.kind == "rewrite") or a targeted revision."""
        if revision is None:
            bundle = writer_context(self.project, self.settings, chapter, note=note, registry=self.registry)
            agent, stage = "chapter_writer", "draft"
        elif revision.kind == "rewrite":
            bundle = writer_context(
                self.project, self.settings, chapter, note=note, rewrite=revision, registry=self.registry
            )
            agent, stage = "revision", "rewrite"
        else:
            bundle = reviser_context(self.project, self.settings, chapter, revision, note=note, registry=self.registry)
            agent, stage = "revision", "revise"
        return WriterRequest(self.build(bundle, agent, context={"stage": stage}, chapter=chapter), bundle, stage)

    def fixer(self, chapter: int, revision: RevisionInput) -> ModelRequest:
        """A local revision answered with edits (`chapter-fixer`), on the revision agent's model."""
        bundle = fixer_context(self.project, self.settings, chapter, revision, registry=self.registry)
        return self.build(bundle, "revision", schema_model=RefineReply, context={"stage": "fix"}, chapter=chapter)

    def summarizer(self, chapter: int, text: str, hints: str) -> tuple[ModelRequest, ContextBundle]:
        bundle = summarizer_context(self.project, self.settings, chapter, text, hints, registry=self.registry)
        return self.build(bundle, "summarizer", schema_model=SummarizerReply, chapter=chapter), bundle

    def refiner(
        self, chapter: int, text: str, *, polish: bool, findings: list[str] | None = None
    ) -> ModelRequest:
        cap = POLISH_CAP_RATIO if polish else REFINE_CAP_RATIO
        bundle = refiner_context(
            self.project,
            self.settings,
            chapter,
            text,
            cap_ratio=cap,
            polish=polish,
            findings=findings,
            registry=self.registry,
        )
        return self.build(bundle, "style_refiner", schema_model=RefineReply, chapter=chapter)

    def judge(
        self,
        chapter: int,
        text: str,
        *,
        cross_references: list[str] | None,
        revision: int,
        secondary: bool = False,
    ) -> ModelRequest:
        bundle = judge_context(
            self.project,
            self.settings,
            chapter,
            text,
            cross_references=cross_references,
            revision=revision,
            registry=self.registry,
        )
        return self.build(
            bundle, "judge_secondary" if secondary else "quality_judge", schema_model=JudgeReply, chapter=chapter
        )
