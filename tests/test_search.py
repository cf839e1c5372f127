"""Search (`/` in the studio): chapter text and summaries, CJK-safe snippets, limits, speed."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from bench.synth import generate_project
from studio.search import ELLIPSIS, SearchHit, make_snippet, parse_query, search_project


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "novel"
    (root / "chapters").mkdir(parents=True)
    (root / "summaries").mkdir()
    (root / "chapters" / "chapter-001.md").write_text(
        "# 第1章 子时送单\n\n　　沈照接了最后一单，Lin 说 hello。\n\n　　灯亮了，沈照又看了一眼灯。\n",
        encoding="utf-8",
    )
    long_para = "甲" * 50 + "沈照" + "乙" * 50
    (root / "chapters" / "chapter-002.md").write_text(f"# 第2章 雾客\n\n{long_para}\n", encoding="utf-8")
    (root / "chapters" / "chapter-010.md").write_text("# 第10章 无关\n\n没有要找的人。\n", encoding="utf-8")
    (root / "summaries" / "chapter-001-summary.md").write_text("沈照点亮长明灯。\n", encoding="utf-8")
    (root / "summaries" / "notes.md").write_text("沈照\n", encoding="utf-8")  # not a summary file
    return root


def _marked(hit: SearchHit) -> list[str]:
    return [hit.snippet[s:e] for s, e in hit.spans]


def test_hits_in_text_and_summaries(project: Path) -> None:
    hits = search_project(project, "沈照")
    assert [(h.chapter, h.source, h.line) for h in hits] == [
        (1, "chapter", 3),
        (1, "chapter", 5),
        (1, "summary", 1),
        (2, "chapter", 3),
    ]
    first = hits[0]
    assert first.snippet == "沈照接了最后一单，Lin 说 hello。"  # indentation stripped, whole short paragraph
    assert first.spans == ((0, 2),)
    assert first.path == project / "chapters" / "chapter-001.md"
    # two matches in one paragraph: one hit, both marked
    assert _marked(hits[1]) == ["沈照"]
    lamp = search_project(project, "灯")
    assert _marked(lamp[0]) == ["灯", "灯"]


def test_snippet_window_cjk(project: Path) -> None:
    hit = search_project(project, "沈照")[3]
    assert hit.snippet == ELLIPSIS + "甲" * 30 + "沈照" + "乙" * 30 + ELLIPSIS
    assert hit.spans == ((31, 33),)
    assert _marked(hit) == ["沈照"]


def test_case_and_terms(project: Path) -> None:
    assert [h.chapter for h in search_project(project, "lin")] == [1]
    hit = search_project(project, "HELLO lin")[0]
    assert _marked(hit) == ["Lin", "hello"]
    assert search_project(project, "沈照 雾") == []  # every term in the same paragraph
    assert search_project(project, "   ") == []
    assert parse_query(" A  b a ") == ["a", "b"]


def test_limit(project: Path) -> None:
    assert len(search_project(project, "沈照", limit=2)) == 2
    assert search_project(project, "沈照", limit=0) == []


def test_make_snippet_offsets() -> None:
    line = "abc沈照def"
    snippet, spans = make_snippet(line, [(3, 5)], context=2)
    assert snippet == ELLIPSIS + "bc沈照de" + ELLIPSIS
    assert [snippet[s:e] for s, e in spans] == ["沈照"]


def test_speed_synthetic(tmp_path: Path) -> None:
    root = tmp_path / "synth"
    generate_project(root, 100)
    start = time.perf_counter()
    hits = search_project(root, "林枫", limit=10_000)
    elapsed = time.perf_counter() - start
    miss_start = time.perf_counter()
    assert search_project(root, "不存在的词") == []
    miss = time.perf_counter() - miss_start
    print(f"\nsearch over 100 synthetic chapters: {len(hits)} hits in {elapsed * 1000:.1f} ms; miss {miss * 1000:.1f} ms")
    assert hits and all("林枫" in h.snippet for h in hits)
    assert any(h.source == "summary" for h in search_project(root, "来到"))
