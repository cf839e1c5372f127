"""Child of tests/test_start_imports.py: the studio as `novel-studio --project DIR [--offline]` starts it on a real
terminal, writing to OUT (JSON) the modules loaded when it wrote its first frame of the main screen with the
outline filled (`modules`) and how many times each folder of the project was listed until then (`listings`:
`os.scandir`, `os.listdir` and `Path.iterdir` calls by absolute folder), then ending at once (`os._exit`: nothing
torn down, nothing else imported).

    python tests/start_imports_child.py OUT PROJECT [--offline]
"""

from __future__ import annotations

import json
import os
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual.app import App

out, root, extra = Path(sys.argv[1]), sys.argv[2], sys.argv[3:]
project = os.path.realpath(root)
listings: Counter[str] = Counter()


def counted(list_folder: Callable[..., Any]) -> Callable[..., Any]:
    def listing(folder: Any = ".", *args: Any) -> Any:
        path = "" if isinstance(folder, int) else os.path.realpath(os.fspath(folder))  # an fd: not a project folder
        if path == project or path.startswith(project + os.sep):
            listings[os.path.relpath(path, project)] += 1
        return list_folder(folder, *args)

    return listing


os.scandir = counted(os.scandir)
os.listdir = counted(os.listdir)
Path.iterdir = counted(Path.iterdir)  # type: ignore[method-assign]

display = App._display


def display_then_exit(self: App[object], screen: object, renderable: object) -> None:
    display(self, screen, renderable)  # type: ignore[arg-type]
    shown = self.screen
    main_screen = sys.modules.get("screens.main_screen")
    if renderable is not None and main_screen is not None and isinstance(shown, main_screen.MainScreen) \
            and shown.is_mounted and shown.outline.root.children:
        out.write_text(json.dumps({"modules": sorted(sys.modules), "listings": listings}), encoding="utf-8")
        os._exit(0)


App._display = display_then_exit  # type: ignore[method-assign,assignment]

from studio.cli.main import main  # noqa: E402  (after the patch: the CLI imports the App itself)

raise SystemExit(main(["--project", root, *extra]))
