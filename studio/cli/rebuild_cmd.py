"""`novel-studio rebuild N`: rebuild a hand-edited committed chapter headless (see pipeline.rebuild).

Prints the new summary, the facts the edit changed (state diff lines), the ops that were dropped, and the
later chapters marked for review with the reasons. Asks before calling a real model (not offline) unless
`--yes`. Exit: 0 done, 1 error, 3 needs an answer and no terminal, 4 locked, 130 interrupted.

Agents come from `AGENTS_FACTORY` here, else `continue_cmd.AGENTS_FACTORY` (the tests' seam), else the
same real/offline agents `continue` builds.

Prompt pins (issue 9 item 8): a rebuild builds its prompts at the versions the project pins, as `continue` does.
`rebuild` is not in `PIN_COMMANDS` (a refused rebuild must change nothing), so once the author has agreed (or
`--yes`) its agents pin a project without pins when they build a prompt and, once it is done, it prints the same
notice `continue` prints (`pin_notice`), and
it says when a prompt it uses (the summarizer's; the judge's with `--rejudge`) has a newer installed version
than the pinned one it runs with. Both go to stderr, so `--json` stays one object.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pipeline.agents.judge import EVIDENCE_PROMPT
from pipeline.context import JUDGE_PROMPT, SUMMARIZER_PROMPT
from pipeline.prompts_registry import ensure_pins, installed_registry, pin_notice
from pipeline.rebuild import RebuildResult, rebuild_chapter
from studio.cli import continue_cmd, provider_seam
from studio.cli.common import (
    ExitCode,
    add_common_arguments,
    ask_or_pause,
    emit,
    help_lang,
    require_project,
    resolve_lang,
    take_project_lock,
)
from studio.config import load_settings
from studio.i18n import Catalog, Lang, tr
from studio.i18n_names import recommendation_name
from studio.impact import format_effect
from studio.lock import ProjectLock
from studio.paths import ProjectPaths
from studio.signals import termination_handlers

AGENTS_FACTORY: continue_cmd.AgentsFactory | None = None

MESSAGES: Catalog = {
    "help": (
        "手动改稿后重建某一已提交章节的摘要、状态、记忆和伏笔，并标出需要复查的后续章节",
        "rebuild a hand-edited committed chapter (summary, state, memory, foreshadowing) and mark the later "
        "chapters to review",
    ),
    "opt_n": ("要重建的章节号", "the chapter to rebuild"),
    "opt_rejudge": ("同时重新评分本章", "also judge the chapter again"),
    "opt_yes": ("不确认，直接重建", "do not ask for confirmation"),
    "confirm": (
        "重建第 {chapter} 章？会调用模型重新生成摘要和状态变更",
        "Rebuild chapter {chapter}? This calls the model to summarize it again",
    ),
    "offline_over_real": (
        "第 {chapter} 章的摘要和状态是真实模型提取的；离线重建会用演示文本覆盖它们。确定要覆盖吗？",
        "Chapter {chapter}'s summary and state were extracted by a real model; an offline rebuild replaces them "
        "with demo output. Overwrite them?",
    ),
    "stale": ("项目锁的持有进程已不在：接管并重建？", "The project lock's holder is gone: take it over and rebuild?"),
    "cancelled": ("已取消", "cancelled"),
    "offline": ("离线模式：摘要和状态变更来自离线演示模型", "offline mode: summary and state ops come from the offline demo model"),
    "done": ("第 {chapter} 章已重建（状态版本 {base} → {version}）", "Chapter {chapter} rebuilt (state version {base} -> {version})"),
    "backup": ("改动前的文件备份在 {path}", "the files as they were are backed up in {path}"),
    "summary": ("新摘要：{summary}", "New summary: {summary}"),
    "changes": ("状态变化：", "State changes:"),
    "no_changes": ("状态变化：无", "State changes: none"),
    "new_ops": ("本章状态操作：", "This chapter's state ops:"),
    "dropped": ("被丢弃的操作：", "Dropped ops:"),
    "dropped_line": ("第 {chapter} 章：{op} —— {reason}", "chapter {chapter}: {op} -- {reason}"),
    "impacted": ("需要复查的后续章节：", "Later chapters to review:"),
    "no_impact": ("没有后续章节受影响", "No later chapter is affected"),
    "chapter": ("第 {chapter} 章：", "Chapter {chapter}:"),
    "memory_kept": (
        "故事线 {storyline} 的记忆保持为后续章节的版本",
        "storyline {storyline}'s memory stays the later chapter's",
    ),
    "memory_written": ("已更新故事线 {storyline} 的记忆", "updated storyline {storyline}'s memory"),
    "rejudged": ("重新评分：{overall:.2f}（{recommendation}）", "Judged again: {overall:.2f} ({recommendation})"),
    "prompts_newer": (
        "提示：本次重建按项目固定的提示词版本进行（{items}）；novel-studio prompts upgrade 查看改动并升级",
        "Note: this rebuild uses the prompt versions the project pins ({items}); novel-studio prompts upgrade "
        "shows the changes and upgrades",
    ),
    "prompt_newer_item": ("{prompt} v{pinned}，已安装 v{latest}", "{prompt} v{pinned}, v{latest} installed"),
    "warning": ("提示：{message}", "Note: {message}"),
    "error": ("出错：{message}", "Error: {message}"),
}


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    lang = help_lang()
    parser = subparsers.add_parser("rebuild", help=tr(MESSAGES, "help", lang), description=tr(MESSAGES, "help", lang))
    parser.add_argument("chapter", type=int, metavar="N", help=tr(MESSAGES, "opt_n", lang))
    parser.add_argument("--rejudge", action="store_true", help=tr(MESSAGES, "opt_rejudge", lang))
    parser.add_argument("--yes", "-y", action="store_true", help=tr(MESSAGES, "opt_yes", lang))
    add_common_arguments(parser)
    parser.set_defaults(func=run)


def _op_text(entry: Any) -> str:
    if isinstance(entry, dict):
        parts = [str(entry.get("op")), str(entry.get("path"))]
        if "value" in entry:
            parts.append(str(entry["value"]))
        return " ".join(parts)
    return str(entry)


def storyline_names(paths: ProjectPaths) -> dict[str, str]:
    """Storyline id -> name from the project's storylines file ({} without a readable one: ids are shown)."""
    from studio.errors import StudioError
    from studio.models.storylines import Storylines

    try:
        return Storylines.load(paths.storylines).names()
    except (OSError, StudioError):
        return {}


def render_result(result: RebuildResult, lang: Lang, storylines: Mapping[str, str] | None = None) -> str:
    """The text report of a rebuild (what the CLI prints); `storylines`: storyline id -> name."""
    lines = [
        tr(MESSAGES, "done", lang, chapter=result.chapter, base=result.base_state_version, version=result.state_version),
        tr(MESSAGES, "summary", lang, summary=result.summary.strip()),
    ]
    diff = result.diff_lines(lang)
    if diff:
        lines.append(tr(MESSAGES, "changes", lang))
        lines += [f"  {line}" for line in diff]
    else:
        lines.append(tr(MESSAGES, "no_changes", lang))
    if result.dropped:
        lines.append(tr(MESSAGES, "dropped", lang))
        lines += [
            "  " + tr(MESSAGES, "dropped_line", lang, chapter=d.chapter, op=_op_text(d.entry), reason=d.reason)
            for d in result.dropped
        ]
    key = "memory_written" if result.memory_written else "memory_kept"
    line = result.storyline_id
    lines.append(tr(MESSAGES, key, lang, storyline=(storylines or {}).get(line, line)))
    if result.evaluation is not None:
        lines.append(
            tr(MESSAGES, "rejudged", lang, overall=result.evaluation.computed_overall(),
               recommendation=recommendation_name(result.evaluation.recommendation, lang))
        )
    if result.impacted:
        lines.append(tr(MESSAGES, "impacted", lang))
        for chapter, reasons in result.impacted.items():
            lines.append("  " + tr(MESSAGES, "chapter", lang, chapter=chapter))
            lines += [f"    - {reason}" for reason in reasons]
    else:
        lines.append(tr(MESSAGES, "no_impact", lang))
    if result.backup_dir is not None:
        lines.append(tr(MESSAGES, "backup", lang, path=result.backup_dir))
    return "\n".join(lines)


def result_data(result: RebuildResult, lang: Lang) -> dict[str, Any]:
    return {
        "chapter": result.chapter,
        "storyline_id": result.storyline_id,
        "base_state_version": result.base_state_version,
        "backup": str(result.backup_dir) if result.backup_dir else None,
        "state_version": result.state_version,
        "summary": result.summary,
        "facts": [
            {
                "key": f.key,
                "kind": f.kind,
                "old": f.old,
                "new": f.new,
                "text": f.describe(result.display_names, lang),
                "old_text": format_effect(f.old, f.kind, lang),
                "new_text": format_effect(f.new, f.kind, lang),
            }
            for f in result.facts
        ],
        "dropped": [{"chapter": d.chapter, "op": d.entry, "reason": d.reason} for d in result.dropped],
        "impacted": {str(k): v for k, v in result.impacted.items()},
        "memory_written": result.memory_written,
        "warnings": result.warnings,
        "overall": result.evaluation.computed_overall() if result.evaluation is not None else None,
    }


def pinned_prompts_notes(root: Path, rejudge: bool, lang: Lang) -> list[str]:
    """The pin notice `continue` prints (a project without pins is pinned by the rebuild's agents when they
    build a prompt, after the rebuild's own refusals) and which prompts this rebuild uses at a pinned version
    older than the installed one (see the module docstring). Writes nothing."""
    registry = installed_registry()
    outcome = ensure_pins(root, registry, write=False)
    notes = [note] if (note := pin_notice(outcome, lang)) else []
    used = [SUMMARIZER_PROMPT, *((JUDGE_PROMPT, EVIDENCE_PROMPT) if rejudge else ())]
    items = []
    for prompt_id in used:
        pinned = outcome.pins.get(prompt_id)
        versions = registry.versions(prompt_id)
        if pinned is not None and versions and versions[-1] > pinned:
            items.append(tr(MESSAGES, "prompt_newer_item", lang, prompt=prompt_id, pinned=pinned, latest=versions[-1]))
    if items:
        notes.append(tr(MESSAGES, "prompts_newer", lang, items="；".join(items) if lang == "zh" else "; ".join(items)))
    return notes


def run(args: argparse.Namespace) -> int:
    root = require_project(args)
    lang = resolve_lang(args, root)
    settings = load_settings(root)
    paths = ProjectPaths(root)
    chapter = int(args.chapter)
    offline = bool(args.offline) or settings.provider.preset == "offline"
    factory = AGENTS_FACTORY or continue_cmd.AGENTS_FACTORY

    if not offline and factory is None and settings.api_key(os.environ) is None:
        print(provider_seam.no_key_text(settings, lang), file=sys.stderr)
        return int(ExitCode.ERROR)

    lock = ProjectLock(paths, chapter=chapter if chapter >= 1 else None)
    if not take_project_lock(args, lock, lang, tr(MESSAGES, "stale", lang), tr(MESSAGES, "cancelled", lang)):
        return int(ExitCode.LOCKED)
    try:
        if not offline and not args.yes:
            answer = ask_or_pause(args, tr(MESSAGES, "confirm", lang, chapter=chapter), choices=["y", "n"], default="y")
            if answer != "y":
                print(tr(MESSAGES, "cancelled", lang))
                return int(ExitCode.OK)
        if offline and not args.yes and continue_cmd.chapter_by_real_model(paths, chapter):
            # Offline demo output must never silently replace facts a real model extracted.
            answer = ask_or_pause(args, tr(MESSAGES, "offline_over_real", lang, chapter=chapter), choices=["y", "n"],
                                  default="n")
            if answer != "y":
                print(tr(MESSAGES, "cancelled", lang))
                return int(ExitCode.OK)
        if offline and not getattr(args, "json", False):
            print(tr(MESSAGES, "offline", lang))
        notes = pinned_prompts_notes(root, bool(args.rejudge), lang)
        agents = (factory or continue_cmd.default_agents)(root, settings, offline)
        with termination_handlers():
            result = asyncio.run(
                rebuild_chapter(root, chapter, agents, lock=lock, rejudge=bool(args.rejudge), lang=lang)
            )
    finally:
        lock.release()
    for note in notes:  # said once the rebuild is done: a refused rebuild prints and changes nothing
        print(note, file=sys.stderr)
    if not getattr(args, "json", False):
        for warning in result.warnings:
            print(tr(MESSAGES, "warning", lang, message=warning))
    emit(args, result_data(result, lang), render_result(result, lang, storyline_names(paths)))
    return int(ExitCode.OK)
