"""`import --append` into a project with a chapter in progress is refused before the preview (issue 11): the
author is not shown a preview, asked, and only then told it cannot be done."""

from __future__ import annotations

from pathlib import Path

import pytest

from studio.cli import import_cmd
from studio.cli.main import main
from studio.models.checkpoint import Checkpoint, PipelineStage, save_checkpoint
from studio.paths import ProjectPaths
from tests.test_import_cli import _body, _book


def test_a_chapter_in_progress_is_said_before_the_preview(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    src = tmp_path / "book.txt"
    src.write_text(_book(), "utf-8")
    root = tmp_path / "proj"
    assert main(["import", str(src), str(root), "--yes", "--skip-checks"]) == 0
    paths = ProjectPaths(root)
    cp = Checkpoint.load(paths.checkpoint)
    cp.inflight_chapter, cp.pipeline_stage = cp.last_completed_chapter + 1, PipelineStage.DRAFTED
    save_checkpoint(paths, cp)
    capsys.readouterr()
    asked: list[str] = []
    monkeypatch.setattr(import_cmd, "is_interactive", lambda: True)

    def answer(prompt: str = "") -> str:
        asked.append(prompt)
        return "y"

    monkeypatch.setattr("builtins.input", answer)
    more = tmp_path / "more.txt"
    more.write_text("第8章 续\n" + _body(8) + "\n第9章 再续\n" + _body(9) + "\n", "utf-8")

    code = main(["import", str(more), str(root), "--append"])
    out, err = capsys.readouterr()
    assert code == 1
    assert "正在写作流程中" in err and "novel-studio continue / undo" in err
    assert asked == []  # no question was put
    assert "找到 2 章" not in out  # and no preview shown
