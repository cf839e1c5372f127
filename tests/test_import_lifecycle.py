"""An existing novel brought in and written on (issue 10 item 5): a generated 30-chapter TXT through the real
`import --full` (offline), then `status`, `plan` for the next volume and `continue` writing chapter 31 in the
author's style (the style profile's anchor passages, cut from the author's chapters, reach the writer's prompt);
every file valid by `Project.open`, the author's chapters as imported. And a real `extract` process killed half
way (fault injection at a write point) that a rerun finishes without paying for a chapter twice."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from pipeline.importing.extract import SUMMARY_STAGE
from pipeline.providers.offline import OfflineProvider
from studio import fileio
from studio.cli.main import main
from studio.models.import_record import ImportRecord
from studio.models.style_profile import StyleProfile
from studio.paths import ProjectPaths
from studio.project import Project
from studio.spend_ledger import read_spend
from studio.state_engine import load_changelog
from tests.import_extract_helpers import book_text

pytestmark = pytest.mark.usefixtures("no_offline_delay")  # the streaming pace is not tested here

ROOT = Path(__file__).resolve().parents[1]


def _chapters_as_imported(root: Path) -> None:
    paths = ProjectPaths(root)
    record = ImportRecord.load(paths.import_record)
    for chapter in record.chapters:
        assert hashlib.sha256(paths.chapter(chapter.chapter).read_bytes()).hexdigest() == chapter.sha256


def test_an_offline_full_import_then_plan_and_continue(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(OfflineProvider.__init__, "__defaults__", (0.0, 20))  # no streaming delay
    source = tmp_path / "雾港旧事.txt"
    source.write_text(book_text(30), encoding="utf-8")
    root = tmp_path / "book"
    assert main(["import", str(source), str(root), "--full", "--yes", "--offline"]) == 0
    out = capsys.readouterr().out
    assert "第 30 章：" in out and "已完整提取到第 30 章" in out
    paths = ProjectPaths(root)
    project = Project.open(root)  # every file valid
    _chapters_as_imported(root)
    record = ImportRecord.load(paths.import_record)
    assert record.last_chapter == 30 and record.extracted_through == 30
    assert project.state.last_updated_chapter == 30 and "lin-feng" in project.characters
    assert [e.chapter for e in load_changelog(paths.changelog) if e.kind == "patch"] == list(range(1, 31))
    assert all(paths.summary(n).is_file() for n in range(1, 31))

    assert main(["status", "--project", str(root), "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert "30" in json.dumps(status, ensure_ascii=False)

    assert main(["plan", "--project", str(root), "--offline", "--yes"]) == 0
    capsys.readouterr()
    project = Project.open(root)
    assert project.current_volume == 2 and paths.outline(2).is_file()  # the next volume, planned from the state

    # the writer of chapter 31 sees the author's own prose as its style anchors
    anchors = StyleProfile.load(paths.style_profile).to_data()["style_exemplars"]
    texts = [paths.chapter(n).read_text("utf-8") for n in range(1, 31)]
    assert anchors and all(any(a in t for t in texts) for a in anchors)
    assert main(["prompt", "writer", "31", "--project", str(root), "--json"]) == 0
    request = json.dumps(json.loads(capsys.readouterr().out), ensure_ascii=False)
    assert anchors[0].splitlines()[0] in request

    assert main(["continue", "--project", str(root), "--offline", "--yes", "--on-low-score", "accept"]) == 0
    assert "第31章：" in capsys.readouterr().out
    project = Project.open(root)
    assert project.last_completed_chapter == 31 and paths.chapter(31).is_file()
    assert project.state.last_updated_chapter == 31
    _chapters_as_imported(root)


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_an_extract_process_killed_half_way_is_finished_by_a_rerun(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "book.txt"
    source.write_text(book_text(8, 800), encoding="utf-8")
    root = tmp_path / "book"
    assert main(["import", str(source), str(root), "--yes", "--offline", "--skip-checks"]) == 0
    capsys.readouterr()
    env = {**os.environ, "PYTHONPATH": str(ROOT), fileio.NO_FSYNC_ENV: "1", fileio.FAULT_ENV: "120"}
    killed = subprocess.run([sys.executable, "-m", "studio.cli.main", "extract", str(root), "--offline", "--yes"],
                            env=env, capture_output=True, text=True, cwd=ROOT, timeout=900)
    assert killed.returncode == -signal.SIGKILL, killed.stderr[-2000:]
    paths = ProjectPaths(root)
    done_before = ImportRecord.load(paths.import_record).extracted_through
    assert done_before < 8
    assert main(["extract", str(root), "--offline", "--yes"]) == 0
    assert "已完整提取到第 8 章" in capsys.readouterr().out
    Project.open(root)
    _chapters_as_imported(root)
    assert [e.chapter for e in load_changelog(paths.changelog) if e.kind == "patch"] == list(range(1, 9))
    entries, _ = read_spend(paths.spend_ledger)
    paid = Counter(e.chapter for e in entries if e.stage == SUMMARY_STAGE and e.ok)
    assert set(paid) == set(range(1, 9))
    # a kill inside the one write that keeps a paid reply is the only way to pay for a chapter again
    assert sum(count - 1 for count in paid.values()) <= 1
