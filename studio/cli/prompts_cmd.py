"""`novel-studio prompts list` and `novel-studio prompts upgrade [AGENT|--all] [--yes]`: the prompt versions a
project pins (issue 9 item 8; the pins are the `[prompts]` table of novel-studio.toml, see `studio.prompt_pins`).

`list` is read-only: each prompt's pinned and latest installed version, and whether a newer one exists or the
pinned file is gone. A project not pinned yet shows the pins its first run would write (marked as such).

`upgrade` pins the latest installed version of one prompt (AGENT: a prompt id or an alias of `prompt`, like
writer or judge) or of every prompt with a newer version or a missing file (`--all`, also the default without
AGENT). It first shows what changes: the version numbers and, per cache tier, a short diff of the template.
It asks before writing; `--yes` writes without asking, and without a terminal (or with `--json`) and no `--yes`
it exits 3 with the question. It takes the project lock (a run reads the pins at each chapter). The next
chapter written records the new version in its log (`prompt_versions`).

`pin_before_run(args)` is what `main` calls before the commands that build prompts: it pins a project that
has none yet and says so once (on stderr, so `--json` output stays one object).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from pipeline.prompts_registry import (
    SectionChange,
    ensure_pins,
    installed_registry,
    pin_notice,
    section_changes,
)
from studio.cli.common import (
    PIN_COMMANDS,
    ExitCode,
    JsonOut,
    add_common_arguments,
    ask_or_pause,
    help_lang,
    looks_like_project,
    project_root,
    require_project,
    resolve_lang,
    take_project_lock,
)
from studio.cli.prompt_cmd import ALIASES
from studio.errors import StudioError, UsageError
from studio.i18n import Catalog, Lang, tr, tr_count
from studio.lock import ProjectLock
from studio.paths import ProjectPaths
from studio.prompt_pins import PinRow, pin_rows, read_pins, write_pins

__all__ = ["PIN_COMMANDS", "pin_before_run", "register", "run_list", "run_upgrade", "upgrade_targets"]


MESSAGES: Catalog = {
    "help": ("查看或升级本项目固定使用的提示词版本", "show or upgrade the prompt versions this project pins"),
    "list_help": ("列出每个提示词固定的版本和已安装的最新版本（只读）",
                  "list each prompt's pinned and latest installed version (read-only)"),
    "upgrade_help": ("把提示词升级到已安装的最新版本（先显示改动，确认后写入 novel-studio.toml）",
                     "pin the latest installed version of prompts (shows the changes, asks, then writes "
                     "novel-studio.toml)"),
    "arg_agent": ("提示词 id（如 chapter-writer）或简称 {aliases}；不写则升级全部有新版本的",
                  "a prompt id (like chapter-writer) or an alias: {aliases}; none: every prompt with a newer version"),
    "opt_all": ("升级所有有新版本（或固定的版本文件已丢失）的提示词", "upgrade every prompt with a newer version (or a missing pinned file)"),
    "opt_yes": ("不询问，直接写入", "write without asking"),
    "not_pinned_yet": ("（本项目还没有固定版本：下面是首次运行时会固定的版本）",
                       "(this project pins nothing yet: below are the versions its first run will pin)"),
    "row": ("{id:<18} 固定 {pinned:<5} 最新 {latest:<5}{mark}", "{id:<18} pinned {pinned:<5} latest {latest:<5}{mark}"),
    "mark_newer": ("  ← 有新版本", "  <- newer version"),
    "mark_missing": ("  ← 固定的版本文件不存在", "  <- pinned file missing"),
    "mark_unpinned": ("  （未固定，首次运行固定为最新）", "  (not pinned: its first run pins the latest)"),
    "summary_newer": ("{n} 个提示词有新版本：novel-studio prompts upgrade 查看改动并升级",
                      "{n} prompts have a newer version: novel-studio prompts upgrade shows the changes and upgrades"),
    "summary_newer_one": ("{n} 个提示词有新版本：novel-studio prompts upgrade 查看改动并升级",
                          "{n} prompt has a newer version: novel-studio prompts upgrade shows the changes and upgrades"),
    "summary_current": ("所有提示词都是最新版本", "every prompt is at its latest version"),
    "unknown": ("没有名为 {name} 的提示词。可用：{known}", "No prompt named {name}. Known: {known}"),
    "nothing": ("没有需要升级的提示词：{detail}", "Nothing to upgrade: {detail}"),
    "nothing_detail_one": ("{id} 已是最新版本 v{version}", "{id} is at its latest version v{version}"),
    "nothing_detail_all": ("所有提示词都已是最新版本", "every prompt is at its latest version"),
    "change": ("{id}：v{old} → v{new}", "{id}: v{old} -> v{new}"),
    "change_missing": ("{id}：v{old}（文件已不存在）→ v{new}", "{id}: v{old} (file missing) -> v{new}"),
    "change_new": ("{id}：（未固定）→ v{new}", "{id}: (not pinned) -> v{new}"),
    "tier": ("  改动的部分：{tier}", "  changed: {tier}"),
    "same_text": ("  模板正文没有变化", "  the template text is the same"),
    "more_lines": ("  …（另有 {n} 行改动未显示）", "  ... ({n} more changed lines not shown)"),
    "cache_note": ("升级会改变这些提示词的缓存前缀：下一章的提示词缓存要重新写入一次。",
                   "Upgrading changes these prompts' cached prefix: the next chapter writes the prompt cache once "
                   "more."),
    "question": ("把以上 {n} 个提示词固定为新版本吗？", "Pin the {n} prompts above to the new version?"),
    "question_one": ("把以上 {n} 个提示词固定为新版本吗？", "Pin the prompt above to the new version?"),
    "cancelled": ("已取消，novel-studio.toml 未改动", "Cancelled; novel-studio.toml is unchanged"),
    "lock_question": ("接管项目锁并升级提示词吗？", "take over the project lock and upgrade the prompts?"),
    "done": ("已固定：{names}（写入 {path}）。下一章起使用新版本", "Pinned: {names} (written to {path}). The next chapter uses them"),
    "comments_lost": ("注意：[prompts] 不是以表格形式写的，novel-studio.toml 已整体重写，原有注释丢失",
                      "Note: [prompts] was not written as a table, so novel-studio.toml was rewritten whole and its "
                      "comments were lost"),
}

TIER_NAMES: dict[str, tuple[str, str]] = {
    "stable": ("稳定部分（system，缓存）", "stable (system, cached)"),
    "volume": ("卷级部分（缓存）", "volume (cached)"),
    "chapter": ("每章部分", "per chapter"),
    "variables": ("变量", "variables"),
}


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    lang = help_lang()
    parser = subparsers.add_parser("prompts", help=tr(MESSAGES, "help", lang), description=tr(MESSAGES, "help", lang))
    add_common_arguments(parser)
    actions = parser.add_subparsers(dest="action", metavar="{list,upgrade}", required=True)
    listing = actions.add_parser("list", help=tr(MESSAGES, "list_help", lang), description=tr(MESSAGES, "list_help", lang))
    listing.set_defaults(func=run_list)
    upgrade = actions.add_parser(
        "upgrade", help=tr(MESSAGES, "upgrade_help", lang), description=tr(MESSAGES, "upgrade_help", lang)
    )
    upgrade.add_argument(
        "agent", metavar="AGENT", nargs="?", help=tr(MESSAGES, "arg_agent", lang, aliases=", ".join(ALIASES))
    )
    upgrade.add_argument("--all", action="store_true", help=tr(MESSAGES, "opt_all", lang))
    upgrade.add_argument("--yes", "-y", action="store_true", help=tr(MESSAGES, "opt_yes", lang))
    upgrade.set_defaults(func=run_upgrade)
    for sub in (listing, upgrade):
        add_common_arguments(sub)


def _rows(root: Path) -> tuple[list[PinRow], bool]:
    """(rows, pinned): the project's pins, or the pins its first run would write (nothing written here)."""
    registry = installed_registry()
    installed = {pid: registry.versions(pid) for pid in registry.ids()}
    pins = read_pins(ProjectPaths(root))
    if pins is None:
        return pin_rows(ensure_pins(root, registry, write=False).pins, installed), False
    return pin_rows(pins, installed), True


def _version(value: int | None) -> str:
    return f"v{value}" if value is not None else "-"


def run_list(args: argparse.Namespace) -> int:
    root = require_project(args)
    lang = resolve_lang(args, root)
    out = JsonOut(bool(getattr(args, "json", False)))
    rows, pinned = _rows(root)
    if not pinned:
        out.say(tr(MESSAGES, "not_pinned_yet", lang))
    for row in rows:
        mark = ""
        if row.missing:
            mark = tr(MESSAGES, "mark_missing", lang)
        elif row.newer:
            mark = tr(MESSAGES, "mark_newer", lang)
        elif row.pinned is None:
            mark = tr(MESSAGES, "mark_unpinned", lang)
        out.say(tr(MESSAGES, "row", lang, id=row.prompt_id, pinned=_version(row.pinned), latest=_version(row.latest),
                   mark=mark).rstrip())
    newer = [r for r in rows if r.newer or r.missing]
    out.say(tr_count(MESSAGES, "summary_newer", lang, len(newer), n=len(newer)) if newer else tr(MESSAGES, "summary_current", lang))
    return out.finish(int(ExitCode.OK), pinned=pinned, prompts=[r.to_data() for r in rows],
                      upgradable=[r.prompt_id for r in newer])


def upgrade_targets(rows: list[PinRow], agent: str | None, lang: Lang = "zh") -> list[PinRow]:
    """The rows `upgrade` moves: AGENT's (when it is not at its latest), else every row with a newer version,
    a missing pinned file or no pin yet."""
    if agent:
        key = agent.strip().lower()
        prompt_id = ALIASES.get(key, key)
        row = next((r for r in rows if r.prompt_id == prompt_id), None)
        if row is None:
            known = ", ".join(dict.fromkeys([*ALIASES, *(r.prompt_id for r in rows)]))  # summarizer is both
            raise UsageError(tr(MESSAGES, "unknown", lang, name=agent, known=known))
        return [row] if row.latest is not None and row.pinned != row.latest else []
    return [r for r in rows if r.latest is not None and (r.newer or r.missing or r.pinned is None)]


def _changes(row: PinRow) -> list[SectionChange]:
    registry = installed_registry()
    if row.pinned is None or row.missing or row.latest is None:
        return []
    return section_changes(registry.get(row.prompt_id, row.pinned), registry.get(row.prompt_id, row.latest))


def _change_lines(row: PinRow, changes: list[SectionChange], lang: Lang) -> list[str]:
    if row.pinned is None:
        head = tr(MESSAGES, "change_new", lang, id=row.prompt_id, new=row.latest)
    elif row.missing:
        head = tr(MESSAGES, "change_missing", lang, id=row.prompt_id, old=row.pinned, new=row.latest)
    else:
        head = tr(MESSAGES, "change", lang, id=row.prompt_id, old=row.pinned, new=row.latest)
    lines = [head]
    if row.pinned is not None and not row.missing and not changes:
        lines.append(tr(MESSAGES, "same_text", lang))
    for change in changes:
        name = TIER_NAMES.get(change.tier, (change.tier, change.tier))[0 if lang == "zh" else 1]
        lines.append(tr(MESSAGES, "tier", lang, tier=name))
        lines.extend(f"    {line}" for line in change.diff)
        if change.truncated:
            lines.append(tr(MESSAGES, "more_lines", lang, n=change.truncated))
    return lines


def run_upgrade(args: argparse.Namespace) -> int:
    root = require_project(args)
    lang = resolve_lang(args, root)
    out = JsonOut(bool(getattr(args, "json", False)))
    agent = None if getattr(args, "all", False) else getattr(args, "agent", None)
    rows, _ = _rows(root)
    targets = upgrade_targets(rows, agent, lang)
    if not targets:
        detail = (
            tr(MESSAGES, "nothing_detail_one", lang, id=_prompt_id(agent), version=_latest_of(rows, agent))
            if agent else tr(MESSAGES, "nothing_detail_all", lang)
        )
        out.say(tr(MESSAGES, "nothing", lang, detail=detail))
        return out.finish(int(ExitCode.OK), upgraded=[])
    planned: list[dict[str, Any]] = []
    for row in targets:
        changes = _changes(row)
        for line in _change_lines(row, changes, lang):
            out.say(line)
        planned.append({
            "prompt_id": row.prompt_id,
            "from": row.pinned,
            "to": row.latest,
            "missing": row.missing,
            "changed_sections": [c.tier for c in changes],
            "diff": {c.tier: c.diff for c in changes},
        })
    out.say(tr(MESSAGES, "cache_note", lang))
    out.data["changes"] = planned
    if not getattr(args, "yes", False):
        answer = ask_or_pause(args, tr_count(MESSAGES, "question", lang, len(targets), n=len(targets)), choices=["y", "n"], default="n")
        if answer != "y":
            out.say(tr(MESSAGES, "cancelled", lang))
            return out.finish(int(ExitCode.OK), upgraded=[])
    paths = ProjectPaths(root)
    lock = ProjectLock(paths)
    if not take_project_lock(args, lock, lang, tr(MESSAGES, "lock_question", lang), tr(MESSAGES, "cancelled", lang)):
        return out.finish(int(ExitCode.LOCKED), upgraded=[])
    try:
        pins = read_pins(paths)
        if pins is None:  # never pinned: the first pins, then the upgrade on top of them
            pins = ensure_pins(root, installed_registry()).pins
        pins.update({row.prompt_id: row.latest for row in targets if row.latest is not None})
        result = write_pins(paths, pins)
    finally:
        lock.release()
    names = ", ".join(f"{row.prompt_id} v{row.latest}" for row in targets)
    out.say(tr(MESSAGES, "done", lang, names=names, path=result.path))
    if result.comments_lost:
        out.err(tr(MESSAGES, "comments_lost", lang))
    return out.finish(int(ExitCode.OK), upgraded=[row.prompt_id for row in targets],
                      pins=dict(sorted(pins.items())), comments_lost=result.comments_lost)


def _prompt_id(agent: str | None) -> str:
    key = (agent or "").strip().lower()
    return ALIASES.get(key, key)


def _latest_of(rows: list[PinRow], agent: str | None) -> int | None:
    prompt_id = _prompt_id(agent)
    return next((r.latest for r in rows if r.prompt_id == prompt_id), None)


def pin_before_run(args: argparse.Namespace) -> None:
    """Before a command that builds prompts: pin a project that has no pins yet (or prompts it has never
    pinned) and say so once on stderr. A folder that is not a project yet, or pins that cannot be read, are
    left to the command itself (it reports them)."""
    if getattr(args, "command", None) not in PIN_COMMANDS:
        return
    root = project_root(args)
    if not looks_like_project(root):
        return
    try:
        notice = pin_notice(ensure_pins(root, installed_registry()), resolve_lang(args, root))
    except (StudioError, OSError):  # the command that follows reports a broken settings file properly
        return
    if notice:
        print(notice, file=sys.stderr)
