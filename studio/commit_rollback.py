"""Taking back a chapter commit that cannot be finished: its journal is there (the commit point was passed,
some steps may have run) but a staged file it still has to use is broken (issue 11 item 5's way out, used by
`novel-studio repair`). Domain only; the caller holds the lock and has backed up `Rollback.touched()`.

Why back and not forward: the steps left would copy the broken file into the project, and remaking it
needs the stage that wrote it, which runs only before the commit point. Rolled back, the chapter is again
"judged, not committed", with the broken file gone: `continue` redoes only the stage that made it (a
broken text is rewritten from its refine record, or its polish record, with no model call, and only when
the refine record is broken too is the chapter written again; a missing summary, memory or state change
summarizes again, a missing evaluation judges again, a missing chapter log is rebuilt without a model
call), as for a broken file
found before the commit point (`pipeline.commit`'s refusal). Nothing intact is paid for again.

`plan_rollback(paths, n, steps_done)` reads only; None when there is nothing to do this way: no problem,
or a problem outside the staging (a project file, the archived ledger: the author's to fix). The plan,
from the commit's own records (`studio.commit_inputs`, `pipeline.commit`'s steps):
- `unmove`: files the archive step moved from the staging into `logs/chapter-NNN/` (pass texts and hints,
  refine records, earlier evaluations, the calls log) go back to their staging folder, found by name
  (`_staging_folder`); the copies the archive step made of files still staged are left;
- `restore`: once the archive step wrote its "before" copies (`undo.json` is there), the state, the
  foreshadowing ledger and the storyline memory are written back from them, or removed when the chapter
  created them (`undo.json` says whether they existed);
- `cuts_line`: this chapter's patch line (the log's last line) is cut, read again when applied (`repair`
  fixes a torn or repeated tail first);
- `remove`: a project file a copy step wrote (chapter text, summary, evaluation, chapter log) whose bytes
  equal its staged source; the copy may have run without its step being recorded (a kill between them),
  so equal bytes, not the journal, say it was copied; a differing file is not this commit's and stays;
- `broken`: the staged files that cannot be used, and those made with or from them (`with_products`), set
  aside (the caller backs them up first); a broken staged text whose refine record is intact is not set
  aside but rewritten from the record (`rebuild`, `rebuilt_text`), so nothing is asked of a model again.

`apply_rollback` runs the plan in an order a kill can interrupt at any point (a test kills it at every
write): the project files first, the state before the changelog line (each step can be redone: a second
`repair` plans the same rollback while the journal is there), then the moved
files back, then the journal is removed (the rollback's own commit point), then the broken files and the
archive folder. A kill after the journal is gone leaves a judged chapter with a broken staged file and no
journal: `continue` names it with the same way out, and `repair` run again sets it aside (`staged_set_aside`).
"""

from __future__ import annotations

import json
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path

from studio import own_writes
from studio.commit_inputs import (
    FORESHADOWING_BEFORE,
    MEMORY_BEFORE,
    STATE_BEFORE,
    UNDO_INFO,
    archive_dir,
    commit_problems,
    is_staged,
)
from studio.errors import FormatError, Problem
from studio.fileio import atomic_write_bytes, read_json, replace_file
from studio.ids import chapter_id, is_slug
from studio.paths import ProjectPaths

# The staging folder of each kind of file the archive step moves, by what follows `chapter-NNN` in its name.
_FOLDERS: tuple[tuple[str, str], ...] = (
    (".", "chapters"),  # chapter-NNN.draft.md, .rev1.hints.md, .note.md
    ("-refine", "refine"),
    ("-polish", "refine"),
    ("-eval", "evaluations"),
    ("-input", "revise"),
    ("-calls", "logs"),
    ("-log", "logs"),
    ("-summary", "summaries"),
    ("-delta", "state"),
)


@dataclass
class Rollback:
    chapter: int
    problems: list[Problem]
    broken: list[Path] = field(default_factory=list)
    unmove: dict[Path, Path] = field(default_factory=dict)  # archived file -> its staging path
    restore: dict[Path, Path] = field(default_factory=dict)  # project file -> the archived "before" copy
    remove: list[Path] = field(default_factory=list)
    cuts_line: bool = False  # this chapter's patch line is the changelog's last (cut again when applied)
    journal: Path | None = None
    archive: Path | None = None
    rebuild: dict[Path, bytes] = field(default_factory=dict)  # a broken file of `broken` -> what replaces it

    def touched(self, paths: ProjectPaths) -> list[Path]:
        """Every file the rollback changes, moves or removes (to back up first)."""
        files = [*self.broken, *self.unmove, *self.restore, *self.remove]
        if self.cuts_line:
            files.append(paths.changelog)
        if self.journal is not None:
            files.append(self.journal)
        if self.archive is not None and self.archive.is_dir():
            files += [p for p in self.archive.rglob("*") if p.is_file()]
        return sorted(set(files))


def _staging_folder(paths: ProjectPaths, n: int, name: str) -> Path | None:
    """The staging folder an archived file of chapter `n` came from (None: not one the archive step moves)."""
    cid = chapter_id(n)
    if not name.startswith(cid):
        return None
    rest = name[len(cid):]
    for prefix, folder in _FOLDERS:
        if rest.startswith(prefix):
            return paths.staging / folder
    return None


def with_products(paths: ProjectPaths, n: int, storyline_id: str | None, broken: set[Path]) -> list[Path]:
    """`broken` and the staged files made with or from them, which must be made again with them: the summary
    stage writes the summary, its metadata, the delta and the storyline memory together (the recovery counts
    the summary as done by the summary and the delta alone); the text feeds all of them, the refine and polish
    records and the evaluation."""
    summary_set = {paths.staged_summary(n), paths.staged_summary_meta(n), paths.staged_delta(n)}
    if storyline_id and is_slug(storyline_id):
        summary_set.add(paths.staged_memory(storyline_id))
    out = set(broken)
    if paths.staged_chapter(n) in broken:
        refine = paths.staged_refine(n)
        polish = refine.with_name(f"{chapter_id(n)}-polish.json")
        if record_text(refine) is not None:
            # The text is its refine record's result (its polish record's after a polish pass): `continue`
            # rebuilds it from them (`pipeline.staging.ChapterStaging.restore_current`) with no model call.
            # The summary set (made from the writer's text) and the evaluation (of the record's text) stay.
            if polish.is_file() and record_text(polish) is None:
                out.add(polish)  # rebuilt from the refine record: the gate runs the polish pass again
        else:
            out |= summary_set | {paths.staged_evaluation(n), refine, polish}
    if broken & summary_set:
        out |= summary_set
    return sorted(p for p in out if p.is_file())


def record_text(path: Path) -> str | None:
    """The text a refine or polish record (`pipeline.staging`) says its pass made: None when the record is
    missing, unreadable or holds no usable text (not a string, or empty)."""
    try:
        data = read_json(path)
    except (OSError, FormatError):
        return None
    result = data.get("result") if isinstance(data, dict) else None
    text = result.get("text") if isinstance(result, dict) else None
    return text if isinstance(text, str) and text.strip() else None


def rebuilt_text(paths: ProjectPaths, n: int, set_aside: Collection[Path]) -> str | None:
    """The staged text of chapter `n` as its records say it is (the polish record's result, unless it is set
    aside, else the refine record's); None when the refine record holds none (`with_products` then sets the
    whole chapter aside)."""
    refine = paths.staged_refine(n)
    polish = refine.with_name(f"{chapter_id(n)}-polish.json")
    if record_text(refine) is None:
        return None
    polished = record_text(polish) if polish not in set_aside else None
    return polished if polished is not None else record_text(refine)


def _undo_info(archive: Path) -> dict[str, object] | None:
    try:
        data = json.loads((archive / UNDO_INFO).read_bytes())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _patch_line_cut(paths: ProjectPaths, n: int) -> bytes | None:
    """The changelog without its last line when that line is chapter `n`'s patch (None: it is not)."""
    from studio.state_engine import last_changelog_entry

    try:
        last = last_changelog_entry(paths.changelog)
    except FormatError:
        return None  # a torn last line: never merged; the next commit's check drops it
    if last is None or last.kind != "patch" or last.chapter != n:
        return None
    lines = paths.changelog.read_bytes().rstrip(b"\n").split(b"\n")
    while lines and not lines[-1].strip():
        lines.pop()
    kept = lines[:-1]
    return b"\n".join(kept) + b"\n" if kept else b""


def _same_bytes(a: Path, b: Path) -> bool:
    try:
        return a.read_bytes() == b.read_bytes()
    except OSError:
        return False


def plan_rollback(paths: ProjectPaths, n: int, *, storyline_id: str | None, steps_done: list[str]) -> Rollback | None:
    """The rollback of chapter `n`'s commit (see the module rules); None when it is not the way out."""
    problems = commit_problems(paths, n, storyline_id=storyline_id, steps_done=steps_done)
    if not problems or not all(is_staged(paths, p) for p in problems):
        return None
    rb = Rollback(n, problems, journal=paths.commit_journal(n))
    rb.broken = with_products(paths, n, storyline_id, {Path(p.path) for p in problems})
    text = rebuilt_text(paths, n, rb.broken) if paths.staged_chapter(n) in rb.broken else None
    if text is not None:
        rb.rebuild[paths.staged_chapter(n)] = text.encode("utf-8")
    archive = archive_dir(paths, n)
    staged_copies = {paths.staged_summary(n).name, paths.staged_summary_meta(n).name,
                     paths.staged_evaluation(n).name, paths.staged_delta(n).name}
    if archive.is_dir():
        rb.archive = archive
        for item in sorted(archive.iterdir()):
            folder = _staging_folder(paths, n, item.name)
            if item.is_file() and folder is not None and item.name not in staged_copies:
                if not (folder / item.name).exists():
                    rb.unmove[item] = folder / item.name
        info = _undo_info(archive)
        if info is not None:
            rb.restore[paths.current_state] = archive / STATE_BEFORE
            if info.get("foreshadowing_existed"):
                rb.restore[paths.global_foreshadowing] = archive / FORESHADOWING_BEFORE
            elif paths.global_foreshadowing.is_file():
                rb.remove.append(paths.global_foreshadowing)
            story = info.get("storyline_id") or storyline_id
            if isinstance(story, str) and is_slug(story):
                memory = paths.storyline_memory(story)
                if info.get("memory_existed"):
                    rb.restore[memory] = archive / MEMORY_BEFORE
                elif memory.is_file():
                    rb.remove.append(memory)
    rb.cuts_line = _patch_line_cut(paths, n) is not None
    copies = ((paths.staged_chapter(n), paths.chapter(n)), (paths.staged_summary(n), paths.summary(n)),
              (paths.staged_evaluation(n), paths.evaluation(n)), (paths.staged_log(n), paths.log(n)))
    for source, target in copies:
        if target.is_file() and source.is_file() and _same_bytes(source, target):
            rb.remove.append(target)
    missing = [p for p in rb.restore.values() if not p.is_file()]
    if missing:
        return None  # the "before" copies are not all there: not safely reversible
    return rb


def _delete(path: Path) -> None:
    own_writes.record_deleted(path)
    path.unlink(missing_ok=True)


def apply_rollback(paths: ProjectPaths, rb: Rollback) -> None:
    """Run the plan (see the module's order); the caller has backed up `rb.touched(paths)`."""
    # The state before the log line: cut short between them, the log is one line ahead of the state, which
    # `repair` run again merges (`merge_interrupted`) before this rollback restores it; the other way round
    # the state would be ahead of the log, which `repair` cannot rebuild safely.
    for target, before in rb.restore.items():
        atomic_write_bytes(target, before.read_bytes())
    cut = _patch_line_cut(paths, rb.chapter)  # read now: `repair` may have fixed the log's tail just before
    if cut is not None:
        atomic_write_bytes(paths.changelog, cut)
    for path in rb.remove:
        _delete(path)
    for archived, staged in rb.unmove.items():
        staged.parent.mkdir(parents=True, exist_ok=True)
        replace_file(archived, staged)
    if rb.journal is not None:
        _delete(rb.journal)
    for path in rb.broken:
        if path in rb.rebuild:
            atomic_write_bytes(path, rb.rebuild[path])  # replaced whole (its backup is taken): never missing
        else:
            _delete(path)
    if rb.archive is not None and rb.archive.is_dir():
        for path in sorted(rb.archive.rglob("*"), reverse=True):
            if path.is_file():
                _delete(path)
            else:
                path.rmdir()
        rb.archive.rmdir()
