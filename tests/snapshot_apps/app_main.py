"""Snapshot app: the studio's main screen on a fresh copy of the sample novel (offline, clock frozen)."""

from __future__ import annotations

import tempfile
from pathlib import Path

from pipeline.providers.offline import OfflineProvider
from studio.init_project import init_project
from studio.tui.app import NovelStudioApp


def build_app() -> NovelStudioApp:
    root = Path(tempfile.mkdtemp(prefix="novel-studio-snap-")) / "novel"
    init_project(root, sample=True)
    return NovelStudioApp(
        root, lang="zh", offline=True, provider_factory=lambda s: OfflineProvider(delay_s=0), clock=lambda: 0.0
    )


app = build_app()
if __name__ == "__main__":
    app.run()
