"""`e`: open the selected chapter in the author's `$EDITOR`, the studio suspended meanwhile.

`launch_editor(app, path)` runs `EDITOR_RUNNER(app, argv)`; the default runner suspends the app
(`App.suspend()`) and runs the editor with `subprocess.run`. Where the terminal cannot be suspended (a browser
session through textual-serve, the headless test driver) Textual raises `SuspendNotSupported` and
`launch_editor` returns False, so the key can say so. Tests replace `EDITOR_RUNNER` (the test driver cannot
suspend).

`edit_chapter(host)` is the key's whole flow (`host`: `studio.tui.host.StudioHost`): pick the file (the
committed chapter, or the staged text of a paused in-flight chapter), run the editor, and if the bytes changed
call `host.chapter_edited(n, "editor")`: the pane refreshes and the rebuild is offered
(`studio.tui.watch_flow.EditsFlow.chapter_edited`).
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from textual.app import App, SuspendNotSupported

from studio.i18n import Catalog, Lang, tr
from studio.paths import ProjectPaths
from studio.tui.host import StudioHost

MESSAGES: Catalog = {
    "no_chapter": ("先在大纲里选一章", "Select a chapter in the outline first"),
    "no_text": ("第{n}章还没有正文可编辑", "Chapter {n} has no text to edit yet"),
    "busy": ("流水线正在运行，结束后再编辑", "The pipeline is running; edit when it stops"),
    "cannot_suspend": (
        "这个终端无法挂起（例如浏览器会话），不能在这里打开编辑器。请在别的窗口编辑：{path}",
        "This terminal cannot be suspended (e.g. a browser session), so the editor cannot open here. "
        "Edit it in another window: {path}",
    ),
    "editor_failed": ("无法启动编辑器 {editor}：{error}", "Could not start the editor {editor}: {error}"),
    "unchanged": ("第{n}章没有改动", "Chapter {n} was not changed"),
}

EditorRunner = Callable[[App[Any], list[str]], object]


class EditorError(Exception):
    """The editor program could not be started."""


def editor_command(env: Mapping[str, str] | None = None) -> list[str]:
    """`$VISUAL` or `$EDITOR` (shell-split, so `code -w` works), else `vi`, else `nano`."""
    env = os.environ if env is None else env
    for name in ("VISUAL", "EDITOR"):
        value = (env.get(name) or "").strip()
        if value:
            return shlex.split(value)
    for fallback in ("vi", "nano"):
        if shutil.which(fallback):
            return [fallback]
    return ["vi"]


def run_suspended(app: App[Any], argv: list[str]) -> int:
    """The default runner: suspend the app, run the editor in the real terminal, resume."""
    with app.suspend():
        return subprocess.run(argv, check=False).returncode


EDITOR_RUNNER: EditorRunner = run_suspended


def launch_editor(
    app: App[Any], path: Path, *, env: Mapping[str, str] | None = None, lang: Lang = "zh"
) -> bool:
    """Edit `path` in the author's editor. False when the terminal cannot be suspended; EditorError when the
    editor program cannot be started."""
    argv = [*editor_command(env), str(path)]
    try:
        EDITOR_RUNNER(app, argv)
    except SuspendNotSupported:
        return False
    except OSError as exc:  # FileNotFoundError: no such editor program
        raise EditorError(tr(MESSAGES, "editor_failed", lang, editor=argv[0], error=exc)) from exc
    return True


def chapter_file(paths: ProjectPaths, n: int) -> Path | None:
    """The file `e` opens for chapter `n`: the committed text, or the staged text of the in-flight chapter."""
    if paths.chapter(n).is_file():
        return paths.chapter(n)
    # imported here, not at the studio's start: the staging module loads the agents' types
    from pipeline.staging import ChapterStaging

    staged = ChapterStaging(paths, n).current
    return staged if staged.is_file() else None


def edit_chapter(host: StudioHost, app: App[Any]) -> bool:
    """The `e` key (`app` is suspended while the editor runs). True when the editor ran and changed the file."""
    lang = host.lang
    n = host.selected
    if n is None:
        host.notify(tr(MESSAGES, "no_chapter", lang), severity="warning")
        return False
    if host.running:
        host.notify(tr(MESSAGES, "busy", lang), severity="warning")
        return False
    path = chapter_file(host.project.paths, n)
    if path is None:
        host.notify(tr(MESSAGES, "no_text", lang, n=n), severity="warning")
        return False
    before = path.read_bytes()
    try:
        ran = launch_editor(app, path, lang=lang)
    except EditorError as exc:
        host.notify(str(exc), severity="error", timeout=10)
        return False
    if not ran:
        host.notify(tr(MESSAGES, "cannot_suspend", lang, path=path), severity="warning", timeout=10)
        return False
    try:
        after = path.read_bytes()
    except OSError:
        after = b""
    if after == before:
        host.notify(tr(MESSAGES, "unchanged", lang, n=n))
        return False
    host.chapter_edited(n, "editor")
    return True


__all__ = ["EDITOR_RUNNER", "MESSAGES", "EditorError", "edit_chapter", "editor_command", "launch_editor"]
