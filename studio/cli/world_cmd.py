"""`novel-studio world rule add|update` (issue 7 items 6-7; seed 000 §5.1 incremental mode, §6.5.2).

    world rule add TEXT [--hard|--soft] [--category C] [--exception X ...] [--chapter N]
    world rule update ID [--text T] [--hard|--soft] [--category C] [--exception X ...] [--no-exceptions]

All take `--project`, `--yes`, `--json`, `--offline` (no model is called: the author's text is the rule).
What they change is built by `studio.tools.world`; the lock, the question and the journaled apply are
`studio.cli.tool_run`.
"""

from __future__ import annotations

import argparse
from typing import Literal

from studio.cli.common import add_common_arguments, help_lang
from studio.cli.tool_run import ToolRun, add_tool_flags
from studio.i18n import Catalog, Lang, tr
from studio.tools.world import add_rule, update_rule

MESSAGES: Catalog = {
    "help": ("世界观工具", "world tools"),
    "rule": ("世界规则（L1）：新增、修改", "world rules (L1): add, change"),
    "add": ("新增一条世界规则（world/rules.json）", "add a world rule (world/rules.json)"),
    "update": ("修改一条世界规则", "change a world rule"),
    "text": ("规则内容", "the rule"),
    "id": ("规则 id（如 W-001）", "the rule id (e.g. W-001)"),
    "opt_text": ("新的规则内容", "the new wording"),
    "opt_hard": ("硬性规则（不可违反，新增时的默认）", "a hard rule (cannot be broken; the default when adding)"),
    "opt_soft": ("软性规则（可有例外，但需说明）", "a soft rule (exceptions allowed when explained)"),
    "opt_category": ("类别（magic_system、geography、society……）", "the category (magic_system, geography, ...)"),
    "opt_exception": ("例外，可重复（修改时替换全部例外）", "an exception; repeatable (on update: replaces them all)"),
    "opt_no_exceptions": ("清空例外", "remove every exception"),
    "opt_chapter": ("从第几章起生效（默认：下一章）", "in force from this chapter (default: the next one)"),
}


def _kind_flags(parser: argparse.ArgumentParser, lang: Lang) -> None:
    kind = parser.add_mutually_exclusive_group()
    kind.add_argument("--hard", dest="kind", action="store_const", const="hard", help=tr(MESSAGES, "opt_hard", lang))
    kind.add_argument("--soft", dest="kind", action="store_const", const="soft", help=tr(MESSAGES, "opt_soft", lang))
    parser.set_defaults(kind=None)


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    lang = help_lang()
    parser = subparsers.add_parser("world", help=tr(MESSAGES, "help", lang), description=tr(MESSAGES, "help", lang))
    add_common_arguments(parser)
    things = parser.add_subparsers(dest="thing", metavar="{rule}", required=True)
    rule = things.add_parser("rule", help=tr(MESSAGES, "rule", lang), description=tr(MESSAGES, "rule", lang))
    add_common_arguments(rule)
    actions = rule.add_subparsers(dest="action", metavar="{add,update}", required=True)

    add = actions.add_parser("add", help=tr(MESSAGES, "add", lang), description=tr(MESSAGES, "add", lang))
    add.add_argument("text", metavar="TEXT", help=tr(MESSAGES, "text", lang))
    _kind_flags(add, lang)
    add.add_argument("--category", default="", help=tr(MESSAGES, "opt_category", lang))
    add.add_argument("--exception", action="append", default=[], help=tr(MESSAGES, "opt_exception", lang))
    add.add_argument("--chapter", type=int, default=None, metavar="N", help=tr(MESSAGES, "opt_chapter", lang))
    add_tool_flags(add, lang)
    add_common_arguments(add)
    add.set_defaults(func=run_add)

    update = actions.add_parser("update", help=tr(MESSAGES, "update", lang), description=tr(MESSAGES, "update", lang))
    update.add_argument("rule_id", metavar="ID", help=tr(MESSAGES, "id", lang))
    update.add_argument("--text", default=None, help=tr(MESSAGES, "opt_text", lang))
    _kind_flags(update, lang)
    update.add_argument("--category", default=None, help=tr(MESSAGES, "opt_category", lang))
    update.add_argument("--exception", action="append", default=None, help=tr(MESSAGES, "opt_exception", lang))
    update.add_argument("--no-exceptions", action="store_true", help=tr(MESSAGES, "opt_no_exceptions", lang))
    add_tool_flags(update, lang)
    add_common_arguments(update)
    update.set_defaults(func=run_update)


def _kind(value: str | None) -> Literal["hard", "soft"] | None:
    return "soft" if value == "soft" else ("hard" if value == "hard" else None)


def run_add(args: argparse.Namespace) -> int:
    return ToolRun(args).run(lambda tool: add_rule(
        tool.paths, args.text, constraint_type=_kind(args.kind) or "hard", category=args.category,
        exceptions=args.exception, chapter=args.chapter, lang=tool.lang))


def run_update(args: argparse.Namespace) -> int:
    exceptions = [] if args.no_exceptions else args.exception
    return ToolRun(args).run(lambda tool: update_rule(
        tool.paths, args.rule_id, text=args.text, constraint_type=_kind(args.kind), category=args.category,
        exceptions=exceptions, lang=tool.lang))
