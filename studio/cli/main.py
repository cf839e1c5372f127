"""`novel-studio`: the command-line entry point every subcommand shares.

Adding a command is one line in COMMAND_MODULES: a module `studio.cli.<name>_cmd` exposing
`register(subparsers)` (which adds the subparser `<name>` with `set_defaults(func=run)`) and `run(args) -> int`.
A command may also set `early(args) -> int | None`: called after parsing and before the language is resolved
from the settings (which builds their models); an int is the exit status and ends the command there (a repeat
`status` prints its memo, `studio.status_memo`), None goes on to `run`.

Commands load lazily: the command named on the command line is the only module imported (`status` stays a
light process: no SDK, no Textual, no tokenizer); `--help` without a command, an unknown word or a bare
`novel-studio` that has to print the help loads them all. The name of a command is its module's name
without `_cmd` (tests/test_cli_lazy.py holds every module to that).
"""

from __future__ import annotations

import argparse
import errno
import importlib
import json
import os
import signal
import sys
import traceback
from collections.abc import Sequence
from pathlib import Path

from studio.cli.common import (
    PIN_COMMANDS,
    ExitCode,
    StudioArgumentParser,
    add_common_arguments,
    pre_scan_lang,
    resolve_lang,
    set_help_lang,
)
from studio.errors import FormatError, StudioError
from studio.i18n import Catalog, Lang, tr

COMMAND_MODULES: list[str] = [
    "studio.cli.init_cmd",
    "studio.cli.status_cmd",
    "studio.cli.demo_cmd",
    "studio.cli.continue_cmd",
    "studio.cli.plan_cmd",
    "studio.cli.start_cmd",
    "studio.cli.review_cmd",
    "studio.cli.undo_cmd",
    "studio.cli.rebuild_cmd",
    "studio.cli.repair_cmd",
    "studio.cli.export_cmd",
    "studio.cli.serve_cmd",
    "studio.cli.check_cmd",
    "studio.cli.prompt_cmd",
    "studio.cli.prompts_cmd",
    "studio.cli.character_cmd",
    "studio.cli.world_cmd",
    "studio.cli.import_cmd",
    "studio.cli.extract_cmd",
    "studio.cli.blacklist_cmd",
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
    "disk_full": (
        "磁盘空间不足，写入 {path} 失败（{message}）。已写好的文件都完好无损；腾出空间后重新运行即可继续",
        "The disk is full: writing {path} failed ({message}). Files already written are intact; free some "
        "space and run the command again to continue",
    ),
    "disk_full_in": (
        "磁盘空间不足，写入项目文件夹 {path} 中的文件失败（{message}）。已写好的文件都完好无损；腾出空间后重新运行即可继续",
        "The disk is full: writing a file in the project folder {path} failed ({message}). Files already "
        "written are intact; free some space and run the command again to continue",
    ),
    "os_error": ("文件操作失败：{path}（{message}）", "A file operation failed: {path} ({message})"),
    "crash": (
        "出错了（{kind}: {message}）。加 --debug 重新运行可查看详细信息",
        "Something went wrong ({kind}: {message}). Rerun with --debug for details",
    ),
    "no_project_here": (
        "当前文件夹不是小说项目。用 --project DIR 打开项目，novel-studio init DIR 新建，"
        "或 novel-studio demo 打开示例小说。",
        "This folder is not a novel project. Open one with --project DIR, create one with "
        "novel-studio init DIR, or try the sample with novel-studio demo.",
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


def command_name(module: str) -> str:
    """`studio.cli.status_cmd` -> `status`."""
    return module.rsplit(".", 1)[-1].removesuffix("_cmd")


def requested_command(argv: Sequence[str], value_options: set[str]) -> str | None:
    """The command the command line names; "" for none; None when every command must be loaded (help
    without a command, or a word that is no command: argparse then lists them all). Top-level options that
    take a value (`--project DIR`) are skipped with their value."""
    names = {command_name(module) for module in COMMAND_MODULES}
    skip = False
    for token in argv:
        if skip:
            skip = False
            continue
        if token == "--":
            return None
        if token.startswith("-"):
            skip = token in value_options
            continue
        return token if token in names else None
    return None if ("-h" in argv or "--help" in argv) else ""


def _top_parser(lang: Lang) -> argparse.ArgumentParser:
    parser = StudioArgumentParser(prog="novel-studio", description=tr(MESSAGES, "description", lang))
    add_common_arguments(parser, top_level=True)  # --offline included: one flag, before or after the command
    return parser


def build_parser(lang: Lang, argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The parser; with `argv`, only the command it names is loaded (see the module rules)."""
    set_help_lang(lang)
    parser = _top_parser(lang)
    wanted: str | None = None
    if argv is not None:
        value_options = {opt for action in parser._actions if action.nargs != 0 for opt in action.option_strings}
        wanted = requested_command(argv, value_options)
    subparsers = parser.add_subparsers(
        dest="command", metavar="COMMAND", title=tr(MESSAGES, "commands", lang)
    )
    for name in COMMAND_MODULES:
        if wanted is not None and command_name(name) != wanted:
            continue
        module = _load_command(name)
        if module is not None:
            module.register(subparsers)  # type: ignore[attr-defined]
    for sub in subparsers.choices.values():
        add_common_arguments(sub)
    return parser


def open_studio(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """No subcommand: open the full-screen studio on the project (--project, else the current folder)."""
    from studio.cli.common import looks_like_project, project_root, require_project

    lang = resolve_lang(args)
    if getattr(args, "project", None) is None and not looks_like_project(project_root(args)):
        if sys.stdin.isatty() and sys.stdout.isatty():
            # A terminal: the welcome screen offers to create a project here or open the sample.
            return launch_studio(
                project_root(args), lang=lang, offline=bool(getattr(args, "offline", False)), welcome=True
            )
        # Not a terminal: say how to start.
        print(tr(MESSAGES, "no_project_here", lang))
        print()
        build_parser(lang).print_help()  # every command listed (the parser given loaded none)
        return int(ExitCode.OK)
    root = require_project(args)  # a named folder that is not a project: the clear error (exit 1)
    return launch_studio(root, lang=resolve_lang(args, root), offline=bool(getattr(args, "offline", False)))


def terminal_refusal(lang: Lang) -> str | None:
    """Why the studio cannot run on this process's standard input (a file, /dev/null, a closed fd: Textual's
    terminal driver would read no keys and spin at its end; `studio.tui.hangup.input_refusal`), or None. Asked
    before Textual and the App are imported: a refused start costs nothing. A driver named by TEXTUAL_DRIVER
    (`serve`'s browser sessions) reads no terminal: never refused here."""
    if os.environ.get("TEXTUAL_DRIVER") or os.name != "posix":
        return None
    from studio.tui.hangup import input_refusal, stdin_fd  # no Textual here (the hang-up watch imports it)

    return input_refusal(stdin_fd(), lang)


def launch_studio(root: Path, *, lang: Lang, offline: bool, welcome: bool = False) -> int:
    """Run the studio app until it quits (imports Textual only here, so the other commands stay light).
    `welcome`: no project at `root` yet; the app first offers to create one or open the sample. A standard
    input that gives no keys is refused first (`terminal_refusal`): a message on stderr, exit 1."""
    refusal = terminal_refusal(lang)
    if refusal is not None:
        print(refusal, file=sys.stderr)
        return int(ExitCode.ERROR)
    from studio.tui.heap import collections_paused

    with collections_paused():  # no garbage collections before the first paint: studio.tui.heap
        from studio.tui.app import NovelStudioApp

        app = NovelStudioApp(root, lang=lang, offline=offline, welcome=welcome)
        app.run()
    # The app has quit; the interpreter now waits for worker threads (a commit finishing). A late SIGINT (a
    # second Ctrl+C, `serve` ending a closed tab's session) would raise KeyboardInterrupt inside threading's
    # shutdown and print a traceback: nothing is left to stop politely, so it is ignored (SIGTERM still ends us).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # A stuck thread cannot keep an interrupted studio alive (never armed in a headless app: a test's process).
    if app.return_code == int(ExitCode.INTERRUPTED) and not app.is_headless:
        from studio.exit_watchdog import bound_the_exit

        bound_the_exit(app.project_root, int(ExitCode.INTERRUPTED))
    # SIGINT/SIGTERM: the run was stopped resumably (130). An unhandled exception ends the app with
    # return_code 1 (Textual printed the traceback): not a success.
    if app.return_code == int(ExitCode.INTERRUPTED):
        return int(ExitCode.INTERRUPTED)
    if app.open_error is not None or (app.return_code or 0) != 0:
        return int(ExitCode.ERROR)
    return int(ExitCode.OK)


def _error_text(exc: StudioError, lang: Lang) -> str:
    if isinstance(exc, FormatError) and len(exc.problems) > 1:
        lines = [tr(MESSAGES, "error", lang, message=tr(MESSAGES, "problems", lang, n=len(exc.problems)))]
        lines.extend(f"  - {p.describe(lang)}" for p in exc.problems)
        return "\n".join(lines)
    return tr(MESSAGES, "error", lang, message=exc.text(lang))


def _report(text: str, *, as_json: bool, exit_code: int, kind: str, problems: list[str] | None = None) -> int:
    """Print an error: on stderr, or with --json as `{"error": ...}` on stdout (scripts read one stream)."""
    if as_json:
        data: dict[str, object] = {"error": text, "kind": kind, "exit_code": exit_code}
        if problems:
            data["problems"] = problems
        print(json.dumps(data, ensure_ascii=False, indent=2))
    else:
        print(text, file=sys.stderr)
    return exit_code


def _os_error_path(exc: OSError, args: argparse.Namespace | None) -> tuple[str, bool]:
    """The file an OSError names, else (a write to an open file names none) the project folder; and
    whether it is the file itself."""
    for name in (exc.filename, exc.filename2):
        if name:
            return os.fsdecode(name), True
    root = getattr(args, "project", None) if args is not None else None
    return str(Path(root).expanduser() if root else Path.cwd()), False


# Commands with an `early` answer whose parsing prints nothing in the author's language but help (no argument
# type checks with messages): for them the settings are not read before parsing (see `_may_print_help`).
EARLY_COMMANDS = frozenset({"status"})


def _may_print_help(argv: Sequence[str]) -> bool:
    """Whether parsing this command line may print texts in the author's language (help, or an argument's
    check): unless it names one of EARLY_COMMANDS without asking for help. Only then is the language read
    from the settings before parsing (it builds the settings' models; the command resolves the language
    itself, after `early`)."""
    return "-h" in argv or "--help" in argv or not any(item in EARLY_COMMANDS for item in argv)


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; returns the exit status (the console script passes it to sys.exit)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    lang = pre_scan_lang(argv, settings=_may_print_help(argv))
    debug = "--debug" in argv
    as_json = "--json" in argv
    args: argparse.Namespace | None = None
    try:
        parser = build_parser(lang, argv)
        try:
            args = parser.parse_args(argv)
        except SystemExit as exc:  # usage error (2) or --help (0)
            code = exc.code
            return code if isinstance(code, int) else (0 if code is None else int(ExitCode.USAGE))
        debug = bool(args.debug)
        as_json = bool(getattr(args, "json", False))
        early = getattr(args, "early", None)
        if early is not None:  # a command's answer that needs no settings (a repeat `status`: its memo)
            code = early(args)
            if code is not None:
                return int(code)
        lang = resolve_lang(args)
        args.lang = lang
        func = getattr(args, "func", None)
        if func is None:
            return open_studio(args, parser)
        if getattr(args, "command", None) in PIN_COMMANDS:
            from studio.cli.prompts_cmd import (
                pin_before_run,  # a project without prompt pins: pinned, said once
            )

            pin_before_run(args)
        return int(func(args))
    except KeyboardInterrupt:
        if debug:
            traceback.print_exc()
        if as_json:
            return _report(tr(MESSAGES, "interrupted", lang), as_json=True, exit_code=int(ExitCode.INTERRUPTED),
                           kind="interrupted")
        print("\n" + tr(MESSAGES, "interrupted", lang), file=sys.stderr)
        return int(ExitCode.INTERRUPTED)
    except StudioError as exc:
        if debug:
            traceback.print_exc()
        problems = [p.describe(lang) for p in exc.problems] if isinstance(exc, FormatError) else None
        return _report(_error_text(exc, lang), as_json=as_json, exit_code=int(exc.exit_code),
                       kind=str(getattr(exc, "kind", type(exc).__name__)), problems=problems)
    except BrokenPipeError:
        # `novel-studio status | head`: the reader went away; that is not an error worth a message.
        _silence_stdout()
        return int(ExitCode.OK)
    except OSError as exc:
        if debug:
            traceback.print_exc()
        path, named = _os_error_path(exc, args)
        key = "os_error"
        if exc.errno in (errno.ENOSPC, errno.EDQUOT):
            key = "disk_full" if named else "disk_full_in"
        text = tr(MESSAGES, key, lang, path=path, message=exc.strerror or exc)
        return _report(text, as_json=as_json, exit_code=int(ExitCode.ERROR), kind=key)
    except Exception as exc:
        if debug:
            traceback.print_exc()
        text = tr(MESSAGES, "crash", lang, kind=type(exc).__name__, message=exc)
        return _report(text, as_json=as_json, exit_code=int(ExitCode.ERROR), kind="crash")


def _silence_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush does not raise again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass


if __name__ == "__main__":
    sys.exit(main())
