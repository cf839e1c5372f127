"""Writing a confirmed manuscript into a project (issue 10 item 2).

`write_project(manuscript, source, root, append=False)` writes, under the project lock:

1. the journal (`studio.importing.journal`, `.novel-studio/import-journal.json`): the plan, with the sha256 of
   every chapter file it is going to write;
2. a new project (`studio.init_project`) when `root` is missing or empty;
3. the source, unchanged byte for byte, into `import/` (`import/<file name>`; a folder source: its chapter
   files under `import/<folder name>/`); a name taken by another source gets `-2`, `-3`, ...;
4. `chapters/chapter-NNN.md`, in order: `# 第N章 标题` (the product's heading, N the project number), a blank
   line, then the chapter's text exactly as the manuscript holds it. A prologue or an extra keeps its label in
   the title (`# 第1章 楔子 风起`, `# 第31章 番外 后来`), so every reader of headings (the chapter pane, the
   outline, the checks) parses it as a chapter; the kind and label are in the import record;
5. `volumes/vol-NN/outline.md` per volume: one entry per chapter, `- Status: written`
   (`studio.planning.written`) and `- Source: <the heading in the manuscript>`;
6. the checkpoint: the last imported chapter completed, the last volume current, state WRITING;
7. the import record (`.novel-studio/import.json`, `ImportRecord`), then the journal is removed.

Every step is idempotent (a file already holding the bytes to write is left alone; outline entries and record
entries of the import's chapter range are replaced, not added twice), so a rerun of an import killed half way
finishes it from the journal: no chapter is lost or duplicated, and an `--append` rerun goes on after the same
chapter as the killed one. Another import while a journal is pending is refused.

Refused (`ImportRefused`, nothing written): a folder that is not empty and not a project; a project without
`append`; with `append`, a folder that is not a project, a source imported already (same bytes), a run in flight (checkpoint stage, commit journal,
chapters beyond the checkpoint) or a cold-start refusal. A held lock raises `LockHeldError` (exit 4).
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from studio.errors import FormatError, StudioError
from studio.fileio import TEMP_NAME, atomic_write_bytes, read_text, sweep_temp_files, sync_disk
from studio.i18n import Catalog, Lang, tr
from studio.importing.journal import clear_journal, journal_path, load_journal, save_journal
from studio.init_project import existing_project_marker, init_project
from studio.lock import ProjectLock
from studio.models.checkpoint import Checkpoint, OrchestratorState, now_iso, save_checkpoint
from studio.models.import_journal import ImportJournal, JournalVolume
from studio.models.import_record import ImportedChapter, ImportRecord, ImportSource
from studio.models.manuscript import Manuscript, ManuscriptChapter
from studio.outline import OutlineChapter, VolumeOutline, parse_outline, render_outline
from studio.paths import ProjectPaths
from studio.planning.written import STATUS_KEY, WRITTEN

MESSAGES: Catalog = {
    "is_project": (
        "{path} 已经是一个小说项目（含 {marker}）：导入不会覆盖它。要把这些章节接在第 {last} 章之后，请加 --append；"
        "否则请换一个新的空文件夹",
        "{path} already holds a novel project ({marker}): an import never overwrites it. To add these chapters "
        "after chapter {last}, pass --append; otherwise pick a new, empty folder",
    ),
    "not_empty": (
        "{path} 不是空文件夹（有 {entry} 等），也不是小说项目：请导入到一个新的空文件夹",
        "{path} is not empty ({entry}, ...) and is not a novel project: import into a new, empty folder",
    ),
    "not_dir": ("{path} 已存在且不是文件夹", "{path} exists and is not a folder"),
    "append_no_project": (
        "{path} 还不是小说项目，--append 无处可接：去掉 --append 即可新建项目",
        "{path} is not a novel project, so --append has nothing to add to: drop --append to create one",
    ),
    "in_flight": (
        "第 {chapter} 章正在写作流程中（{stage}）：请先完成或撤销它（novel-studio continue / undo），再追加导入",
        "chapter {chapter} is in the middle of a run ({stage}): finish or undo it first (novel-studio continue / "
        "undo), then append",
    ),
    "cold_start": (
        "项目状态不一致，未追加导入：\n{findings}",
        "the project is inconsistent; nothing was appended:\n{findings}",
    ),
    "other_pending": (
        "上一次导入（{name}，第 {first}-{last} 章）被中断，还没有完成：请用同样的来源和切分重新运行那次导入来完成它，"
        "之后再导入别的内容",
        "an earlier import ({name}, chapters {first}-{last}) was interrupted and is not finished: rerun that import "
        "with the same source and split to finish it, then import anything else",
    ),
    "journal_broken": (
        "无法读取中断的导入记录 {path}：{detail}",
        "cannot read the interrupted import's journal {path}: {detail}",
    ),
    "no_chapters": ("书稿里没有章节，没有可写入的内容", "the manuscript has no chapters: nothing to write"),
    "source_missing": ("找不到来源 {path}", "source {path} not found"),
    "already_imported": (
        "{name} 已经导入过（第 {first}-{last} 章，原稿在 import/{stored}）：再追加一次会让这些章节重复出现",
        "{name} was imported already (chapters {first}-{last}, kept as import/{stored}): appending it again would "
        "repeat those chapters",
    ),
    "changed_since": (
        "第 {chapter} 章的文件已存在且内容不同（{path}）：不会覆盖",
        "chapter {chapter}'s file already exists with other content ({path}): not overwriting it",
    ),
}

SOURCE_SUFFIXES = (".txt", ".md")
_BOOK = re.compile(r"^《(.+)》$")


class ImportRefused(StudioError):
    """The target cannot take this import (a project without `append`, not empty, ...): `str()` says why."""


# ---------------------------------------------------------------------------------------------- rendering


def chapter_title(chapter: ManuscriptChapter) -> str:
    """The title written after `第N章`: a prologue's or an extra's label first (楔子 风起), then the title."""
    title = " ".join(chapter.title.split())
    label = " ".join(chapter.label.split())
    if label and not title.startswith(label):
        title = f"{label} {title}".strip()
    return title


def render_chapter(chapter: ManuscriptChapter, number: int) -> str:
    """The chapter file: the product's heading with the project number, a blank line, the text unchanged."""
    heading = f"# 第{number}章 {chapter_title(chapter)}".rstrip()
    body = chapter.text.strip("\n")
    return f"{heading}\n\n{body}\n" if body else f"{heading}\n"


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def book_title(source: Path) -> str:
    """The book's title guessed from the source's name (`《剑来》.txt` -> 剑来)."""
    stem = source.stem if source.is_file() else source.name
    stem = stem.strip()
    m = _BOOK.match(stem)
    return (m.group(1) if m else stem).strip()


# ---------------------------------------------------------------------------------------------- source copy


def source_files(source: Path) -> list[Path]:
    """The files of the source that are kept: the file itself, or a folder's chapter files as the reader takes
    them (`studio.importing.source`: `.txt`/`.md`, not hidden, in the folder or one level of volume folders)."""
    if source.is_file():
        return [source]

    def chapter_files(folder: Path) -> list[Path]:
        return [p for p in folder.iterdir()
                if p.is_file() and not p.name.startswith(".") and p.suffix.lower() in SOURCE_SUFFIXES]

    files = chapter_files(source)
    for sub in source.iterdir():
        if sub.is_dir() and not sub.name.startswith("."):
            files += chapter_files(sub)
    return sorted(files, key=lambda p: p.relative_to(source).as_posix())


def source_digest(source: Path, files: list[Path]) -> str:
    """sha256 of a file source; of a folder: of each kept file's name and sha256, in order."""
    if source.is_file():
        return _sha(source.read_bytes())
    h = hashlib.sha256()
    for p in files:
        h.update(p.relative_to(source).as_posix().encode() + b"\0" + _sha(p.read_bytes()).encode() + b"\n")
    return h.hexdigest()


def _stored_name(record: ImportRecord, source: Path, digest: str) -> str:
    """`import/` name for this source: its own name, or `-2`, `-3` ... when another source took it."""
    taken = {s.stored_as: s.sha256 for s in record.sources}
    base, suffix = (source.stem, source.suffix) if source.is_file() else (source.name, "")
    name = f"{base}{suffix}"
    n = 2
    while name in taken and taken[name] != digest:
        name = f"{base}-{n}{suffix}"
        n += 1
    return name


def _copy_source(paths: ProjectPaths, source: Path, files: list[Path], stored_as: str) -> None:
    dest = paths.import_dir / stored_as
    if source.is_file():
        _write_once(dest, source.read_bytes(), durable=False)
        return
    for p in files:
        _write_once(dest / p.relative_to(source), p.read_bytes(), durable=False)


def _write_once(path: Path, data: bytes, *, durable: bool = True) -> None:
    """Write unless the file already holds exactly these bytes (what makes a rerun idempotent). The source copy
    and the chapters are written without a fsync each and synced once (`sync_disk`) before the checkpoint:
    the journal redoes any of them a crash loses, and a thousand fsyncs would cost seconds."""
    try:
        if path.stat().st_size == len(data) and path.read_bytes() == data:
            return
    except FileNotFoundError:
        pass
    atomic_write_bytes(path, data, durable=durable)


# ---------------------------------------------------------------------------------------------- checks


def _is_empty(root: Path) -> bool:
    """No file but the lock and temp files (what an import killed before its journal was saved leaves)."""
    for p in root.rglob("*"):
        rel = p.relative_to(root).parts
        if rel[0] == ".novel.lock" or not p.is_file():
            continue
        if not TEMP_NAME.match(p.name):
            return False
    return True


def check_target(root: Path, append: bool, lang: Lang = "zh") -> bool:
    """Raise ImportRefused when `root` cannot take this import; True when a project is there (append).
    A folder with a pending import journal is the place to finish that import: accepted either way."""
    if root.is_dir() and journal_path(ProjectPaths(root)).exists():
        return existing_project_marker(root) is not None
    if root.exists() and not root.is_dir():
        raise ImportRefused(tr(MESSAGES, "not_dir", lang, path=root))
    marker = existing_project_marker(root) if root.is_dir() else None
    if marker is not None:
        if not append:
            last = Checkpoint.load_or_default(ProjectPaths(root).checkpoint).last_completed_chapter
            raise ImportRefused(tr(MESSAGES, "is_project", lang, path=root, marker=marker, last=last))
        return True
    if append:
        raise ImportRefused(tr(MESSAGES, "append_no_project", lang, path=root))
    if root.is_dir() and not _is_empty(root):
        entry = sorted(p.name for p in root.iterdir() if p.name != ".novel.lock")[0]
        raise ImportRefused(tr(MESSAGES, "not_empty", lang, path=root, entry=entry))
    return False


def check_append(root: Path, lang: Lang = "zh") -> None:
    """Raise ImportRefused when the project at `root` cannot take appended chapters now: the checks
    `write_project(append=True)` makes before it writes (a project; idle and consistent), made ahead of the
    preview so the studio's form can say so (a pending import journal is finished by the write: accepted)."""
    root = Path(root)
    check_target(root, True, lang)
    if not journal_path(ProjectPaths(root)).exists():
        _refuse_append_run(ProjectPaths(root), lang)


def _refuse_append_run(paths: ProjectPaths, lang: Lang) -> Checkpoint:
    """The checkpoint of a project that may take appended chapters: idle, consistent."""
    from studio.coldstart import check_cold_start, refusals  # coldstart imports this package's journal

    cp = Checkpoint.load(paths.checkpoint) if paths.checkpoint.exists() else Checkpoint()
    if cp.inflight_chapter is not None or cp.pipeline_stage is not None:
        chapter = cp.inflight_chapter or cp.next_chapter
        stage = cp.pipeline_stage.value if cp.pipeline_stage is not None else "?"
        raise ImportRefused(tr(MESSAGES, "in_flight", lang, chapter=chapter, stage=stage))
    refused = refusals(check_cold_start(paths, cp))
    if refused:
        lines = "\n".join(f"- {f.describe(lang)}" for f in refused)
        raise ImportRefused(tr(MESSAGES, "cold_start", lang, findings=lines))
    return cp


# ---------------------------------------------------------------------------------------------- plan


def plan_import(
    manuscript: Manuscript, source: Path, paths: ProjectPaths, *, first: int, base_volume: int,
    record: ImportRecord, append: bool,
) -> tuple[ImportJournal, dict[int, bytes]]:
    """The journal of this import and the bytes of every chapter file, numbered from `first`.

    Volumes: the manuscript's volume k becomes project volume `base_volume + k - 1` (a fresh project starts
    at 1; an append without volume headings continues the current volume, with them each heading starts a
    new volume after it, see `write_project`).
    """
    files = source_files(source)
    digest = source_digest(source, files)
    stored_as = _stored_name(record, source, digest)
    offset = first - 1
    chapters: list[ImportedChapter] = []
    texts: dict[int, bytes] = {}
    for ch in manuscript.chapters:
        n = offset + ch.position
        data = render_chapter(ch, n).encode("utf-8")
        texts[n] = data
        chapters.append(
            ImportedChapter(
                chapter=n, kind=ch.kind, label=ch.label, title=ch.title, source_number=ch.source_number,
                source_file=ch.source_file, volume=base_volume + ch.volume - 1, sha256=_sha(data),
            )
        )
    volumes: dict[int, JournalVolume] = {}
    titles = {v.number: v.heading or v.title for v in manuscript.volumes}
    for c in chapters:
        v = volumes.get(c.volume)
        if v is None:
            own = c.volume - base_volume + 1
            volumes[c.volume] = JournalVolume(number=c.volume, title=titles.get(own, ""), first=c.chapter, last=c.chapter)
        else:
            v.first, v.last = min(v.first, c.chapter), max(v.last, c.chapter)
    source_entry = ImportSource(
        name=source.name, stored_as=stored_as, sha256=digest, encoding=manuscript.encoding, mode=manuscript.mode,
        imported_at=now_iso(), first_chapter=chapters[0].chapter, last_chapter=chapters[-1].chapter,
    )
    journal = ImportJournal(
        append=append, source=source_entry, first_chapter=chapters[0].chapter, last_chapter=chapters[-1].chapter,
        chapters=chapters, volumes=sorted(volumes.values(), key=lambda v: v.number), started_at=now_iso(),
    )
    return journal, texts


# ---------------------------------------------------------------------------------------------- writing


def _source_heading(ch: ManuscriptChapter) -> str:
    return " ".join(ch.heading.split())


def _write_outline(paths: ProjectPaths, volume: JournalVolume, entries: list[OutlineChapter]) -> None:
    """Merge the import's entries into the volume's outline: entries of their numbers replaced, order kept."""
    path = paths.outline(volume.number)
    outline = parse_outline(read_text(path), path) if path.is_file() else VolumeOutline()
    numbers = {e.number for e in entries}
    kept = [c for c in outline.chapters if c.number not in numbers]
    merged = sorted([*kept, *entries], key=lambda c: c.number)
    title = outline.title or volume.title
    out = VolumeOutline(title=title, synopsis=outline.synopsis, chapters=merged)
    _write_once(path, render_outline(out).encode("utf-8"))


def _outline_entries(manuscript: Manuscript, journal: ImportJournal) -> dict[int, list[OutlineChapter]]:
    by_volume: dict[int, list[OutlineChapter]] = {}
    offset = journal.first_chapter - 1
    planned = {c.chapter: c for c in journal.chapters}
    for ch in manuscript.chapters:
        n = offset + ch.position
        extra = {STATUS_KEY: WRITTEN}
        heading = _source_heading(ch)
        if heading:
            extra["Source"] = heading
        entry = OutlineChapter(number=n, title=chapter_title(ch), extra=extra)
        by_volume.setdefault(planned[n].volume, []).append(entry)
    return by_volume


def _finish(paths: ProjectPaths, journal: ImportJournal, manuscript: Manuscript, texts: dict[int, bytes],
            source: Path, lang: Lang) -> ImportRecord:
    files = source_files(source)
    _copy_source(paths, source, files, journal.source.stored_as)
    for n in sorted(texts):
        _write_once(paths.chapter(n), texts[n], durable=False)
    sync_disk()
    entries = _outline_entries(manuscript, journal)
    for volume in journal.volumes:
        _write_outline(paths, volume, entries.get(volume.number, []))
    cp = Checkpoint.load(paths.checkpoint) if paths.checkpoint.exists() else Checkpoint()
    cp.last_completed_chapter = max(cp.last_completed_chapter, journal.last_chapter)
    cp.current_volume = max(v.number for v in journal.volumes)
    if cp.orchestrator_state in (OrchestratorState.INIT, OrchestratorState.QUICK_START):
        cp.orchestrator_state = OrchestratorState.WRITING
    save_checkpoint(paths, cp)
    record = ImportRecord.load_or_default(paths.import_record)
    span = range(journal.first_chapter, journal.last_chapter + 1)
    this = (journal.source.stored_as, journal.source.first_chapter)
    record.sources = [s for s in record.sources if (s.stored_as, s.first_chapter) != this] + [journal.source]
    record.chapters = sorted(
        [c for c in record.chapters if c.chapter not in span] + list(journal.chapters), key=lambda c: c.chapter
    )
    record.save(paths.import_record)
    clear_journal(paths)
    return record


def write_project(manuscript: Manuscript, source: Path, root: Path, *, append: bool = False,
                  lang: Lang = "zh", locked: bool = False) -> ImportRecord:
    """Write `manuscript` (read from `source`) into the project at `root`; see the module rules.

    `locked`: the caller holds the project lock already (the CLI takes it, asking before a stale one is taken
    over); otherwise it is taken here (`LockHeldError` when held, stale or not)."""
    root = Path(root).expanduser()
    source = Path(source)
    if not manuscript.chapters:
        raise ImportRefused(tr(MESSAGES, "no_chapters", lang))
    if not source.exists():
        raise ImportRefused(tr(MESSAGES, "source_missing", lang, path=source))
    paths = ProjectPaths(root)
    try:
        pending = load_journal(paths) if root.is_dir() else None
    except FormatError as exc:
        detail = str(exc.problems[0]) if exc.problems else str(exc)
        raise ImportRefused(tr(MESSAGES, "journal_broken", lang, path=journal_path(paths), detail=detail)) from None
    if pending is None:
        has_project = check_target(root, append, lang)
    else:
        has_project = pending.append
    root.mkdir(parents=True, exist_ok=True)
    if locked:
        return _write_locked(manuscript, source, paths, pending, has_project, lang)
    with ProjectLock(paths):
        return _write_locked(manuscript, source, paths, pending, has_project, lang)


def _write_locked(manuscript: Manuscript, source: Path, paths: ProjectPaths, pending: ImportJournal | None,
                  has_project: bool, lang: Lang) -> ImportRecord:
    sweep_temp_files(paths.root)  # what a killed write left (under the lock, no write of ours in flight)
    record = ImportRecord.load_or_default(paths.import_record)
    if pending is not None:
        first, base_volume = pending.first_chapter, min(v.number for v in pending.volumes)
    elif has_project:
        cp = _refuse_append_run(paths, lang)
        first = cp.last_completed_chapter + 1
        has_headings = any(v.heading for v in manuscript.volumes)
        base_volume = cp.current_volume + 1 if has_headings and cp.last_completed_chapter else cp.current_volume
    else:
        first, base_volume = 1, 1
    journal, texts = plan_import(
        manuscript, source, paths, first=first, base_volume=base_volume, record=record,
        append=has_project if pending is None else pending.append,
    )
    if pending is not None:
        if not pending.same_import(journal):
            raise ImportRefused(
                tr(MESSAGES, "other_pending", lang, name=pending.source.name, first=pending.first_chapter,
                   last=pending.last_chapter)
            )
        journal = pending  # its stored_as and dates stand
    else:
        same = next((s for s in record.sources if s.sha256 == journal.source.sha256), None)
        if same is not None:
            raise ImportRefused(tr(MESSAGES, "already_imported", lang, name=same.name, first=same.first_chapter,
                                   last=same.last_chapter, stored=same.stored_as))
        for n in texts:  # a file where an imported chapter goes is never overwritten
            path = paths.chapter(n)
            if path.exists():
                raise ImportRefused(tr(MESSAGES, "changed_since", lang, chapter=n, path=path))
        save_journal(paths, journal)
    if not paths.settings.exists() and existing_project_marker(paths.root) is None:
        init_project(paths.root, title=book_title(source) or None)
    return _finish(paths, journal, manuscript, texts, source, lang)
