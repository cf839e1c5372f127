"""`novel-studio continue [N]`: write N chapters headless (PRD `/novel:continue`, issue 3 section 5).

Prints the estimated cost first, one line per chapter as it commits (`第50章：2890字 3.2→修订→3.6 ✅`, with the
checks' count once they ran), then the run's tokens and cost. Exit: 0 done (or stopped at the volume end / the brief / `--max-cost`), 1 error
(resumable), 3 paused for the author, 4 locked, 130 interrupted (Ctrl-C, SIGTERM, SIGHUP: the lock is
released and the chapter left resumable).

With `--json` stdout carries one JSON object per line: the estimate, each event (`pipeline.events.event_data`,
text deltas left out), and last the run's report (`"event": "result"`, with `exit_code`). Retries print what
they wait for (`RetryWaiting`). A stage error is reported as an error (exit 1, resumable), never as a pause.

Tests inject agents through `AGENTS_FACTORY` (a module-level seam): `(root, settings, offline) -> Agents`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pipeline.agents.fresh import FreshProjectAgents
from pipeline.agents.protocol import (
    Agents,
)
from pipeline.decisions import Option, Question, QuestionKind
from pipeline.estimate import estimate_chapter_cost
from pipeline.events import (
    ChapterCommitted,
    ChecksRan,
    Event,
    Notice,
    Paused,
    RetryWaiting,
    StageError,
    StageStarted,
    TextDelta,
    event_data,
)
from pipeline.orchestrator import ChapterReport, Orchestrator, RunResult
from pipeline.providers.base import ProviderError, SdkRetryListener, SdkRetryWait
from pipeline.providers.factory import is_offline
from pipeline.providers.retry import RetryHook, stage_wait_s
from studio.cli import provider_seam
from studio.cli.common import (
    ExitCode,
    PausedForAuthor,
    add_common_arguments,
    help_lang,
    is_interactive,
    require_project,
    resolve_lang,
)
from studio.cli.terminal_decider import LOW_SCORE_POLICIES, cli_decider, terminal_decider
from studio.config import load_settings
from studio.errors import StudioError
from studio.i18n import Catalog, Lang, chars_text, tr, tr_count
from studio.i18n_names import stage_name
from studio.models.pipeline_log import PipelineLog
from studio.models.settings import Settings
from studio.paths import ProjectPaths
from studio.signals import termination_handlers

AgentsFactory = Callable[[Path, Settings, bool], Agents]
AGENTS_FACTORY: AgentsFactory | None = None

MESSAGES: Catalog = {
    "help": ("续写 N 章（默认 1 章）", "write the next N chapters (default 1)"),
    "opt_n": ("要写的章数（被中断的章节算一章）", "how many chapters (a resumed chapter counts as one)"),
    "bad_n": ("章数应为正整数：{value}", "the number of chapters must be a positive whole number: {value}"),
    "opt_yes": ("不提问，全部采用推荐选项（低分按 --on-low-score）", "ask nothing: take the recommended answers (low scores follow --on-low-score)"),
    "opt_low": ("低分章节的处理：pause 暂停 / accept 接受 / revise 修订", "low-score chapters: pause / accept / revise"),
    "opt_note": ("本章要求（必须发生的事、基调、篇幅）", "a note for the chapter (what must happen, tone, length)"),
    "opt_cost": ("费用上限（美元），超出前停止", "stop before the run would pass this cost (USD)"),
    "estimate": ("预计 {n} 章约 ${total:.2f}（每章约 ${per:.2f}，{source}）", "estimated ${total:.2f} for {n} chapters (about ${per:.2f} each, {source})"),
    "estimate_one": ("预计 {n} 章约 ${total:.2f}（每章约 ${per:.2f}，{source}）", "estimated ${total:.2f} for {n} chapter ({source})"),
    "src_logs": ("依据最近 {k} 章的日志", "from the last {k} chapter logs"),
    "src_default": ("依据默认价格估算", "from the default prices"),
    "src_offline": ("离线模式不计费", "offline: no cost"),
    "offline": ("离线模式：生成的是离线演示文本，日志中已标注", "offline mode: the output is offline demo text, marked so in the logs"),
    "offline_real": (
        "注意：这部小说已有真实模型写的章节，离线生成的章节会混在其中",
        "warning: this novel has chapters written by a real model; offline chapters will sit among them",
    ),
    "q_key": ("没有找到 API 密钥（{env}）：改用离线演示吗？", "No API key ({env}): continue offline instead?"),
    "o_offline": ("用离线演示继续", "continue offline"),
    "o_cancel": ("取消", "cancel"),
    "committed_line": ("第{n}章：{words} {path} {mark}", "Ch {n}: {words} {path} {mark}"),
    "findings": ("检查 {count} 条", "checks: {count}"),
    "revised": ("修订", "revised"),
    "rewritten": ("重写", "rewritten"),
    "polished": ("润色", "polished"),
    "forced": ("⚠️ 强制通过", "⚠️ force-passed"),
    "totals": (
        "本次：{chapters} 章，输入 {tin} tokens，输出 {tout} tokens，费用 ${cost:.4f}",
        "This run: {chapters} chapters, {tin} input tokens, {tout} output tokens, ${cost:.4f}",
    ),
    "totals_one": (
        "本次：{chapters} 章，输入 {tin} tokens，输出 {tout} tokens，费用 ${cost:.4f}",
        "This run: {chapters} chapter, {tin} input tokens, {tout} output tokens, ${cost:.4f}",
    ),
    "paused": ("已暂停（等待作者）：{message}", "Paused for the author: {message}"),
    "error": ("出错：{message}", "Error: {message}"),
    "notice": ("提示：{message}", "Note: {message}"),
    "brief": ("质量简报：", "Quality brief:"),
    "interrupted": ("已中断；锁已释放，本章可继续", "Interrupted; the lock is released and the chapter can be resumed"),
    "retry_wait": (
        "{stage} 第 {attempt} 次重试前等待 {wait:g} 秒（{message}）",
        "{stage}: waiting {wait:g} s before retry {attempt} ({message})",
    ),
    "stale_lock": (
        "项目锁的持有进程已经不在了（上次运行被中断），需要确认后才能接管，但当前不是交互终端。"
        "确认没有其他程序在写这部小说后，运行 novel-studio continue --yes --project {project} 接管并继续，"
        "或在终端里运行 novel-studio continue 按提示接管",
        "The project lock's holder is gone (an earlier run was interrupted); taking it over needs a "
        "confirmation and stdin is not a terminal. Once sure nothing else is writing this novel, run "
        "`novel-studio continue --yes --project {project}` to take it over and continue, or run "
        "`novel-studio continue` in a terminal and answer the prompt",
    ),
}


def chapter_count(value: str) -> int:
    """argparse type of `N`: 1 or more (0 or a negative number wrote nothing and said so as a success)."""
    try:
        n = int(value)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(tr(MESSAGES, "bad_n", help_lang(), value=value))
    return n


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    lang = help_lang()
    parser = subparsers.add_parser(
        "continue", help=tr(MESSAGES, "help", lang), description=tr(MESSAGES, "help", lang)
    )
    parser.add_argument(
        "chapters", nargs="?", type=chapter_count, default=1, metavar="N", help=tr(MESSAGES, "opt_n", lang)
    )
    parser.add_argument("--yes", "-y", action="store_true", help=tr(MESSAGES, "opt_yes", lang))
    parser.add_argument("--on-low-score", choices=LOW_SCORE_POLICIES, default=None, help=tr(MESSAGES, "opt_low", lang))
    parser.add_argument("--note", default=None, metavar="TEXT", help=tr(MESSAGES, "opt_note", lang))
    parser.add_argument("--max-cost", type=float, default=None, metavar="USD", help=tr(MESSAGES, "opt_cost", lang))
    add_common_arguments(parser)
    parser.set_defaults(func=run)


# --------------------------------------------------------------------------------------------- agents




def default_agents(
    root: Path,
    settings: Settings,
    offline: bool,
    on_retry: RetryHook | None = None,
    on_sdk_retry: SdkRetryListener | None = None,
) -> Agents:
    """The real agents on the provider `studio.cli.provider_seam` builds (booking every call)."""
    provider = provider_seam.build(root, settings, offline, on_sdk_retry=on_sdk_retry)
    return FreshProjectAgents(root, settings, provider, on_retry)


_STATUS_KINDS = {429: "rate_limited", 529: "overloaded", 408: "timeout"}


def sdk_retry_event(wait: SdkRetryWait) -> RetryWaiting:
    """The event of a retry the SDK makes inside one call."""
    status = wait.status_code
    kind = "connection" if status is None else _STATUS_KINDS.get(status, "server")
    return RetryWaiting(wait.chapter, wait.stage or "", wait.attempt, wait.wait_s, kind,
                        f"HTTP {status}" if status is not None else "connection error")


def chapter_by_real_model(paths: ProjectPaths, chapter: int) -> bool:
    """Whether a real (not offline) model wrote or summarized `chapter`, per its chapter log."""
    path = paths.log(chapter)
    if not path.is_file():
        return False
    try:
        log = PipelineLog.load(path)
    except (StudioError, OSError):
        return False
    return not getattr(log, "offline", False) and bool(log.stages)


def _has_real_chapters(paths: ProjectPaths) -> bool:
    folder = paths.root / "logs"
    if not folder.is_dir():
        return False
    for path in folder.glob("chapter-*-log.json"):
        try:
            log = PipelineLog.load(path)
        except (StudioError, OSError):
            continue
        if not getattr(log, "offline", False) and log.stages:
            return True
    return False


# --------------------------------------------------------------------------------------------- output


def chapter_line(report: ChapterReport, lang: Lang) -> str:
    parts: list[str] = []
    for score, action in zip(report.scores, report.actions, strict=False):
        parts.append(f"{score:.1f}")
        if action == "revise":
            parts.append(tr(MESSAGES, "revised", lang))
        elif action == "rewrite":
            parts.append(tr(MESSAGES, "rewritten", lang))
        elif action == "polish":
            parts.append(tr(MESSAGES, "polished", lang))
    path = "→".join(parts) if parts else "-"
    mark = tr(MESSAGES, "forced", lang) if report.force_passed else "✅"
    line = tr(MESSAGES, "committed_line", lang, n=report.chapter, words=chars_text(report.word_count, lang), path=path, mark=mark)
    if report.findings:  # the checks after the commit (logs/chapter-NNN/checks.json); none found: nothing said
        line += "  " + tr(MESSAGES, "findings", lang, count=report.findings)
    return line


class EventPrinter:
    """Prints the orchestrator's events: readable lines, or with `json_lines` one JSON object per line.

    A stage error ends the run with exit 1, so it is printed as an error (never as "paused"); the
    error-retry pause that follows it carries the same message plus how to go on, and is printed once.

    A committed chapter's line is printed as it commits: held back only until the checks after the commit
    report (`ChecksRan`, so the line ends with their count) or anything else happens; `finish()` prints a line
    still held. `printed` lists the chapters printed, so the run's report does not print them again.
    """

    def __init__(self, lang: Lang, out: Callable[[str], None] = print, *, json_lines: bool = False) -> None:
        self.lang = lang
        self.out = out
        self.json_lines = json_lines
        self.result: RunResult | None = None
        self.printed: set[int] = set()
        self._held: ChapterReport | None = None

    def finish(self) -> None:
        """Print the committed chapter's line still held back (the run ended before anything followed it)."""
        held, self._held = self._held, None
        if held is not None:
            self.out(chapter_line(held, self.lang))
            self.printed.add(held.chapter)

    def __call__(self, event: Event) -> None:
        if self.json_lines:
            if not isinstance(event, TextDelta):
                self.out(json.dumps(event_data(event), ensure_ascii=False, default=str))
            return
        if isinstance(event, TextDelta):
            return
        if isinstance(event, ChecksRan) and self._held is not None and self._held.chapter == event.chapter:
            self._held.findings = event.findings
            self.finish()
            return
        self.finish()
        if isinstance(event, ChapterCommitted):
            self._held = ChapterReport(
                event.chapter,
                event.word_count,
                scores=list(event.scores_path),
                actions=list(event.actions),
                revisions=event.revisions,
                force_passed=event.force_passed,
                cost_usd=event.cost_usd,
            )
            return
        if isinstance(event, Paused):
            key = "error" if event.kind == "error_retry" else "paused"
            self.out(tr(MESSAGES, key, self.lang, message=event.message))
        elif isinstance(event, StageError):
            return  # the error-retry pause right after it says the same, with the way out
        elif isinstance(event, RetryWaiting):
            self.out(tr(MESSAGES, "retry_wait", self.lang, stage=stage_name(event.stage, self.lang), attempt=event.attempt,
                        wait=round(event.wait_s, 1), message=event.message))
        elif isinstance(event, Notice):
            self.out(tr(MESSAGES, "notice", self.lang, message=event.message))


def result_data(result: RunResult, lang: Lang) -> dict[str, Any]:
    """The run's report as JSON data (`continue --json`)."""
    return {
        "event": "result",
        "exit_code": result.exit_code,
        "committed": list(result.committed),
        "chapters": [
            {
                "chapter": r.chapter,
                "word_count": r.word_count,
                "scores": list(r.scores),
                "actions": list(r.actions),
                "revisions": r.revisions,
                "force_passed": r.force_passed,
                "cost_usd": r.cost_usd,
                "findings": r.findings,
            }
            for r in result.reports
        ],
        "paused": result.paused,
        "pause_kind": result.pause_kind,
        "paused_chapter": result.paused_chapter,
        "stopped_at_volume_end": result.stopped_at_volume_end,
        "stopped_by_cost": result.stopped_by_cost,
        "stopped_by_author": result.stopped_by_author,
        "lock_cancelled": result.lock_cancelled,
        "error": result.error,
        "brief": list(result.brief.lines(lang)) if result.brief is not None else None,
        "input_tokens": result.input_tokens + result.cache_read_tokens + result.cache_write_tokens,
        "output_tokens": result.output_tokens,
        "cost_usd": result.cost_usd,
        "messages": list(result.messages),
    }


def _print_result(result: RunResult, lang: Lang, printed: set[int] | None = None) -> None:
    for report in result.reports:
        if printed is None or report.chapter not in printed:  # not printed as it committed
            print(chapter_line(report, lang))
    if result.brief is not None:
        print(tr(MESSAGES, "brief", lang))
        for line in result.brief.lines(lang):
            print(f"  {line}")
    print(
        tr_count(
            MESSAGES,
            "totals",
            lang,
            len(result.committed),
            chapters=len(result.committed),
            tin=result.input_tokens + result.cache_read_tokens + result.cache_write_tokens,
            tout=result.output_tokens,
            cost=result.cost_usd,
        )
    )


# --------------------------------------------------------------------------------------------- run


def _ask_offline(lang: Lang, env: str) -> bool:
    question = Question(
        kind=QuestionKind.MISSING_KEY,
        chapter=None,
        title_zh=tr(MESSAGES, "q_key", "zh", env=env),
        title_en=tr(MESSAGES, "q_key", "en", env=env),
        options=[
            Option("offline", tr(MESSAGES, "o_offline", "zh"), tr(MESSAGES, "o_offline", "en")),
            Option("cancel", tr(MESSAGES, "o_cancel", "zh"), tr(MESSAGES, "o_cancel", "en")),
        ],
        recommended="offline",
    )
    ask = terminal_decider(lang)

    async def answer() -> str:
        return await ask(question)

    return asyncio.run(answer()) == "offline"


class _Output:
    """Where `continue` prints: text lines, or JSON lines with `--json` (stdout stays parseable)."""

    def __init__(self, json_lines: bool) -> None:
        self.json_lines = json_lines

    def say(self, event: str, text: str, *, err: bool = False, **data: Any) -> None:
        if self.json_lines:
            print(json.dumps({"event": event, "message": text, **data}, ensure_ascii=False, default=str))
        else:
            print(text, file=sys.stderr if err else sys.stdout)


def run(args: argparse.Namespace) -> int:
    root = require_project(args)
    lang = resolve_lang(args, root)
    settings = load_settings(root)
    paths = ProjectPaths(root)
    chapters = max(0, int(args.chapters))
    offline = is_offline(settings, bool(getattr(args, "offline", False)))
    json_lines = bool(getattr(args, "json", False))
    out = _Output(json_lines)

    if AGENTS_FACTORY is None and provider_seam.missing_key(settings, offline):
        env = settings.provider.api_key_env
        if is_interactive() and not args.yes and not json_lines and _ask_offline(lang, env):
            offline = True
        else:
            out.say("error", provider_seam.no_key_text(settings, lang), err=True, kind="missing_api_key")
            return int(ExitCode.ERROR)

    if offline:
        out.say("notice", tr(MESSAGES, "offline", lang), offline=True)
        if _has_real_chapters(paths):
            out.say("notice", tr(MESSAGES, "offline_real", lang))

    estimate = estimate_chapter_cost(paths, settings, offline=offline)
    source = {
        "logs": tr(MESSAGES, "src_logs", lang, k=estimate.sample_size),
        "default": tr(MESSAGES, "src_default", lang),
        "offline": tr(MESSAGES, "src_offline", lang),
    }[estimate.source]
    planned = estimate.chapters_for(chapters)
    total = estimate.for_chapters(chapters)
    out.say("estimate", tr_count(MESSAGES, "estimate", lang, planned, n=planned, total=total, per=estimate.per_chapter_usd,
                           source=source),
            chapters=planned, total_usd=total, per_chapter_usd=estimate.per_chapter_usd, source=estimate.source)

    printer = EventPrinter(lang, json_lines=json_lines)
    current: dict[str, int | None] = {"chapter": None}

    def on_event(event: Event) -> None:
        if isinstance(event, StageStarted):
            current["chapter"] = event.chapter
        printer(event)

    def on_retry(stage: str, attempt: int, error: ProviderError) -> None:
        on_event(RetryWaiting(current["chapter"], stage, attempt,
                              stage_wait_s(error, settings.provider.stage_retry_wait_s), error.kind, error.message))

    if AGENTS_FACTORY is not None:
        agents = AGENTS_FACTORY(root, settings, offline)
    else:
        agents = default_agents(root, settings, offline, on_retry, lambda wait: on_event(sdk_retry_event(wait)))
    decider = cli_decider(lang, yes=bool(args.yes), on_low_score=args.on_low_score)
    orchestrator = Orchestrator(
        root, agents, decider=decider, emit=on_event, settings=settings, lang=lang, offline=offline
    )
    try:
        with termination_handlers():
            result = asyncio.run(orchestrator.run(chapters, note=args.note, max_cost_usd=args.max_cost))
    except KeyboardInterrupt:
        printer.finish()
        out.say("interrupted", tr(MESSAGES, "interrupted", lang), err=True)
        return int(ExitCode.INTERRUPTED)
    except PausedForAuthor as exc:
        printer.finish()
        out.say("paused", tr(MESSAGES, "paused", lang, message=str(exc)), err=True)
        return int(ExitCode.PAUSED)
    if result.paused and result.pause_kind == QuestionKind.STALE_LOCK.value:
        out.say("paused", tr(MESSAGES, "stale_lock", lang, project=root), err=True, pause_kind=result.pause_kind)
    printer.finish()
    if json_lines:
        print(json.dumps(result_data(result, lang), ensure_ascii=False, default=str))
    else:
        _print_result(result, lang, printer.printed)
    return result.exit_code
