"""`novel-studio`: the command-line entry point every subcommand shares.

Adding a command is one line in COMMAND_MODULES: a module exposing `register(subparsers)` (which adds a
subparser with `set_defaults(func=run)`) and `run(args) -> int`.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import traceback
from collections.abc import Sequence

from studio.cli.common import ExitCode, add_common_arguments, pre_scan_lang, resolve_lang, set_help_lang
from studio.errors import FormatError, StudioError
from studio.i18n import Catalog, Lang, tr

COMMAND_MODULES: list[str] = [
    "studio.cli.init_cmd",
    "studio.cli.status_cmd",
    "studio.cli.demo_cmd",
    "studio.cli.continue_cmd",
    "studio.cli.undo_cmd",
]

MESSAGES: Catalog = {
    "description": (
        "novel-studio：中文网文创作工作室（多智能体写作流水线）",
        "novel-studio: a terminal writing studio for Chinese web novels (multi-agent pipeline)",
    ),
    "commands": ("子命令", "commands"),
    "error": ("错误：{message}", "Error: {message}"),
    "problems": ("发现 {n} 个问题：", "{n} problems found:"),
    "interrupted": ("已中断，进度已保存，可继续", "Interrupted; work left resumable"),
    "crash": (
        "出错了（{kind}: {message}）。加 --debug 重新运行可查看详细信息",
        "Something went wrong ({kind}: {message}). Rerun with --debug for details",
    ),
    "no_tui": (
        "全屏工作室还没有做好；现在可以使用下面的子命令。\n"
        "The full-screen studio is not built yet; use the subcommands below for now.",
        "The full-screen studio is not built yet; use the subcommands below for now.\n"
        "全屏工作室还没有做好；现在可以使用下面的子命令。",
    ),
}


def _load_command(name: str) -> object | None:
    """Import a command module; a command not written yet is skipped (only that exact module missing)."""
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name == name:
            return None
        raise


def build_parser(lang: Lang) -> argparse.ArgumentParser:
    set_help_lang(lang)
    parser = argparse.ArgumentParser(prog="novel-studio", description=tr(MESSAGES, "description", lang))
    add_common_arguments(parser, top_level=True)
    subparsers = parser.add_subparsers(
        dest="command", metavar="COMMAND", title=tr(MESSAGES, "commands", lang)
    )
    for name in COMMAND_MODULES:
        module = _load_command(name)
        if module is not None:
            module.register(subparsers)  # type: ignore[attr-defined]
    for sub in subparsers.choices.values():
        add_common_arguments(sub)
    return parser


def open_studio(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """No subcommand: the hook where the full-screen studio (TUI) will open."""
    print(tr(MESSAGES, "no_tui", resolve_lang(args)))
    print()
    parser.print_help()
    return int(ExitCode.OK)


def _report_error(exc: StudioError, lang: Lang) -> None:
    if isinstance(exc, FormatError) and len(exc.problems) > 1:
        lines = [tr(MESSAGES, "error", lang, message=tr(MESSAGES, "problems", lang, n=len(exc.problems)))]
        lines.extend(f"  - {p}" for p in exc.problems)
        print("\n".join(lines), file=sys.stderr)
    else:
        print(tr(MESSAGES, "error", lang, message=str(exc)), file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; returns the exit status (the console script passes it to sys.exit)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    lang = pre_scan_lang(argv)
    debug = "--debug" in argv
    try:
        parser = build_parser(lang)
        try:
            args = parser.parse_args(argv)
        except SystemExit as exc:  # usage error (2) or --help (0)
            code = exc.code
            return code if isinstance(code, int) else (0 if code is None else int(ExitCode.USAGE))
        debug = bool(args.debug)
        lang = resolve_lang(args)
        args.lang = lang
        func = getattr(args, "func", None)
        if func is None:
            return open_studio(args, parser)
        return int(func(args))
    except KeyboardInterrupt:
        if debug:
            traceback.print_exc()
        print("\n" + tr(MESSAGES, "interrupted", lang), file=sys.stderr)
        return int(ExitCode.INTERRUPTED)
    except StudioError as exc:
        if debug:
            traceback.print_exc()
        _report_error(exc, lang)
        return int(exc.exit_code)
    except Exception as exc:
        if debug:
            traceback.print_exc()
        print(tr(MESSAGES, "crash", lang, kind=type(exc).__name__, message=exc), file=sys.stderr)
        return int(ExitCode.ERROR)


if __name__ == "__main__":
    sys.exit(main())
