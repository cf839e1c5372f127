"""`novel-studio character add|update|rename|retire` (issue 7 items 6-7; seed 000 §5.2, seed 002 §8.5).

    character add NAME [--role R] [--brief TEXT] [--slug S] [--manual]      CharacterWeaver (or a skeleton)
    character update SLUG [--field k=v ...] [--note TEXT]                   by fields, or model-assisted
    character rename SLUG NEW_NAME [--new-slug S] [--keep-alias]            everywhere still to come
    character retire SLUG [--reason TEXT]                                   unless protected

All take `--project`, `--yes`, `--json`, `--offline`; the model-assisted ones `--max-cost`. What they change
is built by `studio.tools.characters`, the model call is `pipeline.planning.character_tool`, and the lock,
the question and the journaled apply are `studio.cli.tool_run`.
"""

from __future__ import annotations

import argparse
import asyncio

from pipeline.planning.character_tool import (
    estimate_weaver_cost,
    request_key,
    weave_character,
    weaver_request,
)
from pipeline.providers.base import ProviderError
from pipeline.structured import StructuredReplyError
from studio.cli.common import ExitCode, add_common_arguments, help_lang
from studio.cli.tool_run import ToolRun, add_tool_flags
from studio.errors import StudioError
from studio.i18n import Catalog, tr
from studio.models.relationships import Relationship
from studio.project import Project
from studio.tools.characters import MESSAGES as CHARACTER_MESSAGES
from studio.tools.characters import (
    add_character,
    parse_fields,
    rename_character,
    retire_character,
    update_character,
)
from studio.tools.plan import ToolPlan
from studio.tools.replies import ToolCharacter, WeaverToolReply
from studio.tools.reply_cache import drop_reply, load_reply, reply_key, save_reply
from studio.tools.shared import ToolError

MESSAGES: Catalog = {
    "help": ("角色工具：新增、修改、改名、退场", "character tools: add, update, rename, retire"),
    "add": ("新增角色（由模型写出档案与 L2 契约）", "add a character (the model writes the profile and L2 contracts)"),
    "update": ("修改角色（按字段，或附要求由模型修改）", "update a character (by fields, or by the model with a note)"),
    "rename": ("给角色改名（角色文件、状态、关系、故事线、未写的大纲与契约；已写正文不改）", "rename a character (its file, "
               "state, relationships, storylines, unwritten outline and contracts; committed text is not changed)"),
    "retire": ("角色退场（移到 characters/retired/；受归档保护的角色不能退场）", "retire a character (moved to "
               "characters/retired/; protected characters cannot be retired)"),
    "name": ("角色的中文名", "the character's name"),
    "slug": ("角色 id（characters/active/<id>.json）", "the character id (characters/active/<id>.json)"),
    "new_name": ("新名字", "the new name"),
    "opt_role": ("角色定位（主角、对手、导师……）", "the role (protagonist, rival, mentor, ...)"),
    "opt_brief": ("角色设定（交给模型）", "what the character is (for the model)"),
    "opt_slug": ("指定角色 id（默认：名字的拼音）", "the id to use (default: the pinyin of the name)"),
    "opt_manual": ("不调用模型，只写一个骨架（无契约）", "call no model: write a skeleton (no contracts)"),
    "opt_field": ("设置字段 k=v（值可为 JSON），可重复", "set a field k=v (the value may be JSON); repeatable"),
    "opt_note": ("修改要求（由模型修改档案与契约）", "what to change (the model updates profile and contracts)"),
    "opt_new_slug": ("同时修改角色 id（文件改名）", "also change the id (the files are renamed)"),
    "opt_keep_alias": ("把旧名保留为别名（化名、曾用名）", "keep the old name as an alias (a former name)"),
    "opt_reason": ("退场原因", "why the character leaves"),
    "need_change": ("请给出 --field 或 --note", "give --field or --note"),
    "rejected": ("模型的回复不合格，未做任何改动：{message}", "the model's reply was not usable; nothing was changed: "
                 "{message}"),
    "reused": ("沿用上次暂停时模型给出的回复（相同请求），不再调用模型", "reusing the reply kept when the same request "
               "paused last time; no new call"),
    "model_error": ("调用模型出错，未做任何改动：{message}", "the model call failed; nothing was changed: {message}"),
}


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    lang = help_lang()
    parser = subparsers.add_parser("character", help=tr(MESSAGES, "help", lang), description=tr(MESSAGES, "help", lang))
    add_common_arguments(parser)
    actions = parser.add_subparsers(dest="action", metavar="{add,update,rename,retire}", required=True)

    add = actions.add_parser("add", help=tr(MESSAGES, "add", lang), description=tr(MESSAGES, "add", lang))
    add.add_argument("name", metavar="NAME", help=tr(MESSAGES, "name", lang))
    add.add_argument("--role", default="", help=tr(MESSAGES, "opt_role", lang))
    add.add_argument("--brief", default="", metavar="TEXT", help=tr(MESSAGES, "opt_brief", lang))
    add.add_argument("--slug", default=None, help=tr(MESSAGES, "opt_slug", lang))
    add.add_argument("--manual", action="store_true", help=tr(MESSAGES, "opt_manual", lang))
    add_tool_flags(add, lang, model=True)
    add.set_defaults(func=run_add)

    update = actions.add_parser("update", help=tr(MESSAGES, "update", lang), description=tr(MESSAGES, "update", lang))
    update.add_argument("slug", metavar="SLUG", help=tr(MESSAGES, "slug", lang))
    update.add_argument("--field", action="append", default=[], metavar="K=V", help=tr(MESSAGES, "opt_field", lang))
    update.add_argument("--note", default="", metavar="TEXT", help=tr(MESSAGES, "opt_note", lang))
    add_tool_flags(update, lang, model=True)
    update.set_defaults(func=run_update)

    rename = actions.add_parser("rename", help=tr(MESSAGES, "rename", lang), description=tr(MESSAGES, "rename", lang))
    rename.add_argument("slug", metavar="SLUG", help=tr(MESSAGES, "slug", lang))
    rename.add_argument("new_name", metavar="NEW_NAME", help=tr(MESSAGES, "new_name", lang))
    rename.add_argument("--new-slug", default=None, help=tr(MESSAGES, "opt_new_slug", lang))
    rename.add_argument("--keep-alias", action="store_true", help=tr(MESSAGES, "opt_keep_alias", lang))
    add_tool_flags(rename, lang)
    rename.set_defaults(func=run_rename)

    retire = actions.add_parser("retire", help=tr(MESSAGES, "retire", lang), description=tr(MESSAGES, "retire", lang))
    retire.add_argument("slug", metavar="SLUG", help=tr(MESSAGES, "slug", lang))
    retire.add_argument("--reason", default="", metavar="TEXT", help=tr(MESSAGES, "opt_reason", lang))
    add_tool_flags(retire, lang)
    retire.set_defaults(func=run_retire)
    for sub in (add, update, rename, retire):
        add_common_arguments(sub)


def _weave(tool: ToolRun, **kwargs: object) -> WeaverToolReply | int:
    """Ask CharacterWeaver (estimate first, `--max-cost`), or reuse the reply a paused run of the same request
    kept; the reply, or an exit code."""
    project = Project.open(tool.root)
    request = weaver_request(project, tool.settings, **kwargs)  # type: ignore[arg-type]
    key = reply_key(request_key(request))
    kept = load_reply(tool.paths, key)
    if kept is None:
        cost = estimate_weaver_cost(request, tool.settings, offline=tool.offline)
        if not tool.estimate(cost, request.model):
            tool.out.data["stopped_by_cost"] = True
            return int(ExitCode.OK)
    try:
        outcome = asyncio.run(weave_character(project, tool.settings, tool.provider(), request,
                                              kept_text=kept.text if kept is not None else None))
    except StructuredReplyError as exc:
        tool.booked(sum(c.cost_usd or 0.0 for c in exc.calls), len(exc.calls))
        raise ToolError(tr(MESSAGES, "rejected", tool.lang, message=str(exc))) from None
    except ProviderError as exc:
        raise StudioError(tr(MESSAGES, "model_error", tool.lang, message=str(exc))) from None
    if outcome.reused:
        tool.out.say(tr(MESSAGES, "reused", tool.lang))
        tool.out.data["reused_reply"] = True
    else:
        tool.booked(outcome.cost_usd, len(outcome.calls))
        save_reply(tool.paths, key, f"character {kwargs.get('mode')}", outcome.text, outcome.cost_usd)
    tool.after_done(lambda: drop_reply(tool.paths, key))
    return outcome.reply


def run_add(args: argparse.Namespace) -> int:
    def build(tool: ToolRun) -> ToolPlan | int:
        draft: ToolCharacter | None = None
        relationships: list[Relationship] = []
        if not args.manual:
            reply = _weave(tool, mode="add", name=args.name.strip(), role=args.role, brief=args.brief)
            if isinstance(reply, int):
                return reply
            draft, relationships = reply.characters[0], reply.relationships
        return add_character(tool.paths, args.name, draft=draft, relationships=relationships, role=args.role,
                             brief=args.brief, slug=args.slug, lang=tool.lang)

    return ToolRun(args).run(build)


def run_update(args: argparse.Namespace) -> int:
    def build(tool: ToolRun) -> ToolPlan | int:
        if not args.field and not args.note:
            raise ToolError(tr(MESSAGES, "need_change", tool.lang))
        fields = parse_fields(args.field, tool.lang)
        draft: ToolCharacter | None = None
        relationships: list[Relationship] = []
        if args.note:
            if not tool.paths.character(args.slug).is_file():  # before any money is spent
                raise ToolError(tr(CHARACTER_MESSAGES, "no_character", tool.lang, slug=args.slug))
            reply = _weave(tool, mode="update", slug=args.slug, note=args.note)
            if isinstance(reply, int):
                return reply
            draft, relationships = reply.characters[0], reply.relationships
        return update_character(tool.paths, args.slug, fields=fields, draft=draft, relationships=relationships,
                                note=args.note, lang=tool.lang)

    return ToolRun(args).run(build)


def run_rename(args: argparse.Namespace) -> int:
    return ToolRun(args).run(lambda tool: rename_character(
        tool.paths, args.slug, args.new_name, new_slug=args.new_slug, keep_alias=args.keep_alias, lang=tool.lang))


def run_retire(args: argparse.Namespace) -> int:
    return ToolRun(args).run(lambda tool: retire_character(tool.paths, args.slug, reason=args.reason, lang=tool.lang))
