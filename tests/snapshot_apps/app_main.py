"""Snapshot app: the studio's main screen on a fresh copy of the sample novel (offline, clock frozen)."""

from __future__ import annotations

import tempfile
from pathlib import Path

from pipeline.providers.offline import OfflineProvider
from studio.i18n import Lang
from studio.init_project import init_project
from studio.models.review_marks import record_review_marks
from studio.paths import ProjectPaths
from studio.tui.app import NovelStudioApp


def build_app(*, marked: bool = False, lang: Lang = "zh") -> NovelStudioApp:
    """The studio on the sample in `lang`; `marked`: chapter 2 needs review after an edit of chapter 1 (its
    marks line)."""
    root = Path(tempfile.mkdtemp(prefix="novel-studio-snap-")) / "novel"
    init_project(root, sample=True)
    if marked:
        record_review_marks(
            ProjectPaths(root), {2: ["沈照 的位置：青石巷 → 城西码头", "许青禾 与沈照的关系：陌生 → 相识"]}, 1
        )
    return NovelStudioApp(
        root, lang=lang, offline=True, provider_factory=lambda s: OfflineProvider(delay_s=0), clock=lambda: 0.0
    )


app = build_app()
if __name__ == "__main__":
    app.run()
