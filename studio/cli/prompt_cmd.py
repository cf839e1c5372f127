"""`novel-studio prompt AGENT [CHAPTER] [--json]`: the request an agent would send, without sending it.

Read-only: no model call, no lock, no write. The request is built by the same code the run uses
(`pipeline.agents.requests.AgentRequests` for the writing agents, `pipeline.planning.prompt_context` for the
planning agents, `pipeline.planning.plan_volume.contracts_batch_request` for a batch of contracts,
`pipeline.importing.survey.survey_request` for the import's cast pass). The planning agents are rendered from what
the project holds now (brief, world, characters, storylines, state), as the next `plan` / `start` would ask them.

AGENT is a prompt id (`chapter-writer`, `quality-judge`, ...) or an alias (writer, reviser, summarizer, refiner,
judge, world, character, plot, contracts, style, review, survey). CHAPTER defaults to the next chapter; the agents
that read a chapter (summarizer, refiner, judge, reviser) take its committed text, else its staged text, and without
CHAPTER they default to the staged next chapter, else the last committed one. `contracts` shows the contract batch
holding CHAPTER (default: the first chapter without a contract) of the newest staged plan holding it, else of the
volume whose outline holds it; `survey` shows the import's cast pass over the chapters from CHAPTER (default 1).

Text output: a header (prompt id and version, model, max_tokens, chapter, estimated tokens, the endpoint with
any credentials stripped), then each system block and user block with its cache mark. `--json`: the request body
exactly as the SDK sends it (`build_params` + `"stream": true`); it never holds the key or the base URL.
"""

from __future__ import annotations

import argparse
import contextlib
import json
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from pipeline.agents.protocol import RevisionInput
from pipeline.agents.requests import AgentRequests
from pipeline.agents.runner import request_text
from pipeline.importing.survey import SURVEY_MODEL_AGENT, survey_chapters, survey_request
from pipeline.planning.plan_volume import contracts_batch_request
from pipeline.planning.prompt_context import (
    character_weaver_context,
    plot_architect_context,
    style_analyzer_context,
    world_builder_context,
)
from pipeline.planning.review import review_request
from pipeline.prompts_registry import PromptRegistry, project_registry
from pipeline.providers.anthropic_provider import build_params
from pipeline.providers.base import ModelRequest
from pipeline.providers.presets import preset_base_url
from pipeline.staging import ChapterStaging
from pipeline.tokens import estimate_tokens
from studio.cli.common import add_common_arguments, help_lang, require_project, resolve_lang
from studio.config import load_settings
from studio.errors import StudioError, UsageError
from studio.fileio import read_text
from studio.i18n import Catalog, Lang, tr
from studio.i18n_names import STAGES, STATES
from studio.models.evaluation import Evaluation
from studio.models.settings import Settings
from studio.models.volume_plan import VolumePlan, load_volume_plan
from studio.planning.review_report import build_review
from studio.planning.staged import load_staged_plan, staged_plans
from studio.project import Project

__all__ = ["ALIASES", "PLANNING_AGENTS", "PromptPreview", "build_preview", "register", "request_body", "run"]

# alias -> prompt id
ALIASES: dict[str, str] = {
    "writer": "chapter-writer",
    "reviser": "chapter-reviser",
    "summarizer": "summarizer",
    "refiner": "style-refiner",
    "judge": "quality-judge",
    "world": "world-builder",
    "character": "character-weaver",
    "plot": "plot-architect",
    "contracts": "plot-contracts",
    "style": "style-analyzer",
    "review": "volume-review",
    "survey": "import-survey",
}
# alias -> what the step is called in the studio and the rest of the CLI (the stage and state names of
# studio.i18n_names), for the help
ALIAS_NAMES: Catalog = {
    "writer": STAGES["draft"],
    "reviser": STAGES["revise"],
    "summarizer": STAGES["summarize"],
    "refiner": STAGES["refine"],
    "judge": STAGES["judge"],
    "world": ("世界观", "world"),
    "character": ("角色", "characters"),
    "plot": STATES["VOL_PLANNING"],
    "contracts": ("章节契约", "chapter contracts"),
    "style": ("文风", "style"),
    "review": STATES["VOL_REVIEW"],
    "survey": STAGES["import-cast"],
}


def alias_list(lang: Lang) -> str:
    """`writer（起草）、reviser（修订）……`; `writer (draft), reviser (revise), ...`."""
    if lang == "zh":
        return "、".join(f"{alias}（{tr(ALIAS_NAMES, alias, lang)}）" for alias in ALIASES)
    return ", ".join(f"{alias} ({tr(ALIAS_NAMES, alias, lang)})" for alias in ALIASES)


# prompt id -> the agent name of the settings' [models] / [max_tokens] tables
SETTINGS_AGENT: dict[str, str] = {
    "chapter-writer": "chapter_writer",
    "chapter-reviser": "revision",
    "summarizer": "summarizer",
    "style-refiner": "style_refiner",
    "quality-judge": "quality_judge",
    "world-builder": "world_builder",
    "character-weaver": "character_weaver",
    "plot-architect": "plot_architect",
    "plot-contracts": "plot_architect",
    "style-analyzer": "style_analyzer",
    "volume-review": "plot_architect",  # the volume review uses PlotArchitect's model (pipeline.planning.review)
    "import-survey": SURVEY_MODEL_AGENT,  # the import's cast pass uses CharacterWeaver's model
}
READERS = frozenset({"chapter-reviser", "summarizer", "style-refiner", "quality-judge"})
PLANNING_AGENTS = frozenset({"world-builder", "character-weaver", "plot-architect", "style-analyzer"})

MESSAGES: Catalog = {
    "help": (
        "查看某一步（起草、评审、卷规划……）将要发送给模型的完整请求（不发送、不加锁）",
        "show the request a step (draft, judge, volume planning ...) would send to the model (nothing is sent, no "
        "lock is taken)",
    ),
    "arg_agent": (
        "哪一步：提示词 id（如 chapter-writer）或简称 {aliases}",
        "which step: a prompt id (like chapter-writer) or an alias: {aliases}",
    ),
    "arg_chapter": ("章号（默认：下一章）", "chapter number (default: the next chapter)"),
    "unknown_agent": ("没有名为 {name} 的智能体。可用：{known}", "No agent named {name}. Known: {known}"),
    "bad_chapter": ("章号必须是正整数：{value}", "The chapter must be a positive number: {value}"),
    "no_text": (
        "第 {n} 章既没有已提交的正文，也没有暂存稿；{agent} 需要读一章正文。请指定一个已写好的章号",
        "Chapter {n} has neither committed nor staged text, and {agent} reads a chapter. "
        "Give the number of a chapter that is written",
    ),
    "header": (
        "提示词 {prompt}　模型 {model}　max_tokens {max_tokens}　约 {tokens} tokens（估算）",
        "prompt {prompt}  model {model}  max_tokens {max_tokens}  about {tokens} tokens (estimate)",
    ),
    "chapter": ("第 {n} 章{source}", "chapter {n}{source}"),
    "batch": ("涵盖第 {first}-{last} 章", "covers chapters {first}-{last}"),
    "source_committed": ("（读取已提交的正文）", " (reads the committed text)"),
    "source_staged": ("（读取暂存稿）", " (reads the staged text)"),
    "endpoint": ("接口：{url}（不含密钥）", "endpoint: {url} (no key shown)"),
    "not_sent": ("仅预览：未发送，未加锁", "preview only: nothing sent, no lock taken"),
    "planning_note": (
        "按项目现有内容（纲领、世界观、角色、故事线、状态）渲染，即下一次规划会发送的请求",
        "rendered from what the project holds now (brief, world, characters, storylines, state), as the next "
        "planning run would send it",
    ),
    "no_plan": (
        "没有可派生章节契约的卷纲：第 {n} 章不在任何暂存的规划或卷纲中。先运行 novel-studio plan",
        "No plan to derive contracts from: chapter {n} is in no staged plan and no volume outline. "
        "Run novel-studio plan first",
    ),
    "no_plan_any": (
        "没有可派生章节契约的卷纲。先运行 novel-studio plan",
        "No plan to derive contracts from. Run novel-studio plan first",
    ),
    "no_chapters": (
        "第 {n} 章起没有正文：导入的角色梳理需要读已有章节",
        "No chapter text from chapter {n} on: the import's cast pass reads the written chapters",
    ),
    "revision_source": ("修订依据：{source}", "revision from: {source}"),
    "rev_staged": ("暂存的修订输入", "the staged revision input"),
    "rev_evaluation": ("本章评审结果", "the chapter's evaluation"),
    "rev_none": ("无评审意见（空修订单）", "no evaluation (empty fix list)"),
    "system": ("system[{i}]", "system[{i}]"),
    "user": ("messages[{m}] {role} 第 {i} 块", "messages[{m}] {role} block {i}"),
    "cached": ("缓存断点", "cache breakpoint"),
    "json_schema": ("回复须符合 JSON schema（--json 可查看全文）", "reply must follow a JSON schema (see --json)"),
}


@dataclass(frozen=True)
class PromptPreview:
    prompt_id: str
    chapter: int | None
    request: ModelRequest
    text_source: str | None = None  # "committed" | "staged" for the agents that read a chapter
    revision_source: str | None = None  # "staged" | "evaluation" | "none" for the reviser
    estimated_tokens: int = 0
    batch: list[int] | None = None  # the chapters a contract batch or the import's cast pass covers

    @property
    def planning(self) -> bool:
        """Rendered from the project as it stands (no chapter): a note says so."""
        return self.prompt_id in PLANNING_AGENTS


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    lang = help_lang()
    parser = subparsers.add_parser("prompt", help=tr(MESSAGES, "help", lang), description=tr(MESSAGES, "help", lang))
    parser.add_argument("agent", metavar="AGENT", help=tr(MESSAGES, "arg_agent", lang, aliases=alias_list(lang)))
    parser.add_argument("chapter", metavar="CHAPTER", nargs="?", help=tr(MESSAGES, "arg_chapter", lang))
    add_common_arguments(parser)
    parser.set_defaults(func=run)


def resolve_agent(name: str, lang: Lang) -> str:
    key = name.strip().lower()
    prompt_id = ALIASES.get(key, key)
    if prompt_id not in SETTINGS_AGENT:
        known = ", ".join(dict.fromkeys([*ALIASES, *SETTINGS_AGENT]))  # an alias may also be an id (summarizer)
        raise UsageError(tr(MESSAGES, "unknown_agent", lang, name=name, known=known))
    return prompt_id


def _chapter_arg(value: str | None, lang: Lang) -> int | None:
    if value is None:
        return None
    try:
        n = int(value)
    except ValueError:
        n = 0
    if n < 1:
        raise UsageError(tr(MESSAGES, "bad_chapter", lang, value=value))
    return n


def _chapter_text(project: Project, n: int) -> tuple[str, str] | None:
    """(text, "committed" | "staged") of chapter `n`, or None."""
    committed = project.chapter_text(n)
    if committed is not None:
        return committed, "committed"
    staged = ChapterStaging(project.paths, n).current
    if staged.is_file():
        return read_text(staged), "staged"
    return None


def _staged_hints(project: Project, n: int) -> str:
    st = ChapterStaging(project.paths, n)
    latest = ""
    for k in range(0, 10):
        path = st.pass_hints(k)
        if path.is_file():
            latest = read_text(path)
    return latest


def _evaluation(project: Project, n: int) -> Evaluation | None:
    for path in (project.paths.staged_evaluation(n), project.paths.evaluation(n)):
        if path.is_file():
            try:
                return Evaluation.load(path)
            except (StudioError, OSError):
                continue
    return None


def _revision_input(project: Project, n: int, text: str) -> tuple[RevisionInput, str]:
    staged = ChapterStaging(project.paths, n).load_revision_input()
    if staged is not None:
        return staged, "staged"
    evaluation = _evaluation(project, n)
    if evaluation is None:
        return RevisionInput(kind="revision", previous_text=text, required_fixes=[]), "none"
    # the orchestrator's mapping of an evaluation to a revision (pipeline.orchestrator._start_revision)
    return (
        RevisionInput(
            kind="revision",
            previous_text=text,
            required_fixes=[f"{f.target}: {f.instruction}".strip(": ") for f in evaluation.required_fixes],
            issues=list(evaluation.issues),
            violations=[f"{c.id}: {c.detail}".strip(": ") for c in evaluation.high_confidence_violations()],
        ),
        "evaluation",
    )


def _default_chapter(project: Project, prompt_id: str) -> int:
    nxt = project.last_completed_chapter + 1
    if prompt_id not in READERS:
        return nxt
    if ChapterStaging(project.paths, nxt).current.is_file():
        return nxt
    committed = project.committed_chapters()
    return committed[-1] if committed else nxt


def build_preview(
    project: Project, settings: Settings, agent: str, chapter: int | None = None, *, lang: Lang = "zh"
) -> PromptPreview:
    """The request `agent` would send for `chapter` (see the module rules)."""
    prompt_id = resolve_agent(agent, lang)
    registry = project_registry(project.root, write=False)  # read-only: the pins a run would use
    settings_agent = SETTINGS_AGENT[prompt_id]
    if prompt_id in PLANNING_AGENTS:
        if prompt_id == "world-builder":
            bundle = world_builder_context(project, registry=registry)
        elif prompt_id == "character-weaver":
            bundle = character_weaver_context(project, registry=registry)
        elif prompt_id == "plot-architect":
            bundle = plot_architect_context(project, registry=registry)
        else:
            bundle = style_analyzer_context(project, registry=registry)
        request = AgentRequests(project, settings, registry).build(bundle, settings_agent)
        return PromptPreview(prompt_id, None, request, estimated_tokens=bundle.estimated_tokens)
    if prompt_id == "plot-contracts":
        batch, request = _contracts_request(project, settings, chapter, registry, lang)
        return PromptPreview(prompt_id, None, request, estimated_tokens=_estimate(request), batch=batch)
    if prompt_id == "import-survey":
        first = chapter if chapter is not None else 1
        chapters = survey_chapters(project.paths, first, max(first, project.last_completed_chapter))
        if not chapters:
            raise StudioError(tr(MESSAGES, "no_chapters", lang, n=first))
        request = survey_request(project, settings, chapters, registry=registry)
        numbers = [n for n, _ in chapters]
        return PromptPreview(prompt_id, None, request, estimated_tokens=_estimate(request), batch=numbers)
    if prompt_id == "volume-review":  # the current volume's review, as `novel-studio review` would ask it
        review = build_review(project, project.current_volume, lang)
        request = review_request(project, settings, review, registry)
        return PromptPreview(prompt_id, None, request, estimated_tokens=estimate_tokens(request_text(request)))
    n = chapter if chapter is not None else _default_chapter(project, prompt_id)
    requests = AgentRequests(project, settings, registry)
    st = ChapterStaging(project.paths, n)
    if prompt_id == "chapter-writer":
        built = requests.writer(n, note=st.load_note(), revision=None)
        return PromptPreview(prompt_id, n, built.request, estimated_tokens=built.bundle.estimated_tokens)
    found = _chapter_text(project, n)
    if found is None:
        raise StudioError(tr(MESSAGES, "no_text", lang, n=n, agent=prompt_id))
    text, source = found
    if prompt_id == "chapter-reviser":
        revision, rev_source = _revision_input(project, n, text)
        built = requests.writer(n, note=st.load_note(), revision=revision)
        return PromptPreview(
            prompt_id, n, built.request, source, rev_source, estimated_tokens=built.bundle.estimated_tokens
        )
    if prompt_id == "summarizer":
        request, bundle = requests.summarizer(n, text, _staged_hints(project, n))
        return PromptPreview(prompt_id, n, request, source, estimated_tokens=bundle.estimated_tokens)
    if prompt_id == "style-refiner":
        request = requests.refiner(n, text, polish=False)
    else:
        request = requests.judge(n, text, cross_references=None, revision=0)
    return PromptPreview(prompt_id, n, request, source, estimated_tokens=_estimate(request))


def _contracts_request(
    project: Project, settings: Settings, chapter: int | None, registry: PromptRegistry, lang: Lang
) -> tuple[list[int], ModelRequest]:
    """The contract batch holding `chapter` and its request (see the module rules)."""
    plans: list[VolumePlan] = []
    for volume in sorted(staged_plans(project.paths), reverse=True):
        with contextlib.suppress(StudioError, OSError):
            plans.append(load_staged_plan(project.paths, volume)[0])
    with contextlib.suppress(StudioError, OSError):
        plans.append(load_volume_plan(project.paths, project.current_volume))
    for plan in plans:
        if chapter is None or chapter in plan.outline.numbers():
            return contracts_batch_request(project, settings, plan, chapter, registry=registry)
    if chapter is None:
        raise StudioError(tr(MESSAGES, "no_plan_any", lang))
    raise StudioError(tr(MESSAGES, "no_plan", lang, n=chapter))


def _estimate(request: ModelRequest) -> int:
    return estimate_tokens(request_text(request))


def request_body(request: ModelRequest) -> dict[str, Any]:
    """The JSON body the SDK posts for `request` (the provider streams, so `"stream": true`)."""
    return {**build_params(request), "stream": True}


def safe_url(url: str | None) -> str:
    """`url` without user info, query or fragment (a key can hide in any of them)."""
    if not url:
        return "https://api.anthropic.com"
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path, "", ""))


def render_preview(preview: PromptPreview, settings: Settings, lang: Lang) -> str:
    request = preview.request
    out = [
        tr(
            MESSAGES,
            "header",
            lang,
            prompt=f"{request.prompt_id} v{request.prompt_version}",
            model=request.model,
            max_tokens=request.max_tokens,
            tokens=preview.estimated_tokens,
        )
    ]
    if preview.chapter is not None:
        source = tr(MESSAGES, f"source_{preview.text_source}", lang) if preview.text_source else ""
        out.append(tr(MESSAGES, "chapter", lang, n=preview.chapter, source=source))
    if preview.batch:
        out.append(tr(MESSAGES, "batch", lang, first=preview.batch[0], last=preview.batch[-1]))
    if preview.revision_source is not None:
        rev = tr(MESSAGES, f"rev_{preview.revision_source}", lang)
        out.append(tr(MESSAGES, "revision_source", lang, source=rev))
    p = settings.provider
    out.append(tr(MESSAGES, "endpoint", lang, url=safe_url(p.base_url or preset_base_url(p.preset))))
    out.append(tr(MESSAGES, "not_sent", lang))
    if preview.planning:
        out.append(tr(MESSAGES, "planning_note", lang))
    if request.json_schema is not None:
        out.append(tr(MESSAGES, "json_schema", lang))
    body = request_body(request)
    for i, block in enumerate(body.get("system", [])):
        mark = f"  [{tr(MESSAGES, 'cached', lang)}]" if "cache_control" in block else ""
        out += ["", f"===== {tr(MESSAGES, 'system', lang, i=i)}{mark} =====", block["text"]]
    for m, message in enumerate(body["messages"]):
        content = message["content"]
        blocks = content if isinstance(content, list) else [{"type": "text", "text": content}]
        for i, block in enumerate(blocks):
            mark = f"  [{tr(MESSAGES, 'cached', lang)}]" if "cache_control" in block else ""
            title = tr(MESSAGES, "user", lang, m=m, role=message["role"], i=i)
            out += ["", f"===== {title}{mark} =====", str(block.get("text", ""))]
    return "\n".join(out)


def run(args: argparse.Namespace) -> int:
    root = require_project(args)
    lang = resolve_lang(args, root)
    chapter = _chapter_arg(args.chapter, lang)
    resolve_agent(args.agent, lang)  # a usage error before any project file is read
    project = Project.open(root, lang=lang)
    settings = load_settings(root)
    preview = build_preview(project, settings, args.agent, chapter, lang=lang)
    if getattr(args, "json", False):
        print(json.dumps(request_body(preview.request), ensure_ascii=False, indent=2))
    else:
        print(render_preview(preview, settings, lang))
    return 0
