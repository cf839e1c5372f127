"""The volume review with the model (卷末回顾; issue 7 item 5): one flow shared by `novel-studio review` and the
studio's volume-end screen. The deterministic report, the clean-up rules, the files and the crash-safe steps
are in `studio.planning.review`; this module adds the one model call and drives the steps.

Rules:
- One PlotArchitect-style call (`prompts/volume-review.v1.md`, Chinese; the model and the output budget of
  `plot_architect`, capped at `MAX_REVIEW_TOKENS`) gets the report, the chapter summaries, the storylines and
  the open threads, and replies with `ReviewSuggestions` as JSON. A reply that does not parse goes back once
  with the errors (the `repair` prompt); a second bad reply is kept as text (`raw`), never dropped.
- The call's estimate is offered to `confirm_cost` before it is made (the CLI prints it and applies
  `--max-cost`); the provider books the call in the spend ledger (`build_provider`'s `LedgerProvider`).
- A finished volume's review asks `QuestionKind.REVIEW_CLEANUP` when the proposal is not empty
  (answers `apply` / `keep`; `apply` is recommended: the final state is archived first). A decider that cannot
  ask raises `PausedForAuthor`: the journal keeps the suggestions, so asking again costs nothing.
- A past volume gives its `review.md` again, an unfinished one an interim report: no call, nothing written.
- The caller holds the project lock (the CLI and the studio each take it).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace

from pipeline.agents.protocol import CallRecord
from pipeline.agents.runner import request_text
from pipeline.context import (
    ContextBundle,
    default_registry,
    dumps,
    project_brief,
    render_bundle,
    request_from_bundle,
)
from pipeline.decisions import Decider, Option, Question, QuestionKind
from pipeline.planning.invoke import priced_call
from pipeline.prompts_registry import PromptRegistry, project_registry
from pipeline.providers.base import ModelRequest, Provider, Usage
from pipeline.providers.cost import cost_usd, price_for, settings_prices
from pipeline.structured import parse_reply, repair_request
from pipeline.tokens import estimate_tokens
from studio.errors import StudioError
from studio.fileio import read_text
from studio.i18n import Catalog, Lang, tr
from studio.models.settings import Settings
from studio.models.volume_review import CleanupAnswer, ReviewJournal, ReviewSuggestions
from studio.planning.review import (
    ReviewKind,
    archive_final_state,
    final_state_path,
    finish_review,
    load_review_journal,
    review_journal_path,
    review_kind,
    review_path,
)
from studio.planning.review_cleanup import cleanup_proposal
from studio.planning.review_report import VolumeReview, build_review, cleanup_lines, render_review
from studio.project import Project
from studio.state_engine import load_state

__all__ = [
    "MAX_REVIEW_TOKENS",
    "REVIEW_AGENT",
    "REVIEW_PROMPT",
    "ReviewOutcome",
    "ReviewStopped",
    "cleanup_question",
    "estimate_review_cost",
    "review_request",
    "review_volume",
]

REVIEW_AGENT = "volume_review"
REVIEW_PROMPT = "volume-review"
MODEL_OF = "plot_architect"  # the review uses PlotArchitect's model
MAX_REVIEW_TOKENS = 4096
STAGE = "review"
REPAIR_STAGE = "review-repair"
SUMMARY_MAX_CHARS = 600  # per chapter summary in the prompt

MESSAGES: Catalog = {
    "q_title": ("第 {volume} 卷回顾：清理这些临时状态条目吗？", "Volume {volume} review: remove these temporary state entries?"),
    "q_note": ("卷末状态已存档到 {path}，清理后仍可查看", "the final state is archived in {path}; it stays there after the clean-up"),
    "o_apply": ("清理", "remove them"),
    "o_keep": ("全部保留", "keep everything"),
}

CostHook = Callable[[float, str], Awaitable[bool]]  # (estimate in USD, model) -> go on? (a dialog may ask)


class ReviewStopped(StudioError):
    """`confirm_cost` said no: nothing was called, nothing written."""


@dataclass
class ReviewOutcome:
    kind: ReviewKind
    volume: int
    review: VolumeReview
    markdown: str  # what to show (review.md for a finished or past volume; the interim report otherwise)
    calls: list[CallRecord] = field(default_factory=list)
    written: bool = False  # the review was finished now (files written, state VOL_PLANNING)
    resumed: bool = False  # a journal of an earlier, interrupted review was finished
    cleanup_answer: CleanupAnswer | None = None
    next_volume: int | None = None

    @property
    def cost_usd(self) -> float:
        return round(sum(c.cost_usd or 0.0 for c in self.calls), 6)


# ---------------------------------------------------------------------------------------------- request


def _summaries(project: Project, review: VolumeReview) -> str:
    parts: list[str] = []
    for row in review.chapters:
        text = (project.summary(row.number) or "").strip()
        if len(text) > SUMMARY_MAX_CHARS:
            text = text[:SUMMARY_MAX_CHARS] + "……"
        parts.append(f'<summary chapter="{row.number}">\n{text}\n</summary>')
    return "\n".join(parts) or "（无摘要）"


def review_bundle(project: Project, review: VolumeReview, registry: PromptRegistry | None = None) -> ContextBundle:
    open_threads = [t.to_data() for t in project.foreshadowing.foreshadowing if t.status != "resolved"]
    variables = {
        "project_brief": project_brief(project),
        "volume_num": str(review.volume),
        "volume_report": render_review(review, "zh", interim=True).split("\n", 3)[-1].strip(),
        "chapter_summaries": _summaries(project, review),
        "storylines": dumps(project.storylines.to_data()),
        "open_foreshadowing": dumps(open_threads) if open_threads else "",
    }
    weakest = review.weakest
    data = {
        "volume": review.volume,
        "first_chapter": review.first,
        "last_chapter": review.last,
        "weakest": None if weakest is None else weakest.number,
        "average": review.average,
        "overdue": [t.id for t in review.overdue],
        "open_threads": [t["id"] for t in open_threads],
        "storyline_ids": [s.id for s in review.storylines],
        "violations": len(review.violations),
    }
    return render_bundle(REVIEW_AGENT, REVIEW_PROMPT, variables, data, registry, root=project.root)


def review_request(project: Project, settings: Settings, review: VolumeReview,
                   registry: PromptRegistry | None = None) -> ModelRequest:
    bundle = review_bundle(project, review, registry)
    request = request_from_bundle(
        bundle,
        agent=REVIEW_AGENT,
        model=settings.model_for(MODEL_OF),
        max_tokens=min(settings.max_tokens_for(MODEL_OF), MAX_REVIEW_TOKENS),
    )
    return replace(request, stage=STAGE, chapter=review.last)


def estimate_review_cost(request: ModelRequest, settings: Settings, *, offline: bool) -> float:
    """Upper bound of the review call in USD (input estimated, output at its budget); zero offline."""
    if offline:
        return 0.0
    usage = Usage(input_tokens=estimate_tokens(request_text(request)), output_tokens=request.max_tokens)
    return round(cost_usd(usage, price_for(request.model, settings_prices(settings))) or 0.0, 4)


async def _call(provider: Provider, settings: Settings, request: ModelRequest, calls: list[CallRecord]) -> str:
    result, record = await priced_call(provider, settings, request, request.stage or STAGE)
    calls.append(record)
    return result.text


async def suggestions(provider: Provider, settings: Settings, request: ModelRequest,
                      calls: list[CallRecord], *, registry: PromptRegistry | None = None) -> ReviewSuggestions:
    """The model's suggestions; one repair round, then the reply kept as text."""
    text = await _call(provider, settings, request, calls)
    reply, errors = parse_reply(text, ReviewSuggestions)
    if reply is not None:
        return reply
    repaired = replace(repair_request(request, text, errors, registry or default_registry()), stage=REPAIR_STAGE)
    text = await _call(provider, settings, repaired, calls)
    reply, _ = parse_reply(text, ReviewSuggestions)
    return reply if reply is not None else ReviewSuggestions(raw=text.strip())


# ---------------------------------------------------------------------------------------------- question


def _facts(journal: ReviewJournal, lang: Lang) -> list[str]:
    return [line.removeprefix("- ") for line in cleanup_lines(journal.cleanup, lang)]


def cleanup_question(journal: ReviewJournal, project: Project) -> Question:
    final = _rel_final(project, journal.volume)
    facts = [*_facts(journal, "zh"), tr(MESSAGES, "q_note", "zh", path=final)]
    return Question(
        kind=QuestionKind.REVIEW_CLEANUP,
        chapter=journal.last_chapter,
        title_zh=tr(MESSAGES, "q_title", "zh", volume=journal.volume),
        title_en=tr(MESSAGES, "q_title", "en", volume=journal.volume),
        facts=facts,
        options=[Option("apply", *MESSAGES["o_apply"]), Option("keep", *MESSAGES["o_keep"])],
        recommended="apply",
        data={
            "escape": "keep",  # backing out of the dialog removes nothing
            "volume": journal.volume,
            "cleanup": [item.to_data() for item in journal.cleanup],
            "facts_en": [*_facts(journal, "en"), tr(MESSAGES, "q_note", "en", path=final)],
        },
    )


# ---------------------------------------------------------------------------------------------- flow


async def review_volume(
    project: Project,
    settings: Settings,
    provider: Callable[[], Provider],
    decider: Decider,
    *,
    volume: int | None = None,
    lang: Lang = "zh",
    offline: bool = False,
    confirm_cost: CostHook | None = None,
) -> ReviewOutcome:
    """Review `volume` (default: the current one); see the module rules. `provider` is called only when the
    model is needed. Raises ReviewStopped, PausedForAuthor (from the decider), ProviderError, StudioError."""
    paths = project.paths
    volume = volume if volume is not None else project.current_volume
    kind = review_kind(project, volume, lang)
    review = build_review(project, volume, lang)
    if kind == "unfinished":
        return ReviewOutcome(kind, volume, review, render_review(review, lang, interim=True))
    if kind == "past":
        path = review_path(paths, volume)
        text = read_text(path) if path.is_file() else render_review(review, lang, interim=True)
        return ReviewOutcome(kind, volume, review, text)
    outcome = ReviewOutcome(kind, volume, review, "")
    journal = load_review_journal(paths, volume)
    outcome.resumed = journal is not None
    if journal is None:
        registry = project_registry(project.root)
        request = review_request(project, settings, review, registry)
        estimate = estimate_review_cost(request, settings, offline=offline)
        if confirm_cost is not None and not await confirm_cost(estimate, request.model):
            raise ReviewStopped(f"estimate ${estimate:.2f}")
        found = await suggestions(provider(), settings, request, outcome.calls, registry=registry)
        state = load_state(paths)
        archive_final_state(paths, volume, state)
        journal = ReviewJournal(
            volume=volume,
            first_chapter=review.first,
            last_chapter=review.last,
            state_version=state.state_version,
            suggestions=found,
            cleanup=cleanup_proposal(project, volume, state),
            cost_usd=outcome.cost_usd,
        )
        journal.save(review_journal_path(paths, volume))  # the commit point of the review
    if journal.cleanup and journal.answer is None:
        answer = await decider(cleanup_question(journal, project))
        journal.answer = "apply" if answer == "apply" else "keep"
        journal.save(review_journal_path(paths, volume))
    outcome.cleanup_answer = journal.answer
    finish_review(paths, journal, review)
    outcome.written = True
    outcome.next_volume = volume + 1
    outcome.markdown = read_text(review_path(paths, volume))
    if lang != "zh":
        outcome.markdown = render_review(review, lang, final_state=_rel_final(project, volume))
    return outcome


def _rel_final(project: Project, volume: int) -> str:
    return final_state_path(project.paths, volume).relative_to(project.root).as_posix()


def outcome_data(outcome: ReviewOutcome) -> dict[str, object]:
    """Plain JSON of an outcome (`review --json`)."""
    return {
        "kind": outcome.kind,
        "volume": outcome.volume,
        "written": outcome.written,
        "resumed": outcome.resumed,
        "cleanup_answer": outcome.cleanup_answer,
        "next_volume": outcome.next_volume,
        "cost_usd": outcome.cost_usd,
        "calls": len(outcome.calls),
        "review": outcome.review.data(),
    }


def dumps_outcome(outcome: ReviewOutcome) -> str:
    return json.dumps(outcome_data(outcome), ensure_ascii=False, indent=2, default=str)
