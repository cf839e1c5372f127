"""The outline rows' heads kept between starts (`studio.views.outline_rows.OUTLINE_CACHE`): a start parses no
volume outline that did not change, and the rows equal those of a start without the cache."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from studio.project import Project
from studio.status_memo import cache_file
from studio.views import outline_rows
from studio.views.outline_rows import OUTLINE_CACHE, build_outline_rows
from tests.test_synth import load_synth


@pytest.fixture
def novel(tmp_path: Path) -> Path:
    root = tmp_path / "novel"
    load_synth().generate_project(root, 160, chars_per_chapter=60, seed=5)  # 4 volumes
    return root


def _new_process() -> None:
    """What a new start has of this process's memo: nothing."""
    outline_rows._outline_memo.clear()


def _rows_and_parses(root: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[list[Any], list[Path]]:
    parsed: list[Path] = []
    original = outline_rows.parse_outline

    def counting(text: str, path: Any = "outline.md") -> Any:
        parsed.append(Path(path))
        return original(text, path)

    monkeypatch.setattr(outline_rows, "parse_outline", counting)
    _new_process()
    rows = build_outline_rows(Project.open(root))
    monkeypatch.setattr(outline_rows, "parse_outline", original)
    return rows, parsed


def _outlines(root: Path) -> list[Path]:
    return sorted(root.glob("volumes/vol-*/outline.md"))


def test_a_second_start_parses_no_outline_and_shows_the_same_rows(novel: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first, parsed = _rows_and_parses(novel, monkeypatch)
    assert len(parsed) == len(_outlines(novel)) >= 4
    assert cache_file(novel, OUTLINE_CACHE).is_file()
    second, parsed = _rows_and_parses(novel, monkeypatch)
    assert parsed == []
    assert second == first
    assert all(v.title and v.chapters and all(c.title for c in v.chapters) for v in second)


def test_an_edited_outline_is_parsed_again(novel: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _rows_and_parses(novel, monkeypatch)
    outline = _outlines(novel)[1]
    text = outline.read_text(encoding="utf-8")
    first_heading = next(line for line in text.splitlines() if line.startswith("## "))
    outline.write_text(text.replace(first_heading, first_heading + "改", 1), encoding="utf-8")
    rows, parsed = _rows_and_parses(novel, monkeypatch)
    assert parsed == [outline]
    assert any(c.title.endswith("改") for c in rows[1].chapters)
    assert rows == _rows_without_cache(novel)


def _rows_without_cache(root: Path) -> list[Any]:
    cache_file(root, OUTLINE_CACHE).unlink(missing_ok=True)
    _new_process()
    return build_outline_rows(Project.open(root))


@pytest.mark.parametrize("content", [b"", b"{not json", b'{"version": 1, "entries": {"vol-01/outline.md": [1, 2]}}',
                                     "\u4e71\u7801".encode("gbk")])
def test_a_broken_cache_is_no_cache(novel: Path, monkeypatch: pytest.MonkeyPatch, content: bytes) -> None:
    expected = _rows_without_cache(novel)
    cache_file(novel, OUTLINE_CACHE).write_bytes(content)
    rows, parsed = _rows_and_parses(novel, monkeypatch)
    assert rows == expected
    assert len(parsed) == len(_outlines(novel))


def test_entries_of_another_shape_or_parser_are_parsed_again(novel: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    expected, _ = _rows_and_parses(novel, monkeypatch)
    path = cache_file(novel, OUTLINE_CACHE)
    data = json.loads(path.read_text(encoding="utf-8"))
    names = sorted(data["entries"])
    data["entries"][names[0]][2]["chapters"] = [["1", "字符串的章号", None]]  # a wrong type
    data["entries"][names[1]][2]["code"] = "another parser"
    data["entries"][names[2]][2]["title"] = 3
    path.write_text(json.dumps(data), encoding="utf-8")
    rows, parsed = _rows_and_parses(novel, monkeypatch)
    assert sorted(p.parent.name for p in parsed) == [n.split("/")[0] for n in names[:3]]
    assert rows == expected
    monkeypatch.setattr(outline_rows, "parser_digest", lambda: "a new parser")
    rows, parsed = _rows_and_parses(novel, monkeypatch)
    assert len(parsed) == len(_outlines(novel)) and rows == expected


def test_a_broken_outline_stays_left_out(novel: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    broken = _outlines(novel)[0]
    broken.write_bytes(b"\xff\xfe not an outline")
    expected, _ = _rows_and_parses(novel, monkeypatch)
    rows, parsed = _rows_and_parses(novel, monkeypatch)
    assert parsed == [] and rows == expected
    assert all(v.number != 1 for v in rows if v.number)


def test_an_unwritable_cache_is_skipped(novel: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = cache_file(novel, OUTLINE_CACHE).parent
    folder.parent.mkdir(parents=True, exist_ok=True)
    folder.write_text("a file where the folder goes", encoding="utf-8")
    try:
        rows, parsed = _rows_and_parses(novel, monkeypatch)
    finally:
        os.unlink(folder)
    assert len(parsed) == len(_outlines(novel))
    assert rows == _rows_without_cache(novel)
