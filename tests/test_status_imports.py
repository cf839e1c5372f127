"""What `status` builds on its way: on a project with nothing pending (and its caches warm) it imports only the
models of the files it reads, and the pending-work models only once their file exists. A structural guard,
not a timed test: an import that brings back the start-up cost (a pydantic class is built at import) fails
here by name. Also: blacklist proposals waiting for review are reported, in Chinese and English."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from studio.fileio import atomic_write_json
from studio.init_project import init_project
from studio.paths import ProjectPaths
from studio.project import Project
from studio.status import build_status, render_status

ROOT = Path(__file__).resolve().parents[1]

# The modules whose pydantic models `status` may build on a project with nothing pending, its caches warm:
# the files Project.open validates, the settings, the lock, the spend ledger's line, and the report itself.
ALLOWED_MODEL_MODULES = frozenset({
    "studio.models.base",
    "studio.models.blacklist",
    "studio.models.changelog",
    "studio.models.character",
    "studio.models.checkpoint",
    "studio.models.contract",
    "studio.models.foreshadowing",
    "studio.models.lock_info",
    "studio.models.patch",
    "studio.models.schedule",
    "studio.models.settings",
    "studio.models.spend",
    "studio.models.state",
    "studio.models.storyline_spec",
    "studio.models.storylines",
    "studio.models.style_drift",
    "studio.models.style_profile",
    "studio.models.world_rules",
    "studio.outline",
    "studio.status",
})

# Never imported by `status` with nothing pending (each one is pending work's, or a cache miss's).
DEFERRED_MODULES = (
    "studio.importing.journal",
    "studio.models.blacklist_proposals",
    "studio.models.evaluation",
    "studio.models.extraction_progress",
    "studio.models.import_record",
    "studio.models.pipeline_log",
    "studio.models.tool_journal",
    "studio.models.volume_plan",
    "studio.models.volume_review",
    "studio.planning.quick_start_progress",
    "studio.planning.review",
    "studio.planning.staged",
    "studio.tools.txn",
)

_PROBE = """
import contextlib, io, json, sys
from pydantic import BaseModel
from studio.cli.main import main

def subclasses(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from subclasses(sub)

with contextlib.redirect_stdout(io.StringIO()) as out:
    rc = main(["status", "--project", sys.argv[1], "--lang", sys.argv[2]])
print(json.dumps({
    "rc": rc,
    "text": out.getvalue(),
    "models": sorted({f"{c.__module__}:{c.__qualname__}" for c in subclasses(BaseModel)
                      if c.__module__.startswith("studio")}),
    "modules": sorted(sys.modules),
}))
"""


def _status_process(root: Path, lang: str = "zh") -> dict[str, object]:
    """`status` in a fresh interpreter (the tests' XDG cache folder is inherited through the environment)."""
    done = subprocess.run([sys.executable, "-c", _PROBE, str(root), lang], capture_output=True, text=True, cwd=ROOT,
                          timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    data: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    assert data["rc"] == 0
    return data


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    root = init_project(tmp_path / "novel", sample=True)
    render_status(build_status(Project.open(root)))  # fills the caches: the second status is the usual one
    return root


def test_status_with_nothing_pending_builds_only_the_models_it_reads(sample: Path) -> None:
    data = _status_process(sample)
    models = data["models"]
    assert isinstance(models, list)
    outside = sorted(m for m in models if m.split(":")[0] not in ALLOWED_MODEL_MODULES)
    assert outside == [], f"status builds models it does not need: {outside}"
    modules = data["modules"]
    assert isinstance(modules, list)
    assert [m for m in DEFERRED_MODULES if m in modules] == []


def test_a_pending_file_brings_its_model_and_its_finding(sample: Path) -> None:
    """The deferred imports still happen when there is something to read: an interrupted import's journal
    (broken here) is reported as the cold-start check always did."""
    paths = ProjectPaths(sample)
    paths.root.joinpath(".novel-studio").mkdir(exist_ok=True)
    (paths.root / ".novel-studio" / "import-journal.json").write_text("{", encoding="utf-8")
    data = _status_process(sample, "en")
    assert "an import was interrupted and its journal" in str(data["text"])
    assert "studio.importing.journal" in data["modules"]  # type: ignore[operator]


def _propose(paths: ProjectPaths, statuses: list[str]) -> None:
    proposals = [
        {"id": i, "phrase": f"眸光微闪{i}", "status": status, "chapters": [2]}
        for i, status in enumerate(statuses, start=1)
    ]
    atomic_write_json(paths.blacklist_proposals, {"next_id": len(statuses) + 1, "proposals": proposals})


def test_status_reports_blacklist_proposals_waiting(sample: Path) -> None:
    paths = ProjectPaths(sample)
    report = build_status(Project.open(sample))
    assert report.blacklist_proposals == 0
    assert "黑名单建议" not in render_status(report, "zh")

    _propose(paths, ["pending", "rejected", "pending", "approved"])
    report = build_status(Project.open(sample))
    assert report.blacklist_proposals == 2
    assert "黑名单建议待审核：2 条" in render_status(report, "zh")
    assert "Blacklist proposals waiting for review: 2" in render_status(report, "en")
    again = build_status(Project.open(sample))  # from the cache, same answer
    assert again.blacklist_proposals == 2

    _propose(paths, ["rejected", "approved"])  # all decided: nothing waits, no line
    report = build_status(Project.open(sample))
    assert report.blacklist_proposals == 0
    assert "黑名单建议" not in render_status(report, "zh")


def test_broken_proposals_file_is_a_problem_not_a_crash(sample: Path) -> None:
    paths = ProjectPaths(sample)
    paths.blacklist_proposals.parent.mkdir(exist_ok=True)
    paths.blacklist_proposals.write_text('{"proposals": [{"id": 0}]}', encoding="utf-8")
    report = build_status(Project.open(sample))
    assert report.blacklist_proposals == 0
    assert any("blacklist-proposals.json" in p for p in report.problems)
