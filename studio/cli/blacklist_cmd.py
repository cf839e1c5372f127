"""`novel-studio blacklist`: the author's review of the AI-phrase blacklist (issue 9 item 5).

    novel-studio blacklist proposals          # the judge's pending proposals, numbered
    novel-studio blacklist approve 1 3        # into ai-blacklist.json
    novel-studio blacklist reject 2           # never proposed again
    novel-studio blacklist add 眸光微闪 [--limited [--rate 1.5]]
    novel-studio blacklist show               # the list as every prompt reads it

The work is `studio.blacklist_review` (one definition for the CLI and the studio). Exit: 0 done, 1 error (an
unknown or decided proposal, a bad phrase: nothing is written then).
"""

from __future__ import annotations

import argparse

from studio.blacklist_review import add_entry, approve, reject
from studio.cli.common import ExitCode, add_common_arguments, emit, help_lang, require_project, resolve_lang
from studio.i18n import Catalog, Lang, tr
from studio.models.blacklist import AiBlacklist, Tier
from studio.models.blacklist_proposals import BlacklistProposal, BlacklistProposals
from studio.paths import ProjectPaths

MESSAGES: Catalog = {
    "help": ("查看和维护 AI 腔黑名单：评审建议的新词、批准、拒绝、手动添加", "review the AI-phrase blacklist: the judge's proposals, approve, reject, add"),
    "proposals": ("列出评审建议加入黑名单的词（待审核）", "list the entries the judge proposed (pending)"),
    "approve": ("批准建议，加入黑名单", "approve proposals: add them to the blacklist"),
    "reject": ("拒绝建议（以后不再提）", "reject proposals (never proposed again)"),
    "add": ("手动加入一个词或句式（… 或 * 表示句内间隔）", "add a phrase or a shape (… or * is a gap within a sentence)"),
    "show": ("按模型看到的样子显示黑名单（写手、润色、评审）", "show the list as the models read it (writer, refiner, judge)"),
    "opt_ids": ("建议编号（见 proposals）", "proposal numbers (see proposals)"),
    "opt_phrase": ("要加入的词或句式", "the phrase or shape to add"),
    "opt_limited": ("限用而不是禁用（每千字不超过限额）", "limited rather than banned (up to a rate per 1,000 characters)"),
    "opt_rate": ("限用词每千字最多几次（默认用黑名单的 limited_rate）", "uses per 1,000 characters allowed (default: the list's limited_rate)"),
    "none": ("没有待审核的建议", "No pending proposals"),
    "line": (
        "{id}. “{phrase}”（{tier}，第 {chapters} 章，本章 {count} 次）{note}",
        "{id}. '{phrase}' ({tier}, chapter {chapters}, {count} in the chapter) {note}",
    ),
    "example": ("    例：{text}", "    e.g. {text}"),
    "hint": (
        "批准：novel-studio blacklist approve 编号；拒绝：novel-studio blacklist reject 编号",
        "approve: novel-studio blacklist approve N; reject: novel-studio blacklist reject N",
    ),
    "banned": ("禁用", "banned"),
    "limited": ("限用", "limited"),
    "approved": ("已加入黑名单：“{phrase}”", "Added to the blacklist: '{phrase}'"),
    "already": ("“{phrase}”已在黑名单中，建议标为已批准", "'{phrase}' was already listed; proposal marked approved"),
    "rejected": ("已拒绝：“{phrase}”", "Rejected: '{phrase}'"),
    "added": ("已加入黑名单：“{phrase}”（{tier}）", "Added to the blacklist: '{phrase}' ({tier})"),
    "empty": ("黑名单是空的", "The blacklist is empty"),
}


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    lang = help_lang()
    parser = subparsers.add_parser("blacklist", help=tr(MESSAGES, "help", lang), description=tr(MESSAGES, "help", lang))
    add_common_arguments(parser)
    actions = parser.add_subparsers(dest="action", metavar="{proposals,approve,reject,add,show}", required=True)

    listing = actions.add_parser("proposals", help=tr(MESSAGES, "proposals", lang))
    add_common_arguments(listing)
    listing.set_defaults(func=run_proposals)

    for name, func in (("approve", run_approve), ("reject", run_reject)):
        sub = actions.add_parser(name, help=tr(MESSAGES, name, lang))
        sub.add_argument("ids", metavar="N", type=int, nargs="+", help=tr(MESSAGES, "opt_ids", lang))
        add_common_arguments(sub)
        sub.set_defaults(func=func)

    add = actions.add_parser("add", help=tr(MESSAGES, "add", lang))
    add.add_argument("phrase", metavar="PHRASE", help=tr(MESSAGES, "opt_phrase", lang))
    add.add_argument("--limited", action="store_true", help=tr(MESSAGES, "opt_limited", lang))
    add.add_argument("--rate", type=float, default=None, help=tr(MESSAGES, "opt_rate", lang))
    add_common_arguments(add)
    add.set_defaults(func=run_add)

    show = actions.add_parser("show", help=tr(MESSAGES, "show", lang))
    add_common_arguments(show)
    show.set_defaults(func=run_show)


def _context(args: argparse.Namespace) -> tuple[ProjectPaths, Lang]:
    root = require_project(args)
    return ProjectPaths(root), resolve_lang(args, root)


def _line(p: BlacklistProposal, lang: Lang) -> str:
    chapters = "、".join(str(c) for c in p.chapters) if lang == "zh" else ", ".join(str(c) for c in p.chapters)
    text = tr(
        MESSAGES, "line", lang, id=p.id, phrase=p.phrase, tier=tr(MESSAGES, p.tier, lang), chapters=chapters,
        count=p.count, note=p.note,
    )
    return "\n".join([text.rstrip(), *(tr(MESSAGES, "example", lang, text=e) for e in p.examples)])


def run_proposals(args: argparse.Namespace) -> int:
    paths, lang = _context(args)
    pending = BlacklistProposals.load_or_default(paths.blacklist_proposals).pending()
    text = "\n".join([*(_line(p, lang) for p in pending), tr(MESSAGES, "hint", lang)]) if pending else tr(MESSAGES, "none", lang)
    emit(args, {"proposals": [p.model_dump(mode="json") for p in pending]}, text)
    return ExitCode.OK


def run_approve(args: argparse.Namespace) -> int:
    paths, lang = _context(args)
    decisions = approve(paths, args.ids, lang=lang)
    lines = [tr(MESSAGES, "approved" if d.added else "already", lang, phrase=d.proposal.phrase) for d in decisions]
    emit(args, {"approved": [d.proposal.id for d in decisions]}, "\n".join(lines))
    return ExitCode.OK


def run_reject(args: argparse.Namespace) -> int:
    paths, lang = _context(args)
    decisions = reject(paths, args.ids, lang=lang)
    lines = [tr(MESSAGES, "rejected", lang, phrase=d.proposal.phrase) for d in decisions]
    emit(args, {"rejected": [d.proposal.id for d in decisions]}, "\n".join(lines))
    return ExitCode.OK


def run_add(args: argparse.Namespace) -> int:
    paths, lang = _context(args)
    tier: Tier = "limited" if args.limited or args.rate is not None else "banned"
    add_entry(paths, args.phrase, tier=tier, rate=args.rate, lang=lang)
    phrase = args.phrase.strip()
    emit(args, {"added": phrase, "tier": tier}, tr(MESSAGES, "added", lang, phrase=phrase, tier=tr(MESSAGES, tier, lang)))
    return ExitCode.OK


def run_show(args: argparse.Namespace) -> int:
    paths, lang = _context(args)
    from pipeline.blacklist_prompt import (
        blacklist_rules,  # the one rendering of the prompts; loaded only here
    )
    from studio.config import load_settings

    blacklist = AiBlacklist.load_or_default(paths.ai_blacklist)
    min_chars = load_settings(paths.root).writing.chapter_min_chars
    text = blacklist_rules(blacklist, min_chars) or tr(MESSAGES, "empty", lang)
    data = {
        "entries": [
            {"word": e.word, "tier": e.tier, "rate": e.rate, "category": e.category} for e in blacklist.enforced()
        ]
    }
    emit(args, data, text)
    return ExitCode.OK
