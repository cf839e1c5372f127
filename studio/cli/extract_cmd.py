"""`novel-studio extract [DIR] [--to M] [--max-cost USD] [--yes] [--json]`: the full depth of an import (issue 10
items 3-4): the model reads the imported chapters in order (`pipeline.importing.extract.run_extraction`, the one
flow of this command, `import --full` and the studio).

- First the estimate (tokens and cost, the once-per-book cast and style passes included), then the question
  "start / cancel": `--yes` answers start; without a terminal, or with `--json`, the command stops with exit 3
  and prints the question (nothing spent). `--offline` uses the offline provider and says so.
- Then one line per step as it finishes (cast pass, style, each chapter), as `continue` prints, and what is
  next (`status`, `plan`, `continue`).
- `--to M` extracts up to chapter M; a later `extract` goes on from M+1. `--max-cost` stops cleanly between
  chapters (exit 3), the progress kept; a kill or a failed call resumes where it stopped, nothing paid twice.

Under the project lock (a live holder: exit 4). `add_extract_arguments(parser)` and `run_extract(root, args)`
are what `import --full` reuses (`args` needs `to`, `max_cost`, `yes`, `json`, `offline`, `lang`).
The provider comes from `studio.cli.provider_seam` (tests inject theirs there).
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Callable
from pathlib import Path

from pipeline.decisions import Decider, Question
from pipeline.events import Event, Notice, RetryWaiting
from pipeline.importing.extract import ExtractionRefused, ExtractionResult, run_extraction
from pipeline.providers.base import ProviderError
from pipeline.providers.factory import is_offline
from studio.cli import provider_seam
from studio.cli.common import (
    ExitCode,
    JsonOut,
    PausedForAuthor,
    add_common_arguments,
    cold_start_refused,
    help_lang,
    is_interactive,
    require_project,
    resolve_lang,
    take_project_lock,
)
from studio.cli.terminal_decider import terminal_decider
from studio.coldstart import EXTRACTION_KEYS
from studio.config import load_settings
from studio.errors import StudioError
from studio.fileio import sweep_temp_files
from studio.i18n import Catalog, Lang, tr
from studio.i18n_names import stage_name
from studio.lock import ProjectLock
from studio.models.settings import Settings
from studio.paths import ProjectPaths
from studio.signals import termination_handlers

__all__ = ["add_extract_arguments", "register", "run", "run_extract"]


MESSAGES: Catalog = {
    "help": (
        "完整提取导入的书稿：逐章摘要与状态、角色、世界规则、故事线、伏笔与文风（调用模型）",
        "extract an imported manuscript in full: per-chapter summaries and state, characters, world rules, "
        "storylines, foreshadowing and style (calls the model)",
    ),
    "opt_dir": ("项目文件夹（默认：--project 或当前文件夹）", "the project folder (default: --project or the current folder)"),
    "opt_to": ("只提取到第 M 章（之后再运行 extract 从 M+1 继续）", "extract up to chapter M (a later extract goes on from M+1)"),
    "opt_cost": ("费用上限（美元）：超出前在两章之间停下，进度保留", "cost cap (USD): stops between chapters before passing it, progress kept"),
    "opt_yes": ("不提问：按预计费用直接开始", "ask nothing: start at the estimate"),
    "lock_question": ("接管项目锁并继续提取吗？", "take over the project lock and go on with the extraction?"),
    "lock_cancelled": ("已取消，未做任何改动", "cancelled; nothing was changed"),
    "refused": ("项目状态不一致，未开始提取：\n{findings}", "the project is inconsistent; nothing was extracted:\n{findings}"),
    "offline": ("离线模式：提取结果由离线演示生成（按正文统计），不花钱", "offline mode: the offline demo extracts (from text statistics), no cost"),
    "paused": (
        "需要作者确认后才会调用模型（当前不是交互终端）：{question}\n确认：novel-studio extract --yes",
        "the model is called only after the author confirms (stdin is not a terminal): {question}\n"
        "Confirm: novel-studio extract --yes",
    ),
    "line": ("· {message}", "· {message}"),
    "retry_wait": (
        "{stage}出错（第 {attempt} 次），{wait} 秒后重试：{message}",
        "{stage} failed (attempt {attempt}), retrying in {wait}s: {message}",
    ),
    "spent": ("本次花费 ${cost:.4f}（{calls} 次调用）", "this run cost ${cost:.4f} ({calls} calls)"),
    "next_done": (
        "下一步：novel-studio status 查看全书；novel-studio plan 规划下一卷；novel-studio continue 接着写",
        "Next: novel-studio status shows the book; novel-studio plan plans the next volume; novel-studio continue "
        "writes on",
    ),
    "next_partial": (
        "下一步：novel-studio extract 从第 {next} 章接着提取",
        "Next: novel-studio extract goes on from chapter {next}",
    ),
}


def add_extract_arguments(parser: argparse.ArgumentParser) -> None:
    """The extraction's own options (`import --full` adds them to its parser too)."""
    lang = help_lang()
    parser.add_argument("--to", type=int, default=None, metavar="M", help=tr(MESSAGES, "opt_to", lang))
    parser.add_argument("--max-cost", type=float, default=None, metavar="USD", help=tr(MESSAGES, "opt_cost", lang))
    if not any("--yes" in action.option_strings for action in parser._actions):
        parser.add_argument("--yes", "-y", action="store_true", help=tr(MESSAGES, "opt_yes", lang))


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    lang = help_lang()
    parser = subparsers.add_parser("extract", help=tr(MESSAGES, "help", lang), description=tr(MESSAGES, "help", lang))
    parser.add_argument("dir", nargs="?", default=None, metavar="DIR", help=tr(MESSAGES, "opt_dir", lang))
    add_extract_arguments(parser)
    add_common_arguments(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if getattr(args, "dir", None):
        args.project = args.dir
    root = require_project(args)
    return run_extract(root, args)


class _NoKey(Exception):
    """The model is needed and no API key is set."""


def _decider(args: argparse.Namespace, out: JsonOut, lang: Lang) -> Decider:
    terminal = terminal_decider(lang, input_fn=lambda prompt: input(prompt), interactive=lambda: is_interactive())

    async def decide(question: Question) -> str:
        facts_en = question.data.get("facts_en")
        facts = facts_en if lang == "en" and isinstance(facts_en, list) else question.facts
        title = question.title_zh if lang == "zh" else question.title_en
        out.data["estimate"] = question.data.get("estimate")
        if not getattr(args, "yes", False) and is_interactive() and not out.json_mode:
            return await terminal(question)
        out.say(title)
        for line in facts:
            out.say(f"  {line}")
        if getattr(args, "yes", False):
            return question.recommended
        out.data.update(event="question", kind=question.kind.value, question=title,
                        options=[o.key for o in question.options], recommended=question.recommended)
        raise PausedForAuthor(title)

    return decide


def _printer(out: JsonOut, lang: Lang) -> Callable[[Event], None]:
    def on_event(event: Event) -> None:
        if isinstance(event, Notice):
            out.say(tr(MESSAGES, "line", lang, message=event.message))
        elif isinstance(event, RetryWaiting):
            out.say(tr(MESSAGES, "retry_wait", lang, stage=stage_name(event.stage, lang), attempt=event.attempt,
                       wait=round(event.wait_s, 1), message=event.message))

    return on_event


def run_extract(root: Path, args: argparse.Namespace) -> int:
    """The whole command on project `root` (the lock, the cold-start check, the run, the report)."""
    lang = resolve_lang(args, root)
    settings = load_settings(root)
    paths = ProjectPaths(root)
    out = JsonOut(bool(getattr(args, "json", False)))
    offline = is_offline(settings, bool(getattr(args, "offline", False)))
    lock = ProjectLock(paths)
    if not take_project_lock(args, lock, lang, tr(MESSAGES, "lock_question", lang),
                             tr(MESSAGES, "lock_cancelled", lang)):
        return out.finish(int(ExitCode.LOCKED))
    try:
        with termination_handlers():
            sweep_temp_files(root)
            refused, findings = cold_start_refused(paths, lang, allowed=EXTRACTION_KEYS)
            if refused:
                out.err(tr(MESSAGES, "refused", lang, findings=findings))
                return out.finish(int(ExitCode.ERROR), refused=refused)
            return _extract(args, root, settings, offline, out, lang)
    except KeyboardInterrupt:
        return out.finish(int(ExitCode.INTERRUPTED))
    finally:
        lock.release()


def _extract(args: argparse.Namespace, root: Path, settings: Settings, offline: bool, out: JsonOut,
             lang: Lang) -> int:
    if provider_seam.missing_key(settings, offline):
        out.err(provider_seam.no_key_text(settings, lang))
        return out.finish(int(ExitCode.ERROR), error="missing_api_key")
    provider = provider_seam.build(root, settings, offline)
    if offline:
        out.say(tr(MESSAGES, "offline", lang))
    out.data["offline"] = offline
    try:
        result = asyncio.run(run_extraction(root, settings, provider, _decider(args, out, lang), _printer(out, lang),
                                            last=getattr(args, "to", None),
                                            max_cost_usd=getattr(args, "max_cost", None), offline=offline,
                                            lang=lang))
    except PausedForAuthor as exc:
        out.err(tr(MESSAGES, "paused", lang, question=str(exc)))
        return out.finish(int(ExitCode.PAUSED))
    except ExtractionRefused as exc:
        out.err(str(exc))
        return out.finish(int(ExitCode.ERROR), error=str(exc))
    except ProviderError as exc:  # raised outside the per-step handling (e.g. while resuming)
        out.err(str(exc))
        return out.finish(int(ExitCode.ERROR), error=str(exc))
    except StudioError as exc:
        out.err(exc.text(lang))
        return out.finish(int(ExitCode.ERROR), error=exc.text(lang))
    return _report(result, out, lang)


def _report(result: ExtractionResult, out: JsonOut, lang: Lang) -> int:
    if result.status == "failed":
        out.err(result.message)
    else:
        out.say(result.message)
    if result.calls:
        out.say(tr(MESSAGES, "spent", lang, cost=result.cost_usd, calls=len(result.calls)))
    if result.status == "done" and result.extracted_through >= result.total:
        out.say(tr(MESSAGES, "next_done", lang))
    else:
        out.say(tr(MESSAGES, "next_partial", lang, next=result.extracted_through + 1))
    return out.finish(result.exit_code, status=result.status, extracted_through=result.extracted_through,
                      total=result.total, cost_usd=result.cost_usd, chapters=result.chapters, message=result.message,
                      notes=result.notes)
