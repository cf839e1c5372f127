"""What the orchestrator needs from the agents, as a protocol, so it can be driven by fakes in tests.

The real implementation (`pipeline.agents.runner.ModelAgents`) builds each request from the project (context
assembly), calls the provider with stage retries, validates replies (repair loop) and returns these outputs.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Protocol

from pipeline.providers.base import Usage
from pipeline.refine_edits import RefineEdit, RefineResult
from studio.models.blacklist_proposals import SuggestedEntry
from studio.models.evaluation import Evaluation
from studio.models.patch import StatePatch

TextSink = Callable[[str], Awaitable[None] | None]


@dataclass(frozen=True)
class CallRecord:
    """One model call, as it goes into the chapter log (`StageLog`)."""

    stage: str  # draft | revise | rewrite | summarize | refine | polish | judge | judge-secondary | repair
    model: str
    duration_ms: int
    usage: Usage | None
    cost_usd: float | None
    prompt_id: str | None = None
    prompt_version: str | None = None
    estimated_prompt_tokens: int | None = None
    ttft_ms: int | None = None
    offline: bool = False
    # sha256 (12 hex) of the request's cached prefix (every block up to the last cache breakpoint): two calls of
    # an agent with the same hash can share the prompt cache; a change says which chapter broke it
    prefix_hash: str | None = None
    # tier -> sha256 (12 hex) of each rendered cached section as sent (`stable`, `volume`): which part changed
    section_hashes: dict[str, str] | None = None


@dataclass(frozen=True)
class RevisionInput:
    """What a revision or rewrite works from: the previous text and the judge's findings."""

    kind: str  # "revision" | "rewrite"
    previous_text: str
    required_fixes: list[str]
    issues: list[str] = field(default_factory=list)
    violations: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class WriterOutput:
    text: str  # the chapter in Markdown, `# 第N章 标题` first; never contains the hints block
    hints: str  # natural-language state hints (context for the Summarizer only)
    calls: list[CallRecord]


@dataclass(frozen=True)
class SummarizerOutput:
    summary: str  # <= 300 characters
    patch: StatePatch | None  # None: the ops were malformed twice and are skipped for this chapter
    storyline_id: str
    storyline_memory: str  # <= 500 characters
    cross_references: list[str]
    leak_risk: str  # low | medium | high
    warnings: list[str]
    calls: list[CallRecord]
    structure: dict[str, str] = field(default_factory=dict)  # the chapter's tags (studio.checks.tags.TAGS)


@dataclass(frozen=True)
class RefinerOutput:
    edits: list[RefineEdit]
    result: RefineResult  # decisions per edit, the refined text
    calls: list[CallRecord]


@dataclass(frozen=True)
class JudgeOutput:
    evaluation: Evaluation  # overall recomputed by us; dual judge: the lower result, union of violations
    calls: list[CallRecord]
    # the judge's advisory blacklist entries (both judges' on a key chapter); recorded for the author's review
    blacklist_suggestions: list[SuggestedEntry] = field(default_factory=list)


class Agents(Protocol):
    async def write(
        self, chapter: int, *, note: str | None, revision: RevisionInput | None, on_text: TextSink | None
    ) -> WriterOutput: ...

    async def summarize(self, chapter: int, text: str, hints: str) -> SummarizerOutput: ...

    async def refine(self, chapter: int, text: str, *, polish: bool) -> RefinerOutput: ...

    async def judge(self, chapter: int, text: str, *, key_chapter: bool, revision: int) -> JudgeOutput: ...
