"""`ModelAgents`: the `Agents` protocol on top of a model provider.

Each call: assemble the context (`pipeline.context`), render the prompt by cache tier into a request
(system = stable tier, user turn = volume tier + chapter tier, breakpoints after the first two), pick the
model and max_tokens of the agent from the settings, run it with stage retries, validate JSON replies
(repair loop) and record every call with its cost, prompt id/version and estimated prompt size.
"""

from __future__ import annotations

import asyncio
import hashlib
import inspect
import time
from collections.abc import Awaitable, Callable
from dataclasses import replace

from pipeline.agents.judge import combine_evaluations, run_judge
from pipeline.agents.judge_calibration import evaluation_findings, style_cap_reason
from pipeline.agents.length import fix_length
from pipeline.agents.protocol import (
    Agents,
    CallRecord,
    JudgeOutput,
    RefinerOutput,
    RevisionInput,
    SummarizerOutput,
    TextSink,
    WriterOutput,
)
from pipeline.agents.refiner import POLISH_CAP_RATIO, REFINE_CAP_RATIO, run_refiner
from pipeline.agents.requests import AgentRequests
from pipeline.agents.summarizer import run_summarizer
from pipeline.agents.writer import StreamInvoke, check_not_truncated, ensure_heading, run_writer
from pipeline.context import (
    FIX_CAP_RATIO,
    chapter_info,
    outline_for,
    project_platform,
)
from pipeline.context_pieces import is_local
from pipeline.platform_gates import apply_score_gates
from pipeline.prompts_registry import PromptRegistry, project_registry
from pipeline.providers.base import ModelRequest, ModelResult, Provider, ProviderError
from pipeline.providers.cost import cost_usd, price_for, settings_prices
from pipeline.providers.retry import RetryHook, run_with_stage_retry
from pipeline.refine_edits import RefineReply, apply_edits
from pipeline.structured import call_structured
from pipeline.tokens import estimate_tokens
from studio.blacklist_review import record_suggestions
from studio.checks.matcher import blacklist_matcher
from studio.checks.metrics import prose_metrics
from studio.checks.names import NameRegistry
from studio.errors import StudioError
from studio.models.evaluation import Evaluation
from studio.models.settings import Settings
from studio.models.state import CurrentState
from studio.project import Project

__all__ = ["ModelAgents", "is_key_chapter", "is_local_revision", "prefix_hash", "request_text", "section_hashes"]



def is_key_chapter(project: Project, chapter: int) -> bool:
    """First or last chapter of its volume's outline, or a chapter inside a planned convergence event."""
    _, outline = outline_for(project, chapter)
    if outline is not None and outline.chapter_range is not None and chapter in outline.chapter_range:
        return True
    info = chapter_info(project, chapter)
    return info.is_convergence


def is_local_revision(revision: RevisionInput | None) -> bool:
    """A revision (not a rewrite) whose every fix and violation names paragraphs: fixed by edits in place;
    anything structural (no paragraph named, or the whole chapter) goes to the full revision."""
    if revision is None or revision.kind != "revision" or not revision.required_fixes:
        return False
    return all(is_local(f) for f in (*revision.required_fixes, *revision.violations))


def prefix_hash(request: ModelRequest) -> str | None:
    """sha256 (12 hex) of the cached prefix: every block up to the last cache breakpoint; None without one."""
    blocks: list[tuple[str, bool]] = [(b.text, b.cache) for b in request.system]
    for message in request.messages:
        content = message.get("content")
        if isinstance(content, list):
            blocks += [(str(b.get("text", "")), "cache_control" in b) for b in content if isinstance(b, dict)]
    last = max((i for i, (_, cached) in enumerate(blocks) if cached), default=-1)
    if last < 0:
        return None
    digest = hashlib.sha256()
    for text, _ in blocks[: last + 1]:
        digest.update(text.encode("utf-8") + b"\x00")
    return digest.hexdigest()[:12]


def _short_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def section_hashes(request: ModelRequest) -> dict[str, str]:
    """tier -> sha256 (12 hex) of each cached section as sent: `stable` = the system blocks, `volume` = the
    cached blocks of the first user turn (`request_from_bundle`'s layout). Empty when nothing is cached."""
    found: dict[str, str] = {}
    stable = [b.text for b in request.system if b.cache]
    if stable:
        found["stable"] = _short_hash("\x00".join(stable))
    content = request.messages[0].get("content") if request.messages else None
    if isinstance(content, list):
        volume = [str(b.get("text", "")) for b in content if isinstance(b, dict) and "cache_control" in b]
        if volume:
            found["volume"] = _short_hash("\x00".join(volume))
    return found


def request_text(request: ModelRequest) -> str:
    """All the text a request sends (system blocks and every message block), for the size estimate."""
    parts = [block.text for block in request.system]
    for message in request.messages:
        content = message.get("content")
        if isinstance(content, str):
            parts.append(content)
        elif isinstance(content, list):
            parts += [str(b.get("text", "")) for b in content if isinstance(b, dict)]
    return "\n\n".join(parts)


class ModelAgents:
    """The four agents of the writing loop, driven by `provider` (and `secondary_provider` for judge 2)."""

    def __init__(
        self,
        project: Project,
        settings: Settings,
        provider: Provider,
        *,
        secondary_provider: Provider | None = None,
        registry: PromptRegistry | None = None,
        stage_retry_wait_s: float | None = None,
        sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
        on_retry: RetryHook | None = None,
    ) -> None:
        self.project = project
        self.settings = settings
        self.provider = provider
        self.secondary_provider = secondary_provider or provider
        self.registry = registry or project_registry(project.root)
        self.stage_retry_wait_s = (
            settings.provider.stage_retry_wait_s if stage_retry_wait_s is None else stage_retry_wait_s
        )
        self.sleep = sleep
        self.on_retry = on_retry
        self.prices = settings_prices(settings)
        self.requests = AgentRequests(project, settings, self.registry)
        self._cross_references: dict[int, list[str]] = {}

    # ------------------------------------------------------------------ plumbing

    def _invoker(self, provider: Provider) -> StreamInvoke:
        async def invoke(
            request: ModelRequest, stage: str, on_text: TextSink | None = None
        ) -> tuple[ModelResult, CallRecord]:
            def retried(attempt: int, error: ProviderError) -> None:
                if self.on_retry is not None:
                    self.on_retry(stage, attempt, error)

            started = time.monotonic()
            sent = replace(request, stage=stage)  # the spend ledger books the call under its stage
            result = await run_with_stage_retry(
                lambda: provider.run(sent, on_text),
                retries=self.settings.provider.stage_retries,
                wait_s=self.stage_retry_wait_s,
                sleep=self.sleep,
                on_retry=retried,
            )
            check_not_truncated(result)
            price = price_for(result.model, self.prices)
            record = CallRecord(
                stage=stage,
                model=result.model,
                duration_ms=result.duration_ms or int((time.monotonic() - started) * 1000),
                usage=result.usage,
                cost_usd=cost_usd(result.usage, price),
                prompt_id=request.prompt_id,
                prompt_version=request.prompt_version,
                estimated_prompt_tokens=estimate_tokens(request_text(request)),
                ttft_ms=result.ttft_ms,
                offline=bool(getattr(provider, "offline", False)),
                prefix_hash=prefix_hash(request),
                section_hashes=section_hashes(request) or None,
            )
            return result, record

        return invoke

    # ------------------------------------------------------------------ the Agents protocol

    async def _fix_in_place(
        self, chapter: int, revision: RevisionInput, on_text: TextSink | None
    ) -> tuple[WriterOutput | None, list[CallRecord]]:
        """A local revision by edits; (None, calls) when the reply gives no edit that applies (the caller then
        revises the whole chapter)."""
        request = self.requests.fixer(chapter, revision)
        reply, calls = await call_structured(
            self.provider, request, RefineReply, registry=self.registry, stage="revise", invoke=self._invoker(self.provider)
        )
        text = revision.previous_text
        result = apply_edits(
            text, reply.edits, blacklist=blacklist_matcher(self.project.ai_blacklist), cap_ratio=FIX_CAP_RATIO
        )
        if not result.applied:
            return None, calls
        if on_text is not None:
            shown = on_text(result.text)
            if inspect.isawaitable(shown):
                await shown
        title = str(request.context.get("title") or "")
        return WriterOutput(text=ensure_heading(result.text, chapter, title), hints="", calls=calls), calls

    async def write(
        self, chapter: int, *, note: str | None, revision: RevisionInput | None, on_text: TextSink | None
    ) -> WriterOutput:
        calls: list[CallRecord] = []
        if is_local_revision(revision):
            assert revision is not None
            fixed, calls = await self._fix_in_place(chapter, revision, on_text)
            if fixed is not None:
                return fixed
        built = self.requests.writer(chapter, note=note, revision=revision)
        invoke = self._invoker(self.provider)
        out = await run_writer(
            invoke,
            built.request,
            stage=built.stage,
            chapter=chapter,
            title=str(built.bundle.data.get("title") or ""),
            on_text=on_text,
            min_chars=self.settings.writing.chapter_min_chars,
            max_chars=self.settings.writing.chapter_max_chars,
            lang=self.settings.ui.lang,
        )
        fixed_length = await fix_length(
            self.provider,
            invoke,
            built.request,
            out.text,
            out.text,
            out.hints,
            min_chars=self.settings.writing.chapter_min_chars,
            max_chars=self.settings.writing.chapter_max_chars,
            registry=self.registry,
            blacklist=blacklist_matcher(self.project.ai_blacklist),
        )
        if fixed_length is not None:
            title = str(built.bundle.data.get("title") or "")
            out = WriterOutput(
                text=ensure_heading(fixed_length.text, chapter, title),
                hints=fixed_length.hints,
                calls=[*out.calls, *fixed_length.calls],
            )
        return replace(out, calls=[*calls, *out.calls]) if calls else out

    async def summarize(self, chapter: int, text: str, hints: str) -> SummarizerOutput:
        request, bundle = self.requests.summarizer(chapter, text, hints)
        state = CurrentState.load_or_default(self.project.paths.current_state)
        output = await run_summarizer(
            self.provider,
            request,
            registry=self.registry,
            invoke=self._invoker(self.provider),
            chapter=chapter,
            storyline_id=str(bundle.data["storyline_id"]),
            base_state_version=state.state_version,
        )
        self._cross_references[chapter] = list(output.cross_references)
        return output

    def _judge_findings(self, chapter: int) -> list[str]:
        """The staged evaluation's findings for the polish pass (none when there is no readable one)."""
        path = self.project.paths.staged_evaluation(chapter)
        try:
            evaluation = Evaluation.load(path) if path.is_file() else None
        except StudioError:
            evaluation = None
        return evaluation_findings(evaluation) if evaluation is not None else []

    async def refine(self, chapter: int, text: str, *, polish: bool) -> RefinerOutput:
        findings = self._judge_findings(chapter) if polish else None
        return await run_refiner(
            self.provider,
            self.requests.refiner(chapter, text, polish=polish, findings=findings),
            text,
            registry=self.registry,
            invoke=self._invoker(self.provider),
            blacklist=blacklist_matcher(self.project.ai_blacklist),
            cap_ratio=POLISH_CAP_RATIO if polish else REFINE_CAP_RATIO,
            stage="polish" if polish else "refine",
        )

    def _style_reason(self, text: str) -> str | None:
        """Why the measured prose metrics cap the judge's style score (None when within bounds)."""
        try:
            names = NameRegistry.load(self.project.characters, self.project.paths.names).names()
        except StudioError:  # a broken names file is reported by the checks; the cap works without it
            names = [c.display_name for c in self.project.characters.values()]
        state = CurrentState.load_or_default(self.project.paths.current_state)
        for entities in (state.items, state.locations, state.factions):  # repeating a place's name is no tic
            names += [str(v.get("display_name")) for v in entities.values() if v.get("display_name")]
        metrics = prose_metrics(text, blacklist_matcher(self.project.ai_blacklist), names=names)
        return style_cap_reason(metrics)

    async def judge(self, chapter: int, text: str, *, key_chapter: bool, revision: int) -> JudgeOutput:
        cross_references = self._cross_references.get(chapter)
        style_reason = self._style_reason(text)
        primary = run_judge(
            self.provider,
            self.requests.judge(chapter, text, cross_references=cross_references, revision=revision),
            chapter=chapter,
            text=text,
            registry=self.registry,
            invoke=self._invoker(self.provider),
            stage="judge",
            style_reason=style_reason,
        )
        if not key_chapter:
            return self._judged(chapter, text, await primary)
        secondary = run_judge(
            self.secondary_provider,
            self.requests.judge(
                chapter, text, cross_references=cross_references, revision=revision, secondary=True
            ),
            chapter=chapter,
            text=text,
            registry=self.registry,
            invoke=self._invoker(self.secondary_provider),
            stage="judge-secondary",
            style_reason=style_reason,
        )
        first, second = await asyncio.gather(primary, secondary)
        return self._judged(
            chapter,
            text,
            JudgeOutput(
                evaluation=combine_evaluations(first.evaluation, second.evaluation),
                calls=[*first.calls, *second.calls],
                blacklist_suggestions=[*first.blacklist_suggestions, *second.blacklist_suggestions],
            ),
        )

    def _judged(self, chapter: int, text: str, output: JudgeOutput) -> JudgeOutput:
        """The verdict with the platform's score gates applied; the judge's blacklist suggestions recorded for
        the author (`studio.blacklist_review`: pending until approved, never applied here)."""
        evaluation = apply_score_gates(output.evaluation, project_platform(self.project), chapter)
        if output.blacklist_suggestions:
            try:
                record_suggestions(
                    self.project.paths, self.project.ai_blacklist, chapter, text, output.blacklist_suggestions
                )
            except StudioError:
                pass  # a broken proposals file must not stop the chapter; `blacklist proposals` reports it
        return replace(output, evaluation=evaluation)


def _conforms(agents: ModelAgents) -> Agents:
    """Static check (mypy): ModelAgents implements the orchestrator's `Agents` protocol."""
    return agents
