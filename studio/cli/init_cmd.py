"""`novel-studio init [DIR] [--sample] [--title T]`: create a new novel project."""

from __future__ import annotations

import argparse
from pathlib import Path

from studio.cli.common import emit, help_lang, project_root, resolve_lang
from studio.i18n import Catalog, tr
from studio.init_project import init_project

MESSAGES: Catalog = {
    "help": ("新建小说项目", "create a new novel project"),
    "opt_dir": (
        "项目文件夹（默认：--project 或当前文件夹）",
        "project folder (default: --project or the current folder)",
    ),
    "opt_sample": ("附带示例小说（可离线浏览）", "include the bundled sample novel (explorable offline)"),
    "opt_title": ("书名", "title of the novel"),
    "created": ("已创建小说项目：{path}", "Created a novel project in {path}"),
    "next": (
        "下一步：\n"
        "  1. 编辑 {brief}，写下题材、卖点、主角等创作纲领\n"
        "  2. 把 API 密钥放进环境变量 ANTHROPIC_API_KEY（设置见 novel-studio.toml）\n"
        "  3. 运行 novel-studio status --project {path} 查看项目状态",
        "Next:\n"
        "  1. Edit {brief}: genre, selling points, protagonist ...\n"
        "  2. Put your API key in the ANTHROPIC_API_KEY environment variable (settings: novel-studio.toml)\n"
        "  3. Run `novel-studio status --project {path}` to see the project",
    ),
}


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    lang = help_lang()
    parser = subparsers.add_parser(
        "init", help=tr(MESSAGES, "help", lang), description=tr(MESSAGES, "help", lang)
    )
    parser.add_argument("dir", nargs="?", type=Path, metavar="DIR", help=tr(MESSAGES, "opt_dir", lang))
    parser.add_argument("--sample", action="store_true", help=tr(MESSAGES, "opt_sample", lang))
    parser.add_argument("--title", metavar="T", help=tr(MESSAGES, "opt_title", lang))
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    target: Path = args.dir if args.dir is not None else project_root(args)
    root = init_project(target, sample=args.sample, title=args.title)
    lang = resolve_lang(args, root)
    data = {"project": str(root.resolve()), "sample": bool(args.sample), "title": args.title or ""}
    text = (
        tr(MESSAGES, "created", lang, path=root)
        + "\n"
        + tr(MESSAGES, "next", lang, brief=root / "brief.md", path=root)
    )
    emit(args, data, text)
    return 0
