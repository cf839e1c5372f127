"""Manuscripts for the import tests, built directly (independent of the splitter)."""

from __future__ import annotations

from pathlib import Path

from studio.models.manuscript import ChapterKind, Manuscript, ManuscriptChapter, ManuscriptVolume

PARA = "　　林远推开窗，雨还在下。苏晚站在巷口，手里攥着那封信。"


def chapter_text(n: int, paragraphs: int = 3) -> str:
    return "\n".join(f"{PARA}第{n}段{i}。" for i in range(paragraphs))


def manuscript(
    n: int = 5,
    *,
    volumes: list[tuple[str, int]] | None = None,
    prologue: bool = False,
    extra: bool = False,
    source: str = "book.txt",
) -> Manuscript:
    """`n` chapters (plus a 楔子 first and a 番外 last when asked); `volumes`: (heading, chapters) each."""
    specs: list[tuple[ChapterKind, str, str, int | None]] = []
    if prologue:
        specs.append(("prologue", "楔子", "风起", None))
    specs += [("chapter", "", f"标题{i}", i) for i in range(1, n + 1)]
    if extra:
        specs.append(("extra", "番外", "后来", None))
    plan = volumes or [("", len(specs))]
    chapters: list[ManuscriptChapter] = []
    vols: list[ManuscriptVolume] = []
    pos = 0
    for v, (heading, count) in enumerate(plan, start=1):
        first = pos + 1
        for kind, label, title, number in specs[pos : pos + count]:
            pos += 1
            head = f"第{number}章 {title}" if number else f"{label} {title}"
            chapters.append(
                ManuscriptChapter(position=pos, kind=kind, label=label, title=title, source_number=number,
                                  heading=head, volume=v, text=chapter_text(pos), line=pos * 5)
            )
        vols.append(ManuscriptVolume(number=v, title=heading.partition(" ")[2], heading=heading, first=first, last=pos))
    return Manuscript(source=source, chapters=chapters, volumes=vols)


def write_source(folder: Path, ms: Manuscript, name: str = "book.txt", encoding: str = "utf-8") -> Path:
    """A TXT file holding `ms` as an author would have it (headings then text)."""
    lines: list[str] = []
    volume = 0
    for ch in ms.chapters:
        if ch.volume != volume:
            volume = ch.volume
            heading = next(v.heading for v in ms.volumes if v.number == volume)
            if heading:
                lines.append(heading)
        lines += [ch.heading, ch.text]
    path = folder / name
    path.write_bytes(("\n".join(lines) + "\n").encode(encoding))
    return path
