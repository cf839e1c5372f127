"""The steps shared by the commands that change the project once the author agrees (`repair`, `undo`,
`check --fix-punctuation`): one home for them.

- `yes_command(subparsers, name, messages)`: the subparser with its help (`messages["help"]`) and `--yes`
  (`messages["opt_yes"]`); the caller adds its own options, the common ones and `set_defaults`
  (`register_yes_command` does all of it for a command with no other option).
- `locked_project(args, messages)`: the project, the author's language and its lock, with the command's own
  `messages["stale"]` / `messages["cancelled"]`; yields None when the author would not take over a stale lock.
- `locked(args, paths, lang, stale=..., cancelled=...)`: the project lock for the block (no heartbeat: these
  commands are short), released whatever happens. A live holder raises `LockBusyError` (exit 4); a stale one is
  taken over after the `stale` question (`--yes` takes it without asking); the author's no yields False with
  `cancelled` printed, and nothing has changed.
- `confirmed(args, question, cancelled)`: True with `--yes`; else the author's answer (no terminal: paused,
  exit 3); a no prints `cancelled`.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from studio.cli.common import (
    add_common_arguments,
    ask_or_pause,
    help_lang,
    require_project,
    resolve_lang,
    take_project_lock,
)
from studio.i18n import Catalog, Lang, tr
from studio.lock import ProjectLock
from studio.paths import ProjectPaths


def yes_command(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser], name: str, messages: Catalog
) -> argparse.ArgumentParser:
    lang = help_lang()
    parser = subparsers.add_parser(name, help=tr(messages, "help", lang), description=tr(messages, "help", lang))
    parser.add_argument("--yes", "-y", action="store_true", help=tr(messages, "opt_yes", lang))
    return parser


def register_yes_command(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
    name: str,
    messages: Catalog,
    run: Callable[[argparse.Namespace], int],
) -> None:
    parser = yes_command(subparsers, name, messages)
    add_common_arguments(parser)
    parser.set_defaults(func=run)


@contextmanager
def locked_project(args: argparse.Namespace, messages: Catalog) -> Iterator[tuple[ProjectPaths, Lang] | None]:
    root = require_project(args)
    lang = resolve_lang(args, root)
    paths = ProjectPaths(root)
    stale, cancelled = tr(messages, "stale", lang), tr(messages, "cancelled", lang)
    with locked(args, paths, lang, stale=stale, cancelled=cancelled) as ok:
        yield (paths, lang) if ok else None


@contextmanager
def locked(args: argparse.Namespace, paths: ProjectPaths, lang: Lang, *, stale: str, cancelled: str) -> Iterator[bool]:
    lock = ProjectLock(paths, heartbeat_interval=0)
    if not take_project_lock(args, lock, lang, stale, cancelled):
        yield False
        return
    try:
        yield True
    finally:
        lock.release()


def confirmed(args: argparse.Namespace, question: str, cancelled: str) -> bool:
    if getattr(args, "yes", False):
        return True
    if ask_or_pause(args, question, choices=["y", "n"], default="n") == "y":
        return True
    print(cancelled)
    return False
