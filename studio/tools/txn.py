"""A set of file changes made all at once, crash-safe (the tool-mode commands of issue 7 item 6).

`ChangeSet` collects the whole new content of every file a command changes (or None: the file is removed),
read from disk once, so the same set can be shown as a diff (`diff_lines`) before the author says yes, and
then applied by `apply_changes` in one journaled step:

1. `staged`  every new content is written under `staging/tools/<id>/` (nothing in the project changed yet);
2. `backup`  the files about to change, as they are, are copied to `.novel-studio/tool-backup/<id>/`;
3. `journal` `staging/tools/<id>.json` (`studio.models.tool_journal.ToolJournal`): the commit point;
4. `apply`   each staged content replaces its file by the atomic writer (recorded as the app's own write, so
             the studio's watcher does not take it for a hand edit); removed files are recorded, then unlinked;
5. `cleanup` the staged folder, then the journal itself, last.

Before step 1 every file is compared with what the change set read: a file edited since (by the author,
while the diff was on screen) stops the change with `ChangedMeanwhile` and nothing is written, so an edit the
author made is never overwritten unseen. A kill before step 3 leaves the project as it was (`resume_tool_changes` drops the orphan staged folder);
a kill after it is finished by `resume_tool_changes`, which every tool command runs first under the lock.
Steps 4-5 are safe to repeat, so a kill during a resume is resumed again. Writes go through `studio.fileio`
only. Paths in a change set are relative to the project root and checked with `safe_join`.
"""

from __future__ import annotations

import difflib
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from studio import own_writes
from studio.errors import StudioError
from studio.fileio import atomic_write_bytes, decode_text
from studio.ids import safe_join
from studio.models.tool_journal import StagedWrite, ToolJournal
from studio.paths import ProjectPaths
from studio.pending import pending_tool_changes
from studio.pending import tool_journal_dir as journal_dir

__all__ = [
    "ChangeSet",
    "ChangedMeanwhile",
    "FileChange",
    "apply_changes",
    "backup_root",
    "journal_dir",
    "pending_tool_changes",
    "resume_tool_changes",
]

StepHook = Callable[[str], None]


def backup_root(paths: ProjectPaths) -> Path:
    return paths.root / ".novel-studio" / "tool-backup"


def _abs(paths: ProjectPaths, rel: str) -> Path:
    return safe_join(paths.root, *rel.split("/"))


@dataclass(frozen=True)
class FileChange:
    path: str  # relative, `/` separators
    old: bytes | None  # None: the file does not exist now
    new: bytes | None  # None: the file is removed

    @property
    def kind(self) -> str:
        if self.old is None:
            return "create"
        return "delete" if self.new is None else "modify"

    def diff(self) -> list[str]:
        """A unified diff of the text (a removed or created file shows all its lines)."""
        old = decode_text(self.old, self.path).splitlines() if self.old is not None else []
        new = decode_text(self.new, self.path).splitlines() if self.new is not None else []
        before = f"a/{self.path}" if self.old is not None else "/dev/null"
        after = f"b/{self.path}" if self.new is not None else "/dev/null"
        return list(difflib.unified_diff(old, new, before, after, lineterm="", n=2))


@dataclass
class ChangeSet:
    """The files one command changes. `read` gives the content a file has *in this change set* (what an
    earlier step of the same command wrote, else the disk), so steps can build on each other."""

    paths: ProjectPaths
    _new: dict[str, bytes | None] = field(default_factory=dict)
    _old: dict[str, bytes | None] = field(default_factory=dict)

    def _disk(self, rel: str) -> bytes | None:
        if rel not in self._old:
            path = _abs(self.paths, rel)
            self._old[rel] = path.read_bytes() if path.is_file() else None
        return self._old[rel]

    def rel(self, path: Path) -> str:
        return Path(path).resolve().relative_to(self.paths.root.resolve()).as_posix()

    def read(self, path: Path) -> bytes | None:
        rel = self.rel(path)
        if rel in self._new:
            return self._new[rel]
        return self._disk(rel)

    def read_text(self, path: Path) -> str | None:
        data = self.read(path)
        return None if data is None else decode_text(data, path)

    def exists(self, path: Path) -> bool:
        return self.read(path) is not None

    def write_text(self, path: Path, text: str) -> None:
        rel = self.rel(path)
        self._disk(rel)
        self._new[rel] = text.encode("utf-8")

    def delete(self, path: Path) -> None:
        rel = self.rel(path)
        self._disk(rel)
        self._new[rel] = None

    def move(self, src: Path, dest: Path) -> None:
        data = self.read(src)
        if data is None:
            return
        self.delete(src)
        rel = self.rel(dest)
        self._disk(rel)
        self._new[rel] = data

    def changes(self) -> list[FileChange]:
        """The files whose content really changes, sorted by path."""
        out = []
        for rel in sorted(self._new):
            old, new = self._disk(rel), self._new[rel]
            if old != new:
                out.append(FileChange(rel, old, new))
        return out

    def diff_lines(self) -> list[str]:
        return [line for change in self.changes() for line in change.diff()]


class ChangedMeanwhile(StudioError):
    """Files changed on disk after the change set read them; nothing was applied."""

    def __init__(self, files: list[str]) -> None:
        super().__init__(
            "这些文件在显示改动之后被修改过，为免覆盖，未做任何改动；请重新运行命令查看新的差异：" + "、".join(files)
        )
        self.files = files


def _current(paths: ProjectPaths, rel: str) -> bytes | None:
    path = _abs(paths, rel)
    return path.read_bytes() if path.is_file() else None


def _stamp() -> str:
    return datetime.now().strftime("%Y%m%d-%H%M%S-%f")


def _run(paths: ProjectPaths, journal: ToolJournal, hook: StepHook | None) -> None:
    """Steps 4-5 (see the module docstring); safe to repeat."""
    for write in journal.writes:
        staged = _abs(paths, write.staged)
        dest = _abs(paths, write.path)
        if staged.is_file():
            atomic_write_bytes(dest, staged.read_bytes())
        elif not dest.is_file():  # neither: the journal is damaged; never guess
            raise FileNotFoundError(f"{write.staged} is missing and {write.path} was never written")
    if hook is not None:
        hook("apply")
    for rel in journal.deletes:
        path = _abs(paths, rel)
        if path.exists():
            own_writes.record_deleted(path)  # the studio's watcher must not take it for the author's deletion
            path.unlink()
    folder = journal_dir(paths) / journal.id
    if folder.is_dir():
        shutil.rmtree(folder)
    if hook is not None:
        hook("cleanup")
    path = journal_dir(paths) / f"{journal.id}.json"
    own_writes.record_deleted(path)
    path.unlink(missing_ok=True)


def apply_changes(
    changes: ChangeSet, *, command: str, summary: str = "", hook: StepHook | None = None
) -> ToolJournal | None:
    """Apply the change set in one journaled step; None when nothing changes. The caller holds the lock."""
    paths = changes.paths
    files = changes.changes()
    if not files:
        return None
    edited = [c.path for c in files if _current(paths, c.path) != c.old]
    if edited:  # changed by hand (or another program) after the diff was built: never overwrite that unseen
        raise ChangedMeanwhile(edited)
    tx = f"{_stamp()}-{command.replace(' ', '-')}"
    folder = journal_dir(paths) / tx
    writes: list[StagedWrite] = []
    for i, change in enumerate(files):
        if change.new is not None:
            staged = folder / f"{i:03d}.bin"
            atomic_write_bytes(staged, change.new)
            writes.append(StagedWrite(path=change.path, staged=staged.relative_to(paths.root).as_posix()))
    backup = backup_root(paths) / tx
    for change in files:
        if change.old is not None:
            atomic_write_bytes(_abs(paths, backup.relative_to(paths.root).as_posix()) / change.path, change.old)
    if hook is not None:
        hook("staged")
    journal = ToolJournal(
        id=tx,
        command=command,
        summary=summary,
        writes=writes,
        deletes=[c.path for c in files if c.new is None],
        backup=backup.relative_to(paths.root).as_posix(),
    )
    journal.save(journal_dir(paths) / f"{tx}.json")  # the commit point
    if hook is not None:
        hook("journal")
    _run(paths, journal, hook)
    return journal


def resume_tool_changes(paths: ProjectPaths, *, hook: StepHook | None = None) -> list[ToolJournal]:
    """Finish every change a kill cut short after its commit point, and drop staged folders that never
    reached it (nothing of theirs was applied). Returns the finished journals. The caller holds the lock."""
    done: list[ToolJournal] = []
    for path in pending_tool_changes(paths):
        journal = ToolJournal.load(path)
        _run(paths, journal, hook)
        done.append(journal)
    folder = journal_dir(paths)
    if folder.is_dir():
        for child in sorted(folder.iterdir()):
            if child.is_dir() and not (folder / f"{child.name}.json").exists():
                shutil.rmtree(child)
    return done
