"""The end of a volume in the studio: the run stops at the volume's last chapter and a dialog says what next."""

from __future__ import annotations

import json
from pathlib import Path

from pipeline.decisions import QuestionKind
from pipeline.providers.offline import OfflineProvider
from screens.decision_dialog import DecisionDialog
from screens.export_dialog import ExportDialog
from studio.init_project import init_project
from tests.tui_helpers import RecordingStudio


async def test_volume_end_dialog_offers_review_and_export(tmp_path: Path) -> None:
    root = init_project(tmp_path / "novel", sample=True)
    checkpoint = root / ".checkpoint.json"
    data = json.loads(checkpoint.read_text(encoding="utf-8"))
    data["last_completed_chapter"] = 9  # the next chapter is the volume's last (10)
    checkpoint.write_text(json.dumps(data), encoding="utf-8")
    for n in range(3, 10):  # the cold-start check wants the chapters the checkpoint counts
        (root / "chapters" / f"chapter-{n:03d}.md").write_text(f"# 第{n}章\n\n占位。\n", encoding="utf-8")
    app = RecordingStudio(root, lang="zh", offline=True, provider_factory=lambda s: OfflineProvider(delay_s=0))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.press("c")
        dialog = None
        for _ in range(600):
            await pilot.pause(0.05)
            screen = app.screen
            if isinstance(screen, DecisionDialog):
                if screen.question.kind is QuestionKind.VOLUME_END:
                    dialog = screen
                    break
                await pilot.press("enter")  # any other question: take the recommended answer
        assert dialog is not None, "no end-of-volume dialog"
        assert [o.key for o in dialog.question.options] == ["review", "export", "later"]
        assert any("第 10-10 章" in fact or "第 1-10 章" in fact for fact in dialog.question.facts)
        assert any("卷规划" in fact for fact in dialog.question.facts)
        await pilot.press("2")  # export this volume
        await pilot.pause()
        assert isinstance(app.screen, ExportDialog)
        assert app.screen.chapters[-1] == 10
    state = json.loads(checkpoint.read_text(encoding="utf-8"))
    assert state["orchestrator_state"] == "VOL_REVIEW" and state["last_completed_chapter"] == 10
