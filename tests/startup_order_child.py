"""Child of tests/test_app_startup.py: the studio as `novel-studio --project DIR --offline` on a real terminal,
writing to OUT whether its file watcher started after the first paint (the terminal was sent both pane titles).

    python tests/startup_order_child.py OUT PROJECT
"""

from __future__ import annotations

import sys
from pathlib import Path

import textual.drivers.linux_driver as linux_driver

from screens.file_watcher import FileWatcher
from studio.cli.main import main

out, root = Path(sys.argv[1]), sys.argv[2]
sent: list[str] = []
original_write = linux_driver.LinuxDriver.write
original_start = FileWatcher._start


def write(self: linux_driver.LinuxDriver, data: str) -> None:
    sent.append(data)
    original_write(self, data)


def start(self: FileWatcher) -> None:
    text = "".join(sent)
    painted = "大纲" in text and "正文" in text
    out.write_text("started after the first paint" if painted else "started before the first paint", encoding="utf-8")
    original_start(self)


linux_driver.LinuxDriver.write = write  # type: ignore[method-assign]
FileWatcher._start = start  # type: ignore[method-assign]
raise SystemExit(main(["--project", root, "--offline"]))
