"""The deterministic depth of an import: candidate names (sampled discovery, whole-book counts), registering
the confirmed ones, 字数, metrics and the checks written where the checks keep them."""

from __future__ import annotations

import random
from pathlib import Path

from studio.checks.names import NameRegistry
from studio.importing.build import write_project
from studio.importing.deterministic import DEFERRED, check_book, load_report, overview
from studio.importing.names import NameCandidate, name_candidates, register_names, sample_chapters
from studio.models.findings import ChecksReport
from studio.models.manuscript import Manuscript, ManuscriptChapter
from studio.models.names import NamedEntity, NamesFile
from studio.paths import ProjectPaths
from studio.project import Project
from studio.wordcount import word_count

PEOPLE = ["顾长风", "陆小川", "秦岚", "沈照"]
PLACES = ["青石巷", "落霞城"]
ACTS = ["推开窗", "笑了一声", "沉默了很久", "转身离开", "低声说道", "抬头看天"]


def _book(chapters: int = 12, seed: int = 3) -> list[tuple[int, str]]:
    r = random.Random(seed)
    out = []
    for n in range(1, chapters + 1):
        paras = []
        for _ in range(20):
            paras.append(f"　　{r.choice(PEOPLE)}在{r.choice(PLACES)}{r.choice(ACTS)}，{r.choice(ACTS)}。")
        out.append((n, "\n".join(paras)))
    return out


def test_candidates_are_found_and_counted_over_the_whole_book() -> None:
    book = _book()
    found = {c.name: c for c in name_candidates(book)}
    for name in [*PEOPLE, *PLACES]:
        assert name in found, (name, sorted(found))
        assert found[name].count == sum(t.count(name) for _, t in book)
    assert found["顾长风"].kind == "person" and found["青石巷"].kind == "place"
    ranked = list(found.values())
    assert [c.count for c in ranked] == sorted((c.count for c in ranked), reverse=True)


def test_discovery_reads_a_sample_but_counts_every_chapter() -> None:
    book = _book(40)
    late = (41, "　　" + "白云观里，令狐远山笑了一声。" * 5)
    sample = sample_chapters([*book, late], budget=2_000)
    assert 0 < len(sample) < 41
    found = {c.name: c for c in name_candidates([*book, late], sample_chars=2_000)}
    assert found["秦岚"].count == sum(t.count("秦岚") for _, t in book)  # found in the sample, counted everywhere


def test_registered_names_are_not_offered_and_confirmed_ones_are_registered(tmp_path: Path) -> None:
    book = _book()
    registry = NameRegistry.from_sources({}, NamesFile(entities=[NamedEntity(name="秦岚", kind="character")]))
    names = [c.name for c in name_candidates(book, registry)]
    assert "秦岚" not in names and "顾长风" in names
    paths = ProjectPaths(tmp_path)
    picked = [NameCandidate("顾长风", "person", 9, 1), NameCandidate("青石巷", "place", 5, 2)]
    assert register_names(paths, picked) == ["顾长风", "青石巷"]
    assert register_names(paths, picked) == []  # once only
    saved = NamesFile.load(paths.names)
    assert [(e.name, e.kind) for e in saved.entities] == [("顾长风", "character"), ("青石巷", "location")]
    assert saved.entities[0].model_extra == {"source": "import"}
    assert NameRegistry.from_sources({}, saved).owner("顾长风") is not None


def _imported(tmp_path: Path) -> Path:
    book = _book(6)
    ms = Manuscript(
        source="b.txt",
        chapters=[ManuscriptChapter(position=n, source_number=n, title=f"第{n}回", text=t) for n, t in book],
    )
    src = tmp_path / "b.txt"
    src.write_text("\n".join(t for _, t in book), "utf-8")
    root = tmp_path / "book"
    write_project(ms, src, root)
    return root


def test_overview_then_checks_write_the_report_and_the_chapter_logs(tmp_path: Path) -> None:
    root = _imported(tmp_path)
    report, candidates = overview(root, 1, 6)
    project = Project.open(root)
    assert report.chapters == 6
    assert report.chapter_chars == {n: word_count(project.chapter_text(n) or "") for n in range(1, 7)}
    assert report.chars == sum(report.chapter_chars.values())
    assert "顾长风" in [c.name for c in candidates]
    assert report.metrics == {} and "checks" in report.deferred
    checked = check_book(root, report)
    assert set(checked.metrics) == {"dialogue_ratio", "avg_sentence_length", "blacklist_hits_per_1k", "dash_per_1k"}
    assert checked.metrics["avg_sentence_length"] > 0
    assert checked.deferred == list(DEFERRED) and "new_name" in DEFERRED
    for n in range(1, 7):
        assert ChecksReport.load(project.paths.checks_log(n)) is not None
    assert load_report(root) == checked
