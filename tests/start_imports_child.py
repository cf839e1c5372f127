"""Child of tests/test_start_imports.py: the studio as `novel-studio --project DIR [--offline]` starts it on a real
terminal, writing to OUT (JSON) the modules loaded when it wrote its first frame of the main screen with the
outline filled, then ending at once (`os._exit`: nothing torn down, nothing else imported).

    python tests/start_imports_child.py OUT PROJECT [--offline]
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from textual.app import App

out, root, extra = Path(sys.argv[1]), sys.argv[2], sys.argv[3:]
display = App._display


def display_then_exit(self: App[object], screen: object, renderable: object) -> None:
    display(self, screen, renderable)  # type: ignore[arg-type]
    shown = self.screen
    main_screen = sys.modules.get("screens.main_screen")
    if renderable is not None and main_screen is not None and isinstance(shown, main_screen.MainScreen) \
            and shown.is_mounted and shown.outline.root.children:
        out.write_text(json.dumps(sorted(sys.modules)), encoding="utf-8")
        os._exit(0)


App._display = display_then_exit  # type: ignore[method-assign,assignment]

from studio.cli.main import main  # noqa: E402  (after the patch: the CLI imports the App itself)

raise SystemExit(main(["--project", root, *extra]))
