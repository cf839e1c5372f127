"""`studio.paths.numbered_files` lists a folder once while its stamp is unchanged (issue 12, "Fast start"), and
never answers from a listing the folder no longer matches."""

from __future__ import annotations

import os
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from studio import paths
from studio.paths import CHAPTER_FILE, numbered_files
from studio.status_memo import RACY_NS

CONTRACT = re.compile(r"^(chapter-\d{3,})\.json$")


@pytest.fixture
def scans(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The folders `os.scandir` listed, in order (the memo forgotten before and after)."""
    seen: list[str] = []
    real = os.scandir

    def scandir(folder: Any) -> Any:
        seen.append(os.fspath(folder))
        return real(folder)

    paths.forget_listings()
    monkeypatch.setattr(os, "scandir", scandir)
    yield seen
    paths.forget_listings()


def backdate(folder: Path) -> None:
    past = time.time() - 3600
    os.utime(folder, (past, past))


def chapters(tmp_path: Path, *numbers: int) -> Path:
    folder = tmp_path / "chapters"
    folder.mkdir(exist_ok=True)
    for n in numbers:
        (folder / f"chapter-{n:03d}.md").write_text("正文", encoding="utf-8")
        (folder / f"chapter-{n:03d}.json").write_text("{}", encoding="utf-8")
    return folder


def test_one_listing_serves_every_pattern_until_the_folder_changes(tmp_path: Path, scans: list[str]) -> None:
    folder = chapters(tmp_path, 1, 2, 3)
    backdate(folder)
    assert sorted(numbered_files(folder, CHAPTER_FILE)) == [1, 2, 3]
    assert sorted(numbered_files(folder, CHAPTER_FILE)) == [1, 2, 3]
    assert sorted(numbered_files(folder, CONTRACT)) == [1, 2, 3]
    assert scans == [str(folder)]
    (folder / "chapter-004.md").write_text("正文", encoding="utf-8")  # the folder's mtime moves: listed again
    assert sorted(numbered_files(folder, CHAPTER_FILE)) == [1, 2, 3, 4]
    (folder / "chapter-002.md").unlink()
    assert sorted(numbered_files(folder, CHAPTER_FILE)) == [1, 3, 4]
    assert len(scans) == 3


def test_a_folder_changed_within_the_racy_window_is_listed_at_every_call(tmp_path: Path, scans: list[str]) -> None:
    """A second change in the same timestamp tick would leave the folder's stamp as it was."""
    folder = chapters(tmp_path, 1)
    for _ in range(3):
        assert sorted(numbered_files(folder, CHAPTER_FILE)) == [1]
    assert len(scans) == 3


def test_a_folder_holding_a_symbolic_link_is_listed_at_every_call(tmp_path: Path, scans: list[str]) -> None:
    """`is_file` follows the link: its target can go while the folder's stamp stays."""
    folder = chapters(tmp_path, 1)
    target = tmp_path / "elsewhere.md"
    target.write_text("正文", encoding="utf-8")
    (folder / "chapter-002.md").symlink_to(target)
    backdate(folder)
    assert sorted(numbered_files(folder, CHAPTER_FILE)) == [1, 2]
    target.unlink()
    assert sorted(numbered_files(folder, CHAPTER_FILE)) == [1]
    assert len(scans) == 2


def test_the_answer_is_the_callers_own(tmp_path: Path, scans: list[str]) -> None:
    folder = chapters(tmp_path, 1, 2)
    backdate(folder)
    numbered_files(folder, CHAPTER_FILE).clear()
    assert sorted(numbered_files(folder, CHAPTER_FILE)) == [1, 2]


def test_a_missing_folder_lists_nothing(tmp_path: Path, scans: list[str]) -> None:
    assert numbered_files(tmp_path / "nowhere", CHAPTER_FILE) == {}
    (tmp_path / "file.md").write_text("", encoding="utf-8")
    assert numbered_files(tmp_path / "file.md", CHAPTER_FILE) == {}


def test_the_racy_window_is_the_status_memos() -> None:
    assert paths.LISTING_RACY_NS == RACY_NS
