"""`novel-studio export OUT`: the committed chapters as TXT or Markdown, ready for a publishing platform."""

from __future__ import annotations

import argparse
from pathlib import Path

from studio.cli.common import ExitCode, add_common_arguments, emit, help_lang, require_project, resolve_lang
from studio.export import FORMATS, export_chapters
from studio.i18n import Catalog, chars_text, tr, tr_count

MESSAGES: Catalog = {
    "help": (
        "导出已提交的章节（TXT 按网文平台格式：第N章 标题、段首两个全角空格；或 Markdown）",
        "export the committed chapters (TXT in the web-novel platform convention, or Markdown)",
    ),
    "opt_out": ("输出文件（--split 时为文件夹）", "output file (a folder with --split)"),
    "opt_from": ("从第 N 章开始（默认第一章）", "first chapter (default: the first)"),
    "opt_to": ("到第 M 章结束（默认最后一章）", "last chapter (default: the last)"),
    "opt_format": ("格式：txt（默认）或 md", "format: txt (default) or md"),
    "opt_split": ("每章一个文件，OUT 为文件夹", "one file per chapter; OUT is a folder"),
    "done": (
        "已导出 {count} 章（第{first}–{last}章），共 {chars} → {out}",
        "Exported {count} chapters ({first}-{last}), {chars} -> {out}",
    ),
    "done_one": (
        "已导出 {count} 章（第{first}–{last}章），共 {chars} → {out}",
        "Exported chapter {first}, {chars} -> {out}",
    ),
}


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    lang = help_lang()
    parser = subparsers.add_parser("export", help=tr(MESSAGES, "help", lang), description=tr(MESSAGES, "help", lang))
    parser.add_argument("out", metavar="OUT", type=Path, help=tr(MESSAGES, "opt_out", lang))
    parser.add_argument("--from", dest="start", metavar="N", type=int, default=None, help=tr(MESSAGES, "opt_from", lang))
    parser.add_argument("--to", dest="end", metavar="M", type=int, default=None, help=tr(MESSAGES, "opt_to", lang))
    parser.add_argument(
        "--format", dest="fmt", choices=list(FORMATS), default="txt", help=tr(MESSAGES, "opt_format", lang)
    )
    parser.add_argument("--split", action="store_true", help=tr(MESSAGES, "opt_split", lang))
    add_common_arguments(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Export; a range without committed chapters is a StudioError (exit 1), a bad range or OUT exit 2."""
    root = require_project(args)
    lang = resolve_lang(args, root)
    out = Path(args.out).expanduser()
    result = export_chapters(root, out, start=args.start, end=args.end, fmt=args.fmt, split=args.split, lang=lang)
    numbers = [c.number for c in result.chapters]
    text = tr_count(
        MESSAGES,
        "done",
        lang,
        len(numbers),
        count=len(numbers),
        first=numbers[0],
        last=numbers[-1],
        chars=chars_text(result.total_chars, lang),
        out=result.out,
    )
    emit(args, result.to_data(), text)
    return int(ExitCode.OK)
