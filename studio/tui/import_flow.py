"""The studio's import path (issue 10 item 1) without the screens: what the author typed, checked, the blocking
steps the screens run in their workers, and the controller that offers and resumes the model's full extraction
on the main screen. The steps are the import's own domain functions, the ones `novel-studio import` and
`extract` call, in the same order.

The path, screen by screen (`import_path`, driven from the welcome screen's worker; `screens.import_*`):
welcome "导入已有书稿" -> `ImportSourceForm` (source and target) -> `ImportPreviewScreen` (read and split in a
thread worker; confirm, split by size or blank lines, change the target size, back) -> `ImportWorkScreen`
running `write_import` (`write_project`, under its own lock) -> `ImportWorkScreen` running `deterministic_depth`
(`overview`: 字数 and the candidate names) -> `ImportNamesScreen` (tick the names) -> `ImportWorkScreen` running
`finish_import` (`register_names`, then `check_book`) -> `ImportedNovel`: the App opens the main screen on the
new project and posts `ExtractionRequested` -> `ExtractionFlow.offer` asks the extraction's own question
(`pipeline.importing.extract.extraction_question`: chapters, tokens, cost) -> `ExtractionScreen` (the
extraction in a worker, per-chapter progress, a stop keeps what was done). Going back from the preview, or a
write that was refused, returns to the form with what was typed; nothing is written before the preview's yes.

Appending (`append_import`, the main screen's palette "追加导入书稿"): the same path with `append_to` the open
project: the form asks for the manuscript only (the target is the project, checked by `check_append`, the
import's own `--append` check), the chapters are written after its last one by `write_project(append=True)`,
the names and checks run over the appended chapters, and the main screen reloads and offers their extraction.

Rules:
- `check_source(text, base)`: `~` expanded, relative to `base`; a TXT/MD file or a folder that exists; else
  the reason, one readable line. Nothing is read here (`read_source` reads, in a worker).
- `default_target(source, folder)`: `folder` itself when it is empty (the studio was opened on an empty
  folder), else a new folder named after the book (`studio.importing.build.book_title`) next to the source
  (`书名`, `书名-2`, ... the first that does not exist or is empty; a folder source gets `-novel`).
- `check_target(text, base)`: the import's own check (`studio.importing.build.check_target`: a file, a
  folder with other files in it are refused, a missing folder is made); a folder that is already a project is
  refused in the studio's words (the import never writes into another novel).
- `extraction_status(root)`: how far the full depth got, from `.novel-studio/import.json`
  (`studio.models.import_record.ImportRecord`); None for a project that was not imported or whose record
  cannot be read (nothing is offered from a broken file, and it is never rewritten here).
- `ExtractionFlow(host, screen)` is a controller over `ExtractionHost` (the main screen): `check()` keeps the
  notice "extraction not finished" with the chapters done (`ChapterMarks` note, chapter None: it stays under
  every chapter's title until the extraction is done); `offer()` estimates first (a thread), asks with the
  chapters and the cost, and on yes pushes the extraction screen (which runs it `confirmed`: asked once) and
  reloads after it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from studio.errors import StudioError
from studio.i18n import Catalog, Lang, tr
from studio.lock import ProjectLock
from studio.paths import ProjectPaths
from studio.tui.host import StudioHost

if TYPE_CHECKING:
    from textual.message import Message
    from textual.screen import Screen

    from pipeline.importing.extract import ExtractionEstimate, ExtractionResult
    from screens.import_names import NameRow
    from studio.importing.names import NameCandidate
    from studio.models.import_record import ImportRecord
    from studio.models.import_report import ImportReport
    from studio.models.manuscript import Manuscript

__all__ = [
    "MESSAGES",
    "NOTE_KIND",
    "SOURCE_SUFFIXES",
    "AppendHost",
    "ExtractionFlow",
    "ExtractionHost",
    "ExtractionStatus",
    "ImportTarget",
    "ImportedNovel",
    "append_import",
    "book_name",
    "check_append",
    "check_source",
    "check_target",
    "default_target",
    "deterministic_depth",
    "expand",
    "extraction_status",
    "import_path",
    "last_chapter",
    "name_rows",
    "result_text",
    "finish_import",
    "write_import",
]

SOURCE_SUFFIXES = (".txt", ".md")
NOTE_KIND = "import"
"""The kind of the main screen's note about an unfinished extraction (`ChapterMarks.with_note`)."""

MESSAGES: Catalog = {
    "no_source": ("请输入书稿的路径（TXT 文件或章节文件所在的文件夹）",
                  "Enter the manuscript's path (a TXT file or a folder of chapter files)"),
    "missing": ("找不到：{path}", "Not found: {path}"),
    "not_text_file": ("不是 TXT 或 MD 文件：{path}", "Not a TXT or MD file: {path}"),
    "no_target": ("请输入要新建项目的文件夹", "Enter the folder for the new project"),
    "target_project": (
        "{path} 已经是一个小说项目。导入不会写进已有的项目：请换一个文件夹（或留空用默认的新文件夹）",
        "{path} is already a novel project. An import never writes into an existing project: choose another "
        "folder (or leave it empty for the default new folder)",
    ),
    "pending": (
        "导入的书稿还没有全量提取（摘要、状态、角色、文风）：已完成 {done}/{total} 章。按 {key} 继续（先显示预计费用）",
        "The imported book is not fully extracted yet (summaries, state, characters, style): {done}/{total} "
        "chapters done. Press {key} to go on (the estimate first)",
    ),
    "nothing": ("全量提取已经完成", "The full extraction is already done"),
    "not_imported": ("这个项目不是导入的书稿，没有要提取的（导入：欢迎界面的“导入已有书稿”或 novel-studio import）",
                     "This project is not an imported book; nothing to extract (import from the welcome screen or "
                     "with novel-studio import)"),
    "estimate_failed": ("无法估算全量提取：{message}", "Cannot estimate the full extraction: {message}"),
    "busy": ("流水线正在运行，稍后再提取", "The pipeline is running; extract later"),
    "done": ("全量提取完成：已提取到第{n}章", "Full extraction done: through chapter {n}"),
    "stopped": ("全量提取已停止：已提取到第{n}章，进度保留，按 {key} 继续",
                "Extraction stopped: done through chapter {n}; progress kept, press {key} to go on"),
    "writing_title": ("正在写入项目：{target}", "Writing the project: {target}"),
    "writing": ("写入章节与卷（{chapters} 章）……", "Writing the chapters and volumes ({chapters})..."),
    "names_title": ("正在找候选名字（分词）……", "Finding candidate names (word segmentation)..."),
    "names_saving": ("正在登记名字……", "Registering the names..."),
    "finishing": ("导入的最后一步：名字与全书检查", "The import's last step: names and the checks"),
    "checking": ("正在检查全书（{chapters} 章：文字指标与不花 token 的检查）……",
                 "Checking the book ({chapters} chapters: prose metrics and the free checks)..."),
    "append_target": ("追加到：{target}", "Appending to: {target}"),
    "appended": ("已追加第 {first}-{last} 章", "Chapters {first}-{last} appended"),
    "kind_person": ("人名 · {count} 次 · 首见第{first}章", "person · {count}x · first in chapter {first}"),
    "kind_place": ("地名/势力 · {count} 次 · 首见第{first}章", "place/faction · {count}x · first in chapter {first}"),
    "failed": ("全量提取出错：{message}（已提取到第{n}章，进度保留）",
               "Extraction failed: {message} (done through chapter {n}; progress kept)"),
}


@dataclass(frozen=True)
class ImportTarget:
    """What the import form collected: the manuscript and the folder of the new project (with `append`: the
    open project the chapters go after, `novel-studio import --append`)."""

    source: Path
    target: Path
    append: bool = False


def expand(text: str, base: Path) -> Path | None:
    """`text` as a path (quotes a terminal adds on paste removed, `~` expanded, relative to `base`), or None."""
    raw = text.strip().strip("'\"").strip()
    if not raw:
        return None
    path = Path(raw).expanduser()
    if not path.is_absolute():
        path = Path(base) / path
    return path.resolve()


def check_source(text: str, base: Path, lang: Lang = "zh") -> Path | str:
    """The manuscript `text` names, or why it cannot be one (see the module rules)."""
    path = expand(text, base)
    if path is None:
        return tr(MESSAGES, "no_source", lang)
    if not path.exists():
        return tr(MESSAGES, "missing", lang, path=path)
    if path.is_file() and path.suffix.lower() not in SOURCE_SUFFIXES:
        return tr(MESSAGES, "not_text_file", lang, path=path)
    return path


def book_name(source: Path) -> str:
    """The book's name as the source's file or folder name says it (`《剑来》.txt` -> `剑来`): the import's own
    guess (`studio.importing.build.book_title`)."""
    from studio.importing.build import book_title

    return book_title(source) or "novel"


def _empty_dir(path: Path) -> bool:
    try:
        return path.is_dir() and not any(path.iterdir())
    except OSError:
        return False


def default_target(source: Path, folder: Path) -> Path:
    """Where the new project goes unless the author says otherwise (see the module rules)."""
    if _empty_dir(Path(folder)):
        return Path(folder)
    parent = source.parent
    name = book_name(source)
    if source.is_dir():
        name = f"{name}-novel"  # never the source folder itself
    for index in range(1, 1000):
        candidate = parent / (name if index == 1 else f"{name}-{index}")
        if not candidate.exists() or _empty_dir(candidate):
            return candidate
    return parent / f"{name}-{id(source)}"


def check_target(text: str, base: Path, lang: Lang = "zh") -> Path | str:
    """The folder of the new project, or why the import cannot write there (see the module rules): the
    import's own check (`studio.importing.build.check_target`), with the studio's words for a project (the
    CLI's refusal names its `--append`)."""
    from studio.importing.build import ImportRefused
    from studio.importing.build import check_target as import_target
    from studio.init_project import existing_project_marker

    path = expand(text, base)
    if path is None:
        return tr(MESSAGES, "no_target", lang)
    if path.is_dir() and existing_project_marker(path) is not None:
        return tr(MESSAGES, "target_project", lang, path=path)
    try:
        import_target(path, False, lang)
    except ImportRefused as exc:
        return str(exc)
    return path


def check_append(root: Path, lang: Lang = "zh") -> str | None:
    """Why the open project at `root` cannot take appended chapters now, or None: the import's own checks
    (`studio.importing.build.check_append`, what `novel-studio import --append` meets when it writes)."""
    from studio.importing.build import ImportRefused
    from studio.importing.build import check_append as import_check_append

    try:
        import_check_append(Path(root), lang)
    except ImportRefused as exc:
        return str(exc)
    return None


def last_chapter(root: Path) -> int:
    """The project's last committed chapter (what appended chapters follow)."""
    from studio.models.checkpoint import Checkpoint

    return Checkpoint.load_or_default(ProjectPaths(Path(root)).checkpoint).last_completed_chapter


@dataclass(frozen=True)
class ExtractionStatus:
    """How far the full depth got: chapters `first..last` are to be extracted, `done` of them are."""

    first: int
    last: int
    extracted_through: int

    @property
    def total(self) -> int:
        return max(0, self.last - self.first + 1)

    @property
    def done(self) -> int:
        return max(0, min(self.extracted_through, self.last) - self.first + 1)

    @property
    def finished(self) -> bool:
        return self.extracted_through >= self.last


def extraction_status(root: Path) -> ExtractionStatus | None:
    """The import's extraction progress, or None (not imported, or the record cannot be read)."""
    path = ProjectPaths(Path(root)).import_record
    if not path.is_file():
        return None
    # The record's model loads with a record to read: the main screen asks this of every project it opens.
    from studio.models.import_record import ImportRecord

    try:
        record = ImportRecord.load(path)
    except (StudioError, OSError):
        return None
    if not record.chapters:
        return None
    return ExtractionStatus(record.extraction_started_at, record.last_chapter, record.extracted_through)


def result_text(result: ExtractionResult | None, root: Path, key: str, lang: Lang = "zh") -> str:
    """How an extraction ended, for the notice (None: stopped by the author)."""
    status = extraction_status(root)
    through = status.extracted_through if status is not None else 0
    if result is not None:
        through = max(through, result.extracted_through)
    if result is None or result.status == "stopped":
        return tr(MESSAGES, "stopped", lang, n=through, key=key)
    if result.status == "done":
        return tr(MESSAGES, "done", lang, n=through)
    return tr(MESSAGES, "failed", lang, message=result.message or result.status, n=through)


class ExtractionHost(StudioHost, Protocol):
    """What the extraction flow needs beyond `StudioHost`: a note that stays on screen, the key shown in it."""

    def keep_note(self, chapter: int | None, kind: str, text: str) -> None: ...

    def drop_note(self, kind: str) -> None: ...

    @property
    def extract_key(self) -> str: ...


ScreenFactory = Callable[[Path, "ExtractionEstimate"], "Screen[ExtractionResult | None]"]
"""The extraction screen for a project and the estimate the author accepted (`screens.import_progress`)."""


class ExtractionFlow:
    """Offers, runs and keeps the notice of the import's full extraction on the main screen."""

    def __init__(self, host: ExtractionHost, screen: ScreenFactory) -> None:
        self.host = host
        self.screen = screen

    @property
    def root(self) -> Path:
        return self.host.project.root

    def check(self) -> ExtractionStatus | None:
        """Keep (or drop) the notice that the imported book is not fully extracted; returns the status."""
        host = self.host
        status = extraction_status(self.root)
        if status is None or status.finished:
            host.drop_note(NOTE_KIND)
            return status
        host.keep_note(None, NOTE_KIND, tr(MESSAGES, "pending", host.lang, done=status.done, total=status.total,
                                          key=host.extract_key))
        return status

    def offer(self) -> None:
        """Ask with the estimate first, then run the extraction (the key, the palette, after an import)."""
        host = self.host
        if host.running:
            host.notify(tr(MESSAGES, "busy", host.lang), severity="warning")
            return
        status = extraction_status(self.root)
        if status is None or status.finished:
            host.notify(tr(MESSAGES, "not_imported" if status is None else "nothing", host.lang))
            return
        host.run_flow(self._offer(), group="import-extraction")

    async def _offer(self) -> None:
        from pipeline.importing.extract import ANSWER_START, estimate_extraction, extraction_question
        from studio.models.settings import Settings

        host, lang = self.host, self.host.lang
        services = host.services
        settings = services.settings or Settings()
        try:
            estimate = await asyncio.to_thread(estimate_extraction, self.root, settings, offline=services.offline,
                                               lang=lang)
        except (StudioError, OSError) as exc:
            text = tr(MESSAGES, "estimate_failed", lang, message=exc)
            host.keep_note(None, NOTE_KIND, text)
            host.notify(text, severity="error", markup=False)
            return
        if estimate.chapters <= 0:
            host.notify(tr(MESSAGES, "nothing", lang))
            self.check()
            return
        if await host.ask(extraction_question(estimate, None, lang)) != ANSWER_START:
            return
        result = await host.show_modal(self.screen(self.root, estimate))
        host.reload()
        text = result_text(result, self.root, host.extract_key, lang)
        done = result is not None and result.status == "done"
        host.notify(text, severity="information" if done else "warning", markup=False)
        status = self.check()
        if status is not None and not status.finished and result is not None and result.status == "failed":
            host.keep_note(None, NOTE_KIND, text)

# -- the path from the welcome screen --------------------------------------------------------------------------


@dataclass(frozen=True)
class ImportedNovel:
    """The welcome screen's import path is over: the new project, to open on the main screen, where the full
    extraction is offered next (`ExtractionRequested`)."""

    root: Path


ShowModal = Callable[["Screen[Any]"], Awaitable[Any]]
"""Push a screen and wait for its result (the welcome screen's `app.push_screen_wait`, from its worker)."""


async def import_path(show: ShowModal, folder: Path, lang: Lang = "zh", *,
                      append_to: Path | None = None) -> ImportedNovel | None:
    """The welcome screen's "导入已有书稿": form -> preview -> write -> names; None when the author gave up.
    With `append_to` (the main screen's "追加导入书稿"), the chapters go after that project's last chapter
    (`write_project(append=True)`, as `novel-studio import --append`); the form then asks for the manuscript only.

    Going back from the preview, or a write that was refused (the reason stays on the work screen until the
    author goes on), returns to the form with what was typed."""
    from screens.import_names import ImportNamesScreen
    from screens.import_preview import ImportChoice, ImportPreviewScreen
    from screens.import_progress import ImportWorkScreen
    from screens.import_source import ImportSourceForm

    initial: ImportTarget | None = None
    while True:
        target: ImportTarget | None = await show(ImportSourceForm(folder, lang, initial=initial, append_to=append_to))
        if target is None:
            return None
        initial = target
        choice: ImportChoice | None = await show(ImportPreviewScreen(target, lang))
        if choice is None:
            continue
        title = tr(MESSAGES, "append_target" if target.append else "writing_title", lang, target=target.target)
        written = await show(ImportWorkScreen(title,
                                              partial(write_import, choice.manuscript, target, lang=lang), lang))
        if written is None:
            continue
        root = target.target
        overview = await show(ImportWorkScreen(tr(MESSAGES, "names_title", lang),
                                               partial(deterministic_depth, root, lang=lang), lang))
        if overview is not None:  # a failure was shown; the book is imported all the same
            report, candidates = overview
            picked = await show(ImportNamesScreen(name_rows(candidates, lang), lang)) if candidates else []
            await show(ImportWorkScreen(tr(MESSAGES, "finishing", lang),
                                        partial(finish_import, root, report, candidates, picked or [], lang=lang),
                                        lang))
        return ImportedNovel(root)


class AppendHost(StudioHost, Protocol):
    """The main screen as the append path needs it: a host that can be asked to offer the extraction."""

    def post_message(self, message: Message) -> bool: ...


async def append_import(host: AppendHost) -> None:
    """The main screen's "追加导入书稿": the import path into the open project, then the reload and the offer of
    the full extraction of the appended chapters (as after a new import)."""
    from studio.tui.messages import ExtractionRequested

    lang, root = host.lang, host.project.root
    if host.running:
        host.notify(tr(MESSAGES, "busy", lang), severity="warning")
        return
    imported = await import_path(host.show_modal, root, lang, append_to=root)
    if imported is None:
        return
    host.reload()
    from studio.models.import_record import ImportRecord

    try:
        source = ImportRecord.load(ProjectPaths(root).import_record).sources[-1]
    except (StudioError, OSError, IndexError):
        pass  # the chapters are written; the notice is all that needs the record
    else:
        host.notify(tr(MESSAGES, "appended", lang, first=source.first_chapter, last=source.last_chapter),
                    markup=False)
    host.post_message(ExtractionRequested())


# -- the blocking steps (each runs in an `ImportWorkScreen`'s thread; `step` shows what it does) ---------------


def write_import(manuscript: Manuscript, target: ImportTarget, step: Callable[[str], None], *,
                 lang: Lang = "zh") -> ImportRecord:
    """Write the confirmed manuscript into the new project (`write_project` takes the project lock)."""
    from studio.importing.build import write_project

    step(tr(MESSAGES, "writing", lang, chapters=len(manuscript.chapters)))
    return write_project(manuscript, target.source, target.target, append=target.append, lang=lang)


def deterministic_depth(root: Path, step: Callable[[str], None], *,
                        lang: Lang = "zh") -> tuple[ImportReport, list[NameCandidate]]:
    """The fast part of the deterministic depth over the chapters the last import wrote (字数, the candidate
    names; the report saved), under the project lock: (report, the name candidates to confirm)."""
    from studio.importing.deterministic import overview
    from studio.models.import_record import ImportRecord

    paths = ProjectPaths(root)
    record = ImportRecord.load(paths.import_record)
    source = record.sources[-1]
    step(tr(MESSAGES, "names_title", lang))
    with ProjectLock(paths):
        return overview(root, source.first_chapter, source.last_chapter, lang=lang)


def name_rows(candidates: Sequence[NameCandidate], lang: Lang = "zh") -> list[NameRow]:
    """The candidates as the names screen lists them (all ticked: the author unticks the noise)."""
    from screens.import_names import NameRow

    return [NameRow(c.name, tr(MESSAGES, f"kind_{c.kind}", lang, count=c.count, first=c.first_chapter), True)
            for c in candidates]


def finish_import(root: Path, report: ImportReport, candidates: Sequence[NameCandidate], picked: Sequence[str],
                  step: Callable[[str], None], *, lang: Lang = "zh") -> list[str]:
    """Register the names the author ticked in `world/names.json`, then the slower part of the deterministic depth
    (prose metrics and the cheap checks over the book, findings per chapter), under the project lock; returns
    the names added."""
    from studio.importing.deterministic import check_book
    from studio.importing.names import register_names

    chosen = set(picked)
    paths = ProjectPaths(root)
    with ProjectLock(paths):
        added: list[str] = []
        if chosen:
            step(tr(MESSAGES, "names_saving", lang))
            added = register_names(paths, [c for c in candidates if c.name in chosen])
        step(tr(MESSAGES, "checking", lang, chapters=report.chapters))
        check_book(root, report, lang=lang)
    return added
