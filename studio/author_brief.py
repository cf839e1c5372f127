"""The author's brief (`brief.md`, 创作纲领) as the agents read it (seed 000 §8.3: `project_brief` is in the
base context of every agent).

Rules:
- The brief is Markdown: an optional `# ` title line, then `## ` sections (题材, 核心卖点, 主角, 核心冲突,
  风格基调, 禁忌与雷区 ... in the template; an author may use any headings).
- Hint lines of the project template (`templates/project/brief.md`, the lines starting with `>`) are dropped,
  wherever they appear; any other line, quoted or not, is the author's and kept verbatim.
- A section whose body is empty once hints are dropped is left out, heading included.
- The template's hints and headings alone are an empty brief. So is a brief whose only content is the book
  title (the `# ` line and the 书名 / 标题 / Title section, which `init` fills in from the folder name):
  a title says nothing an agent can plan or write from.
- The cleaned text is capped at `BRIEF_MAX_CHARS` (the spec asks for <= 1000 characters; a longer hand-written
  brief is cut with a visible mark rather than blowing the cached prefix of every call).

The result is a pure function of the file's bytes, so it is byte-identical from one chapter to the next and
can live in the cached (stable) tier of every prompt.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path

from studio.errors import FormatError
from studio.fileio import read_text

__all__ = [
    "BRIEF_FIELDS",
    "BRIEF_MAX_CHARS",
    "AuthorBrief",
    "brief_from_answers",
    "clean_brief",
    "load_brief",
    "template_hint_lines",
]

BRIEF_MAX_CHARS = 2000
# The brief's fields as a form or the command line asks for them: (key, the template's section heading).
BRIEF_FIELDS: tuple[tuple[str, str], ...] = (
    ("genre", "题材"),
    ("selling_points", "核心卖点"),
    ("protagonist", "主角"),
    ("world", "世界观一句话"),
    ("conflict", "核心冲突"),
    ("readers", "目标读者"),
    ("length", "字数规划"),
    ("tone", "风格基调"),
    ("references", "参考作品"),
    ("taboos", "禁忌与雷区"),
)
TRUNCATED_MARK = "……（纲领过长，以下从略）"
_TITLE_SECTIONS = frozenset({"书名", "标题", "作品名", "title", "book title"})
_H1 = re.compile(r"^#(?!#)\s*(.*)$")
_H2 = re.compile(r"^#{2,6}\s*(.*?)\s*#*\s*$")
_SECTION_NUMBER = re.compile(r"^[0-9０-９一二三四五六七八九十]+[.、．)）]\s*")


@dataclass(frozen=True)
class AuthorBrief:
    """The cleaned brief: `text` holds only what the author wrote (with the headings that frame it)."""

    text: str
    sections: tuple[tuple[str, str], ...]  # (heading, body) of every non-empty section, in file order
    truncated: bool = False

    @property
    def is_empty(self) -> bool:
        return not any(not _is_title_section(heading) for heading, _ in self.sections)


def _normalise_hint(line: str) -> str:
    return "".join(line.strip().lstrip(">").split())


@lru_cache(maxsize=1)
def template_hint_lines() -> frozenset[str]:
    """The `>` hint lines of the bundled project template, normalised (no `>`, no whitespace)."""
    try:
        text = resources.files("templates").joinpath("project", "brief.md").read_text(encoding="utf-8")
    except (FileNotFoundError, ModuleNotFoundError, OSError):
        return frozenset()
    return frozenset(_normalise_hint(line) for line in text.splitlines() if line.strip().startswith(">"))


def _is_title_section(heading: str) -> bool:
    return _SECTION_NUMBER.sub("", heading).strip().lower() in _TITLE_SECTIONS


def _is_hint(line: str, hints: frozenset[str]) -> bool:
    stripped = line.strip()
    return stripped.startswith(">") and (_normalise_hint(stripped) in hints or not _normalise_hint(stripped))


def clean_brief(text: str, *, max_chars: int = BRIEF_MAX_CHARS) -> AuthorBrief:
    """The brief without template hints and empty sections (see the module rules)."""
    hints = template_hint_lines()
    title_line = ""
    preamble: list[str] = []
    sections: list[tuple[str, list[str]]] = []
    for raw in text.replace("\r\n", "\n").lstrip("\ufeff").split("\n"):
        line = raw.rstrip()
        if _is_hint(line, hints):
            continue
        h1 = _H1.match(line)
        if h1 and not title_line and not sections and not any(preamble):
            title_line = line.strip()
            continue
        h2 = _H2.match(line)
        if h2:
            sections.append((h2.group(1).strip(), []))
            continue
        (sections[-1][1] if sections else preamble).append(line)
    kept: list[tuple[str, str]] = []
    body = "\n".join(preamble).strip()
    if body:
        kept.append(("", body))
    for heading, lines in sections:
        body = "\n".join(lines).strip()
        if body:
            kept.append((heading, body))
    parts = [title_line] if title_line else []
    for heading, body in kept:
        parts.append(f"## {heading}\n{body}" if heading else body)
    cleaned = "\n\n".join(parts)
    truncated = len(cleaned) > max_chars
    if truncated:
        cleaned = cleaned[:max_chars].rstrip() + TRUNCATED_MARK
    return AuthorBrief(text=cleaned, sections=tuple(kept), truncated=truncated)


def load_brief(path: Path) -> AuthorBrief:
    """The brief at `path`; a missing or unreadable file is an empty brief (the project check reports it)."""
    if not path.is_file():
        return AuthorBrief(text="", sections=())
    try:
        return clean_brief(read_text(path))
    except (OSError, FormatError):
        return AuthorBrief(text="", sections=())


def brief_from_answers(title: str, answers: dict[str, str]) -> str:
    """`brief.md` text from answers keyed by `BRIEF_FIELDS` keys (a form, or `start` on the command line).

    Every template section is written, in the template's order; an unanswered one keeps an empty body (so the
    author can fill it in later), and `clean_brief` of the result holds exactly the answers given.
    """
    unknown = set(answers) - {key for key, _ in BRIEF_FIELDS}
    if unknown:
        raise ValueError(f"unknown brief fields: {', '.join(sorted(unknown))}")
    name = " ".join(title.split()) or "未命名"
    parts = [f"# 创作纲领：{name}", "", "## 书名", "", name]
    for key, heading in BRIEF_FIELDS:
        body = answers.get(key, "").replace("\r\n", "\n").strip()
        parts += ["", f"## {heading}", ""]
        if body:
            parts.append(body)
    return "\n".join(parts).rstrip("\n") + "\n"
