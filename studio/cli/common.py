"""What every subcommand shares: exit statuses, common flags, language, output, pausing for the author."""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import unicodedata
from collections.abc import Collection, Mapping, Sequence
from enum import IntEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from studio.errors import PausedForAuthor, ProjectNotFoundError, StudioError
from studio.i18n import DEFAULT_LANG, Catalog, Lang, normalize_lang, tr

if TYPE_CHECKING:
    from studio.lock import ProjectLock
    from studio.paths import ProjectPaths

# Commands that build prompts: before them a project without pins is pinned and told so once (`prompts_cmd`,
# imported only for these). `rebuild` is not one of them: a refused rebuild must change nothing; it pins and
# says so itself once the author has agreed (`rebuild_cmd.pinned_prompts_notes`).
PIN_COMMANDS = frozenset({"continue", "plan", "start", "review", "character", "world", "import", "extract"})


class ExitCode(IntEnum):
    OK = 0
    ERROR = 1
    USAGE = 2
    PAUSED = 3
    LOCKED = 4
    INTERRUPTED = 130


MESSAGES: Catalog = {
    "opt_project": ("项目文件夹（默认：当前文件夹）", "project folder (default: the current folder)"),
    "opt_lang": ("界面语言：zh 或 en", "interface language: zh or en"),
    "opt_debug": ("出错时显示完整的调用栈", "show full tracebacks on errors"),
    "opt_json": ("以 JSON 输出结果（供脚本使用）", "print the result as JSON (for scripts)"),
    "opt_offline": ("使用离线模型（不联网，不花钱）", "use the offline provider (no network, no cost)"),
    "not_project": (
        "{path} 不是 novel-studio 项目（没有 novel-studio.toml 或 .checkpoint.json）；"
        "用 novel-studio init {path} 新建，或用 --project 指定项目文件夹",
        "{path} is not a novel-studio project (no novel-studio.toml or .checkpoint.json); "
        "create one with `novel-studio init {path}` or point --project at one",
    ),
    "paused": (
        "需要作者回答，但当前不是交互终端，已暂停（可继续）：{question}",
        "Paused: this needs an answer from the author and stdin is not a terminal: {question}",
    ),
    "choices": ("可选：{choices}", "choices: {choices}"),
    # argparse's own words, in the help language too (`StudioArgumentParser`)
    "usage": ("用法：", "usage: "),
    "positionals": ("参数", "positional arguments"),
    "options": ("选项", "options"),
    "opt_help": ("显示本帮助并退出", "show this help message and exit"),
    "parse_error": ("{prog}：错误：{message}", "{prog}: error: {message}"),
    "bad_choice": ("请输入以下之一：{choices}", "please answer one of: {choices}"),
}

_COMMON_FLAGS = ("--project", "--lang", "--debug", "--json", "--offline")
_help_lang: Lang = DEFAULT_LANG


def set_help_lang(lang: Lang) -> None:
    """Called by main() before commands register, so their help texts can follow the language."""
    global _help_lang
    _help_lang = lang


# argparse's own error messages in Chinese (the wording of Python 3.11 to 3.13: 3.12 dropped the quotes around
# the choices); anything else is shown as argparse says it. A value's expected type by its Chinese name.
_TYPE_ZH = {"int": "整数", "float": "数字", "str": "文字", "Path": "路径"}
_ARGPARSE_ZH: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"^argument (.+?): (.*)$"), r"参数 \1：\2"),
    (re.compile(r"invalid choice: (.+) \(choose from (.+)\)$"), r"无效的选项 \1（可选：\2）"),
    (re.compile(r"invalid (\w+) value: (.+)$"), r"无效的值 \2（应为\1）"),
    (re.compile(r"^unrecognized arguments: (.+)$"), r"无法识别的参数：\1"),
    (re.compile(r"^the following arguments are required: (.+)$"), r"缺少参数：\1"),
    (re.compile(r"^one of the arguments (.+) is required$"), r"以下参数须给出一个：\1"),
    (re.compile(r"expected one argument$"), "需要一个值"),
    (re.compile(r"expected at most one argument$"), "最多一个值"),
    (re.compile(r"expected at least one argument$"), "至少需要一个值"),
    (re.compile(r"expected (\d+) arguments?$"), r"需要 \1 个值"),
    (re.compile(r"ignored explicit argument (.+)$"), r"不接受值 \1"),
    (re.compile(r"^ambiguous option: (\S+) could match (.+)$"), r"选项 \1 不明确，可能是：\2"),
    (re.compile(r"not allowed with argument (.+)$"), r"不能与参数 \1 同时使用"),
)
_TYPE_NAME = re.compile(r"（应为(\w+)）$")


def argparse_message(message: str, lang: Lang) -> str:
    """An argparse error message in `lang` (the known ones; others as they are)."""
    if lang != "zh":
        return message
    for pattern, replacement in _ARGPARSE_ZH:
        message = pattern.sub(replacement, message)
    return _TYPE_NAME.sub(lambda m: f"（应为{_TYPE_ZH.get(m.group(1), m.group(1))}）", message)


def _cells(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


_TOKENS = re.compile(r"[^\s\u2e80-\u9fff\u3000-\u303f\uff00-\uffef]+|\s+|.")
_NO_LINE_START = frozenset("，。、；：？！）」』”》…")
_NO_LINE_END = frozenset("（「『“《")


def wrap_cells(text: str, width: int) -> list[str]:
    """`text` in lines of at most `width` terminal cells: Chinese may break between any two characters, a run of
    Latin letters, digits and ASCII punctuation never; a closing mark never starts a line (it may overhang), an
    opening mark never ends one."""
    lines: list[str] = []
    line = ""
    for token in _TOKENS.findall(" ".join(text.split())):
        if token.isspace():
            line += " " if line else ""
            continue
        if line.strip() and _cells(line + token) > width and token[0] not in _NO_LINE_START:
            carried = ""
            while line and line[-1] in _NO_LINE_END:  # an opening mark goes down with what it opens
                carried, line = line[-1] + carried, line[:-1]
            if line.strip():
                lines.append(line.rstrip())
            line = line + carried + token if not line.strip() else carried + token
        else:
            line += token
    if line.strip():
        lines.append(line.rstrip())
    return lines


class StudioHelpFormatter(argparse.HelpFormatter):
    """The usage line's prefix in the help language (`用法：`); help texts with Chinese wrapped by terminal cells
    (argparse counts characters and breaks only at spaces, so a Chinese line ran twice as wide as the terminal)."""

    def _split_lines(self, text: str, width: int) -> list[str]:
        if _cells(text) == len(text):
            return super()._split_lines(text, width)
        return wrap_cells(text, width)

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if _cells(text) == len(text):
            return super()._fill_text(text, width, indent)
        return "\n".join(indent + line for line in wrap_cells(text, width - len(indent)))

    def add_usage(self, usage: str | None, actions: Any, groups: Any, prefix: str | None = None) -> None:
        super().add_usage(usage, actions, groups, tr(MESSAGES, "usage", _help_lang) if prefix is None else prefix)

    def _format_usage(self, usage: str | None, actions: Any, groups: Any, prefix: str | None) -> str:
        """argparse measures the prefix in characters; `用法：` is wider on screen than it is long: the usage is
        laid out for a width narrower by the difference and its continuation lines are indented by it."""
        extra = _cells(prefix or "") - len(prefix or "")
        if extra <= 0:
            return super()._format_usage(usage, actions, groups, prefix)
        self._width -= extra
        try:
            text = super()._format_usage(usage, actions, groups, prefix)
        finally:
            self._width += extra
        lines = text.split("\n")
        return "\n".join([lines[0], *(" " * extra + line if line.startswith(" ") else line for line in lines[1:])])


class StudioArgumentParser(argparse.ArgumentParser):
    """argparse in the help language of the moment (`set_help_lang`): the usage prefix, the argument groups'
    titles, `-h` and the error line, in Chinese by default as the commands' own help texts are. Subcommands made
    with `add_parser` are of this class too. A Chinese group title ends with a full-width colon."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        add_help = kwargs.pop("add_help", True)
        kwargs.setdefault("formatter_class", StudioHelpFormatter)
        kwargs["add_help"] = False  # its own -h below, with a help text in the help language
        super().__init__(*args, **kwargs)
        self.lang: Lang = _help_lang
        self._positionals.title = tr(MESSAGES, "positionals", self.lang)
        self._optionals.title = tr(MESSAGES, "options", self.lang)
        if add_help:
            self.add_argument(
                "-h", "--help", action="help", default=argparse.SUPPRESS, help=tr(MESSAGES, "opt_help", self.lang)
            )

    def format_help(self) -> str:
        text = super().format_help()
        if self.lang != "zh":
            return text
        titles = {group.title for group in self._action_groups if group.title}
        return "\n".join(f"{line[:-1]}：" if line[:-1] in titles else line for line in text.split("\n"))

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        message = argparse_message(message, self.lang)
        self.exit(2, tr(MESSAGES, "parse_error", self.lang, prog=self.prog, message=message) + "\n")


def help_lang() -> Lang:
    return _help_lang


def add_common_arguments(parser: argparse.ArgumentParser, *, top_level: bool = False) -> None:
    """Add --project, --lang, --debug, --json, --offline (any of them the parser lacks).

    On subcommands the defaults are SUPPRESS so a flag given before the subcommand is not reset by the
    subparser (`novel-studio --lang en status` and `novel-studio status --lang en` both work, and
    `novel-studio --offline continue` stays offline).
    """
    lang = _help_lang
    present = set(parser._option_string_actions)  # noqa: SLF001 - argparse offers no public way to ask
    default: Any = None if top_level else argparse.SUPPRESS
    flag_default: Any = False if top_level else argparse.SUPPRESS
    if "--project" not in present:
        parser.add_argument(
            "--project", metavar="DIR", type=Path, default=default, help=tr(MESSAGES, "opt_project", lang)
        )
    if "--lang" not in present:
        parser.add_argument(
            "--lang", choices=["zh", "en"], default=default, help=tr(MESSAGES, "opt_lang", lang)
        )
    if "--debug" not in present:
        parser.add_argument(
            "--debug", action="store_true", default=flag_default, help=tr(MESSAGES, "opt_debug", lang)
        )
    if "--json" not in present:
        parser.add_argument(
            "--json", action="store_true", default=flag_default, help=tr(MESSAGES, "opt_json", lang)
        )
    if "--offline" not in present:
        parser.add_argument(
            "--offline", action="store_true", default=flag_default, help=tr(MESSAGES, "opt_offline", lang)
        )


def project_root(args: argparse.Namespace) -> Path:
    """The project folder of a command: --project, else the current folder."""
    given = getattr(args, "project", None)
    return Path(given).expanduser() if given else Path.cwd()


def looks_like_project(root: Path) -> bool:
    """A folder holding novel-studio.toml, .checkpoint.json, or chapters already written."""
    root = Path(root)
    if (root / "novel-studio.toml").is_file() or (root / ".checkpoint.json").is_file():
        return True
    chapters = root / "chapters"
    return chapters.is_dir() and any(chapters.iterdir())


def require_project(args: argparse.Namespace) -> Path:
    """The project folder, or ProjectNotFoundError (reported without a traceback, exit 1)."""
    root = project_root(args)
    lang = resolve_lang(args)
    if not root.is_dir():
        # the one wording of a missing folder, `status`'s too (`Project.open`); loaded on this path only
        from studio.project import MESSAGES as PROJECT_MESSAGES

        raise ProjectNotFoundError(tr(PROJECT_MESSAGES, "not_dir", lang, dir=root))
    if not looks_like_project(root):
        raise ProjectNotFoundError(tr(MESSAGES, "not_project", lang, path=root))
    return root


def resolve_lang(
    args: argparse.Namespace | None = None,
    project: Path | None = None,
    *,
    env: Mapping[str, str] | None = None,
) -> Lang:
    """--lang > NOVEL_STUDIO_LANG > settings (project, then user file) > zh. A broken settings file is
    ignored here: the command that reads settings reports it properly."""
    given = normalize_lang(getattr(args, "lang", None)) if args is not None else None
    if given:
        return given
    env = os.environ if env is None else env
    from_env = normalize_lang(env.get("NOVEL_STUDIO_LANG"))
    if from_env:
        return from_env
    if project is None and args is not None:
        project = project_root(args)
    from studio.config import load_settings  # local: keep `--help` fast and the import graph flat

    try:
        return load_settings(project, env=env).ui.lang
    except (StudioError, OSError):
        return DEFAULT_LANG


def pre_scan_lang(argv: Sequence[str], env: Mapping[str, str] | None = None, *, settings: bool = True) -> Lang:
    """The language for help texts, before argparse runs: --lang in argv, else the usual resolution
    (`settings=False`: --lang, NOVEL_STUDIO_LANG or the default, no settings file read: for a command line
    that prints no help texts)."""
    project: Path | None = None
    lang: Lang | None = None
    items = list(argv)
    for i, item in enumerate(items):
        value: str | None = None
        if item.startswith("--lang="):
            value = item.split("=", 1)[1]
        elif item == "--lang" and i + 1 < len(items):
            value = items[i + 1]
        if value is not None:
            lang = normalize_lang(value) or lang
        if item.startswith("--project="):
            project = Path(item.split("=", 1)[1])
        elif item == "--project" and i + 1 < len(items):
            project = Path(items[i + 1])
    if lang:
        return lang
    if not settings:
        return normalize_lang((os.environ if env is None else env).get("NOVEL_STUDIO_LANG")) or DEFAULT_LANG
    return resolve_lang(None, project or Path.cwd(), env=env)


def emit(args: argparse.Namespace, data: Mapping[str, Any], text: str) -> None:
    """Print the result: JSON (UTF-8, keys in the order given) with --json, else the text."""
    if getattr(args, "json", False):
        print(json.dumps(data, ensure_ascii=False, indent=2, default=str))
    else:
        print(text)


def is_interactive() -> bool:
    """True when a person can answer a question: stdin is a terminal."""
    try:
        return sys.stdin is not None and sys.stdin.isatty()
    except (ValueError, OSError):
        return False


def ask_or_pause(
    args: argparse.Namespace,
    question: str,
    *,
    choices: Sequence[str] | None = None,
    default: str | None = None,
) -> str:
    """Ask the author on the terminal; without a terminal (or with --json) raise PausedForAuthor (exit 3)."""
    lang = resolve_lang(args)
    if not is_interactive() or getattr(args, "json", False):
        raise PausedForAuthor(tr(MESSAGES, "paused", lang, question=question))
    prompt = question
    if choices:
        prompt += " [" + "/".join(choices) + "]"
    if default is not None:
        prompt += f" ({default})"
    while True:
        answer = input(prompt + " ").strip()
        if not answer and default is not None:
            return default
        if not choices or answer in choices:
            return answer
        print(tr(MESSAGES, "bad_choice", lang, choices=", ".join(choices)))


def take_project_lock(args: argparse.Namespace, lock: ProjectLock, lang: Lang, question: str, cancelled: str) -> bool:
    """Take the project lock for a command that writes. A live holder raises LockBusyError (exit 4); a stale
    one is taken over after asking `question` (below the lock's description; `--yes` takes it without asking).
    False: the author said no; `cancelled` was printed and nothing changed (the caller exits 4)."""
    # local: studio.lock builds a model at import, and most commands never lock
    from studio.lock import StaleLockError

    try:
        lock.acquire()
    except StaleLockError as exc:
        if not getattr(args, "yes", False):
            answer = ask_or_pause(args, exc.status.describe(lang) + "\n" + question, choices=["y", "n"], default="n")
            if answer != "y":
                print(cancelled)
                return False
        lock.acquire(take_over_stale=True)
    return True


def cold_start_refused(paths: ProjectPaths, lang: Lang, *, allowed: Collection[str] = ()) -> tuple[list[str], str]:
    """The cold-start refusals a command does not resolve itself (`allowed`: the keys it does): their keys, and
    their descriptions as "- " lines for the command's own "refused" message. No keys: go on."""
    from studio.coldstart import (  # local: `status` imports this module and needs none
        check_cold_start,
        refusals,
    )

    refused = [f for f in refusals(check_cold_start(paths)) if f.key not in allowed]
    return [f.key for f in refused], "\n".join(f"- {f.describe(lang)}" for f in refused)


class JsonOut:
    """A command's output: text lines on stdout (errors on stderr), or with `--json` nothing until the one JSON
    object at the end (`finish`), which carries `data` (filled on the way) and the exit code."""

    def __init__(self, json_mode: bool) -> None:
        self.json_mode = json_mode
        self.data: dict[str, Any] = {"event": "result"}

    def say(self, text: str) -> None:
        if not self.json_mode:
            print(text)

    def err(self, text: str) -> None:
        if not self.json_mode:
            print(text, file=sys.stderr)

    def finish(self, code: int, **data: Any) -> int:
        self.data.update(data, exit_code=code)
        if self.json_mode:
            print(json.dumps(self.data, ensure_ascii=False, indent=2, default=str))
        return code
