"""The findings list of the studio (issue 8: "a place in the studio lists the findings and jumps to each one"),
domain side: what the list shows and where a finding sits in the chapter text. No Textual here.

- `saved_findings`: the per-chapter reports `logs/chapter-NNN/checks.json` written after each commit (and by
  every 10th chapter's whole-window run); a missing or broken report is skipped (the checks rewrite it).
- `fresh_findings`: every cheap check over the whole book now (what `novel-studio check --quick` reports),
  read-only, waived findings left out.
- `finding_label`: one line: `第N章 · 第P段 · 高 · message` (the chapter-wide ones without a paragraph; the message
  in the UI's language, `studio.checks.finding_text`).
- `text_location`: the (row, column) of a finding in the chapter's text, from its paragraph and offset (the one
  paragraph numbering, `studio.checks.paragraphs`); None when it has none or the text changed under it.
Sorted most severe first, then by chapter, paragraph and offset.
"""

from __future__ import annotations

from collections.abc import Iterable

from studio.checks.finding_text import message_of
from studio.checks.paragraphs import Paragraphs
from studio.errors import FormatError
from studio.i18n import Catalog, Lang, tr
from studio.models.findings import ChecksReport, Finding, severity_rank
from studio.paths import ProjectPaths
from studio.project import Project

MESSAGES: Catalog = {
    "chapter": ("第{n}章", "Ch {n}"),
    "paragraph": ("第{n}段", "para {n}"),
    "book": ("全书", "book"),
    "high": ("高", "high"),
    "medium": ("中", "medium"),
    "low": ("低", "low"),
    "info": ("提示", "info"),
}


def sorted_findings(findings: Iterable[Finding]) -> list[Finding]:
    """Most severe first, then by chapter, paragraph and offset (the list's order)."""
    return sorted(
        findings,
        key=lambda f: (-severity_rank(f.severity), f.chapter or 0, f.paragraph or 0, f.offset or 0, f.kind),
    )


def saved_findings(paths: ProjectPaths, chapters: Iterable[int]) -> list[Finding]:
    out: list[Finding] = []
    for n in chapters:
        path = paths.checks_log(n)
        if not path.is_file():
            continue
        try:
            out += ChecksReport.load(path).findings
        except (OSError, FormatError):
            continue
    return sorted_findings(out)


def fresh_findings(project: Project, lang: Lang = "zh") -> list[Finding]:
    from studio.checks.registry import default_checks, is_expensive
    from studio.checks.run import project_context, run_checks
    from studio.models.check_allow import CheckAllowList

    ctx, unreadable = project_context(project, lang=lang)
    checks = [c for c in default_checks() if not is_expensive(c)]
    try:
        allow = CheckAllowList.load_or_default(project.paths.check_allow)
    except FormatError:
        allow = None  # a broken allow list is reported by the watcher; the findings still show
    return sorted_findings(run_checks(ctx, checks=checks, allow=allow, extra=unreadable).findings)


def finding_label(finding: Finding, lang: Lang = "zh") -> str:
    parts = [tr(MESSAGES, "chapter", lang, n=finding.chapter) if finding.chapter else tr(MESSAGES, "book", lang)]
    if finding.paragraph:
        parts.append(tr(MESSAGES, "paragraph", lang, n=finding.paragraph))
    parts.append(tr(MESSAGES, finding.severity, lang))
    parts.append(message_of(finding, lang))
    return " · ".join(parts)


def text_location(text: str, finding: Finding) -> tuple[int, int] | None:
    """(row, column), 0-based, of the finding's first character in `text`; None without a place in it."""
    if finding.paragraph is None:
        return None
    pos = Paragraphs(text).position(finding.paragraph, finding.offset or 0)
    if pos is None:
        return None
    if finding.text and not text.startswith(finding.text, pos):
        found = text.find(finding.text)  # the chapter changed since the check: its first occurrence
        if found < 0:
            return None
        pos = found
    row = text.count("\n", 0, pos)
    return row, pos - (text.rfind("\n", 0, pos) + 1)
