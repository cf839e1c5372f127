"""The deterministic depth of an import (issue 10 item 3): no model, seconds for a whole book.

Two steps over the imported chapters `first..last`:

`overview` (inside the import's 5-second budget for 3M 字, with reading, splitting and writing):
- 字数 per chapter (`studio.wordcount`, the one rule);
- candidate names (`studio.importing.names`: jieba on a sample, counted over the whole book).

`check_book` (after the import is written and the names are answered; about 10 s per 3M 字 today, the
prose metrics being most of it; the CLI says so and the import is complete without it):
- the checks that need no segmentation (`studio.checks.registry.default_checks` minus the expensive ones), with
  the prose metrics they compute (`CheckContext.metrics`, once per chapter); each chapter's findings saved to
  `logs/chapter-NNN/checks.json` (`studio.checks.run.write_chapter_reports`), where `check` and the studio read
  them;
- the report, `logs/import-report.json` (`studio.models.import_report.ImportReport`).

Deferred (`DEFERRED`): the new-name check segments every chapter with part-of-speech tags (about 26K 字 a
second: two minutes for 3M 字, cached per chapter in the user cache afterwards); the import's own candidate
names cover what it would find first, so it is left to `novel-studio check`, which the report and the CLI
name. The caller holds the project lock (the report and the check logs are written).
"""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path

from studio.checks.registry import CheckContext, default_checks, is_expensive
from studio.checks.run import project_context, run_checks, write_chapter_reports
from studio.i18n import Lang
from studio.importing.names import NameCandidate, name_candidates
from studio.models.check_allow import CheckAllowList
from studio.models.findings import Finding
from studio.models.import_report import ImportReport
from studio.project import Project
from studio.wordcount import word_count

REPORT_NAME = "import-report.json"
CHECKS_AFTER = ("metrics", "checks")  # what `check_book` adds after the import is written
DEFERRED: tuple[str, ...] = tuple(c.kind for c in default_checks() if is_expensive(c))


def report_path(root: Path) -> Path:
    return Path(root) / "logs" / REPORT_NAME


def _weighted(values: list[tuple[float, int]]) -> float:
    total = sum(w for _, w in values)
    return round(sum(v * w for v, w in values) / total, 3) if total else 0.0


def _chapters(project: Project, first: int, last: int, lang: Lang) -> tuple[CheckContext, list[Finding]]:
    return project_context(project, first, last, lang=lang, reference=False)


def overview(root: Path, first: int, last: int, *, lang: Lang = "zh") -> tuple[ImportReport, list[NameCandidate]]:
    """The fast part (inside the import's time budget): 字数 per chapter and the candidate names of chapters
    `first..last`; saves the report. (report, candidates)"""
    clock = time.perf_counter
    t0 = clock()
    project = Project.open(root, lang=lang)
    ctx, _unreadable = _chapters(project, first, last, lang)
    chapter_chars = {c.number: word_count(c.text) for c in ctx.chapters}
    read = clock() - t0
    t0 = clock()
    candidates = name_candidates([(c.number, c.text) for c in ctx.chapters], ctx.registry)
    result = ImportReport(
        first_chapter=first,
        last_chapter=last,
        chapters=len(chapter_chars),
        chars=sum(chapter_chars.values()),
        chapter_chars=chapter_chars,
        names=[c.as_dict() for c in candidates],
        deferred=[*CHECKS_AFTER, *DEFERRED],
        seconds={"read": round(read, 3), "names": round(clock() - t0, 3)},
    )
    result.save(report_path(project.root))
    return result, candidates


def check_book(root: Path, report: ImportReport, *, lang: Lang = "zh") -> ImportReport:
    """The slower part, run after the import is written: the prose metrics and the cheap checks of the report's
    chapters, findings saved per chapter; the report updated and saved."""
    clock = time.perf_counter
    t0 = clock()
    project = Project.open(root, lang=lang)
    ctx, unreadable = _chapters(project, report.first_chapter, report.last_chapter, lang)
    checks = [c for c in default_checks() if not is_expensive(c)]
    allow = CheckAllowList.load_or_default(project.paths.check_allow)
    found = run_checks(ctx, checks=checks, allow=allow, extra=unreadable)
    write_chapter_reports(project.paths, found, [c.number for c in ctx.chapters])
    measured = [ctx.metrics(c) for c in ctx.chapters]

    def mean(values: list[float]) -> float:
        return _weighted([(v, m.chars) for v, m in zip(values, measured, strict=True)])

    report.metrics = {
        "dialogue_ratio": mean([m.dialogue_ratio for m in measured]),
        "avg_sentence_length": mean([m.sentence_mean for m in measured]),
        "blacklist_hits_per_1k": mean([m.blacklist_per_1k for m in measured]),
        "dash_per_1k": mean([m.dash_per_1k for m in measured]),
    }
    report.findings = dict(sorted(Counter(f.kind for f in found.findings).items()))
    report.deferred = list(DEFERRED)
    report.seconds = {**report.seconds, "checks": round(clock() - t0, 3)}
    report.save(report_path(project.root))
    return report


def load_report(root: Path) -> ImportReport | None:
    path = report_path(root)
    return ImportReport.load(path) if path.is_file() else None
