"""Fewer fsyncs per commit: one folder fsync per folder and step, none for the journal's progress.

Counted on a real commit (the orchestrator on the fake agents, real `os.fsync` calls counted by folder),
not timed. Before the batching, the archive folder was synced once per archived file and the staging
folder once per journal update.
"""

from __future__ import annotations

import asyncio
import os
import stat
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

import pipeline.orchestrator as orchestrator_module
from pipeline.commit import archive_dir
from pipeline.decisions import take_recommended
from pipeline.orchestrator import Orchestrator
from studio.fileio import NO_FSYNC_ENV, atomic_write_text, deferred_dir_fsyncs
from studio.init_project import init_project
from studio.models.settings import Settings
from studio.paths import ProjectPaths
from tests.fake_agents import FakeAgents


@pytest.fixture
def folder_fsyncs(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """Folder fsyncs by folder path, while `counting` is on."""
    monkeypatch.delenv(NO_FSYNC_ENV, raising=False)
    counts: Counter[str] = Counter()
    real = os.fsync

    def fsync(fd: Any) -> None:
        if counts["<on>"] and stat.S_ISDIR(os.fstat(fd).st_mode):
            counts[os.readlink(f"/proc/self/fd/{fd}")] += 1
        real(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    return counts


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc to name an fd's folder")
def test_deferred_block_syncs_each_folder_once(tmp_path: Path, folder_fsyncs: Counter[str]) -> None:
    folder_fsyncs["<on>"] = 1
    with deferred_dir_fsyncs():
        for i in range(4):
            atomic_write_text(tmp_path / f"f{i}.txt", "字")
        with deferred_dir_fsyncs():  # nested: joins the outer block
            atomic_write_text(tmp_path / "g.txt", "字")
        assert folder_fsyncs[str(tmp_path)] == 0
    assert folder_fsyncs[str(tmp_path)] == 1
    atomic_write_text(tmp_path / "h.txt", "字")  # outside a block: synced at once
    assert folder_fsyncs[str(tmp_path)] == 2
    atomic_write_text(tmp_path / "i.txt", "字", sync_dir=False)
    assert folder_fsyncs[str(tmp_path)] == 2


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc to name an fd's folder")
def test_commit_syncs_archive_once_and_journal_folder_never(
    tmp_path: Path, folder_fsyncs: Counter[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = init_project(tmp_path / "novel", sample=True)
    paths = ProjectPaths(root)
    real_run_commit = orchestrator_module.run_commit

    def counted(*args: Any, **kwargs: Any) -> Any:
        folder_fsyncs["<on>"] = 1
        try:
            return real_run_commit(*args, **kwargs)
        finally:
            folder_fsyncs["<on>"] = 0

    monkeypatch.setattr(orchestrator_module, "run_commit", counted)
    orch = Orchestrator(root, FakeAgents(paths), decider=take_recommended, emit=lambda e: None, settings=Settings())
    result = asyncio.run(orch.run(1))
    assert result.committed == [3]
    archive = archive_dir(paths, 3)
    assert any(p.name.startswith("chapter-003") for p in archive.iterdir())  # the pass texts were moved there
    assert folder_fsyncs[str(archive.resolve())] == 1
    assert folder_fsyncs[str(paths.staging.resolve())] == 0  # the journal's folder: progress is not synced
    assert max(count for key, count in folder_fsyncs.items() if key != "<on>") <= 2
