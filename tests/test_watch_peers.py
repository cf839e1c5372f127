"""The project's write log (`studio.write_log`): another novel-studio process's writes are not the author's.

Writes of "another process" are made by a real child process (`python -c`), so the pid differs for real.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from studio import own_writes, write_log
from studio.fileio import append_line, atomic_write_text
from studio.models.write_log import WriteRecord
from studio.watch import ChangeKind, ProjectChange, inspect_paths, watch_project
from studio.write_log import WriteLogReader

ROOT = Path(__file__).resolve().parents[1]


def make_project(tmp_path: Path) -> Path:
    root = tmp_path / "novel"
    (root / "chapters").mkdir(parents=True)
    (root / "novel-studio.toml").write_text('title = "雾港"\n', encoding="utf-8")
    return root


def in_other_process(code: str) -> int:
    """Run `code` in a child Python (with `studio` importable); returns the child's pid."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("NOVEL_STUDIO_")}
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    prelude = "import os, sys\nfrom pathlib import Path\nprint(os.getpid())\n"
    done = subprocess.run([sys.executable, "-c", prelude + code], capture_output=True, text=True, env=env,
                          cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return int(done.stdout.split()[0])


def records(root: Path) -> list[WriteRecord]:
    out: list[WriteRecord] = []
    for part in write_log.log_paths(root):
        if part.is_file():
            out.extend(WriteRecord.parse_data(json.loads(line)) for line in part.read_text("utf-8").splitlines())
    return out


# ------------------------------------------------------------------------------------------ writing


def test_every_project_write_is_logged_before_it_lands(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    chapter = root / "chapters" / "chapter-001.md"
    atomic_write_text(chapter, "沈照点亮了灯。\n")
    atomic_write_text(root / ".checkpoint.json", "{}\n")  # the commit's last write: logged although hidden
    atomic_write_text(root / "state" / "current-state.json", "{}\n")  # bookkeeping: not logged
    atomic_write_text(root / "chapters" / ".hidden.md", "x\n")
    append_line(root / "logs" / "calls.jsonl", "{}")
    append_line(root / "notes.jsonl", '{"a": 1}')
    own_writes.record_deleted(root / "brief.md")
    atomic_write_text(tmp_path / "outside.md", "not a project file\n")
    got = [(r.path, r.op, r.pid) for r in records(root)]
    pid = os.getpid()
    assert got == [
        ("chapters/chapter-001.md", "write", pid),
        (".checkpoint.json", "write", pid),
        ("notes.jsonl", "append", pid),
        ("brief.md", "delete", pid),
    ]
    first = records(root)[0]
    import hashlib

    assert first.sha256 == hashlib.sha256("沈照点亮了灯。\n".encode()).hexdigest()
    appended = records(root)[2]
    assert appended.size == len(b'{"a": 1}\n') and appended.added == len(b'{"a": 1}\n')
    assert not (tmp_path / ".novel-studio").exists()


def test_log_failure_never_fails_the_write(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    (root / ".novel-studio").write_text("a file where the folder should be", encoding="utf-8")
    atomic_write_text(root / "chapters" / "chapter-001.md", "正文。\n")
    assert (root / "chapters" / "chapter-001.md").read_text(encoding="utf-8") == "正文。\n"


def test_log_is_rotated_and_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = make_project(tmp_path)
    monkeypatch.setattr(write_log, "MAX_BYTES", 2000)
    follower = WriteLogReader(root)
    for i in range(200):
        atomic_write_text(root / "chapters" / f"chapter-{i % 7 + 1:03d}.md", f"第{i}稿\n")
        if i % 3 == 0:
            follower.refresh()
    old, current = write_log.log_paths(root)
    assert old.is_file() and current.is_file()
    line = len(current.read_bytes().splitlines()[0]) + 1
    assert old.stat().st_size <= 2000 + line and current.stat().st_size <= 2000 + line
    follower.refresh()
    fresh = WriteLogReader(root)
    fresh.refresh()
    for n in range(1, 8):
        text = (root / "chapters" / f"chapter-{n:03d}.md").read_bytes()
        import hashlib

        digest = hashlib.sha256(text).hexdigest()
        # a reader that kept up never lost a record across the rotations; a fresh one sees the last ones
        assert follower._latest[f"chapters/chapter-{n:03d}.md"][1].sha256 == digest
        assert fresh._latest[f"chapters/chapter-{n:03d}.md"][1].sha256 == digest


def test_torn_and_foreign_lines_are_skipped(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    log = write_log.log_paths(root)[1]
    log.parent.mkdir(parents=True)
    good = WriteRecord(path="brief.md", op="write", sha256="ab", pid=1, time=0.0).model_dump_json()
    log.write_bytes(b"not json\n" + b'{"path": 3}\n' + good.encode()[:20])
    reader = WriteLogReader(root)
    reader.refresh()
    assert reader._latest == {}
    with open(log, "ab") as fh:  # the rest of the line arrives: read once complete
        fh.write(good.encode()[20:] + b"\n")
    reader.refresh()
    assert reader._latest["brief.md"][1].sha256 == "ab"


# ------------------------------------------------------------------------------------------ reading


def test_other_process_write_matches_until_the_author_edits(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    chapter = root / "chapters" / "chapter-002.md"
    pid = in_other_process(
        "from studio.fileio import atomic_write_text\n"
        f"atomic_write_text(Path({str(chapter)!r}), '另一个进程写的。\\n')\n"
    )
    assert pid != os.getpid()
    reader = WriteLogReader(root)
    found = reader.match(chapter, chapter.read_bytes())
    assert found is not None and found.pid == pid and found.op == "write"
    assert reader.match(chapter, "作者改过。\n".encode()) is None
    # the author edits it, then restores the other process's exact text: still the author's doing
    reader.forget(chapter)
    assert reader.match(chapter, "另一个进程写的。\n".encode()) is None
    # this process's own records are `own_writes`' business, never "another process"
    atomic_write_text(chapter, "本进程写的。\n")
    assert reader.match(chapter, chapter.read_bytes()) is None


def test_other_process_append_and_delete_match(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    notes = root / "notes.jsonl"
    gone = root / "brief.md"
    gone.write_text("简介\n", encoding="utf-8")
    in_other_process(
        "from studio.fileio import append_line\nfrom studio import own_writes\n"
        f"append_line(Path({str(notes)!r}), '{{\"a\": 1}}')\n"
        f"append_line(Path({str(notes)!r}), '{{\"a\": 2}}')\n"
        f"own_writes.record_deleted(Path({str(gone)!r})); Path({str(gone)!r}).unlink()\n"
    )
    reader = WriteLogReader(root)
    assert reader.match(notes, notes.read_bytes()) is not None
    assert reader.match(notes, notes.read_bytes() + b"x\n") is None
    assert reader.match(gone, None) is not None
    assert reader.match(gone, b"back\n") is None


def test_inspect_paths_names_the_other_process(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    chapter = root / "chapters" / "chapter-003.md"
    pid = in_other_process(
        "from studio.fileio import atomic_write_text\n"
        f"atomic_write_text(Path({str(chapter)!r}), '# 第3章\\n\\n正文。\\n')\n"
        f"atomic_write_text(Path({str(root / '.checkpoint.json')!r}), '{{\"last_completed_chapter\": 3}}\\n')\n"
    )
    peers = WriteLogReader(root)
    changes = inspect_paths(root, [chapter, root / ".checkpoint.json"], peers)
    assert [(c.kind, c.writer) for c in changes] == [(ChangeKind.CHECKPOINT, pid), (ChangeKind.CHAPTER(3), pid)]
    chapter.write_text("# 第3章\n\n作者手改。\n", encoding="utf-8")
    [edited] = inspect_paths(root, [chapter], peers)
    assert edited.kind == ChangeKind.CHAPTER(3) and edited.writer is None
    # without a log (an older novel-studio wrote it, or the log is gone) a change is the author's
    write_log.log_paths(root)[1].unlink()
    chapter.write_text("# 第3章\n\n又改。\n", encoding="utf-8")
    [again] = inspect_paths(root, [chapter])
    assert again.writer is None


# ------------------------------------------------------------------------------------------ a real watcher


class Recorder:
    def __init__(self) -> None:
        self.changes: list[ProjectChange] = []
        self.event = asyncio.Event()

    def __call__(self, changes: list[ProjectChange]) -> None:
        self.changes.extend(changes)
        self.event.set()

    async def wait_for(self, kind: ChangeKind, timeout: float = 60) -> ProjectChange:
        async def loop() -> ProjectChange:
            while True:
                for change in self.changes:
                    if change.kind == kind:
                        return change
                self.event.clear()
                await self.event.wait()

        return await asyncio.wait_for(loop(), timeout)


@pytest.fixture
async def watched(tmp_path: Path) -> AsyncIterator[tuple[Path, Recorder]]:
    root = make_project(tmp_path)
    recorder = Recorder()
    stop = asyncio.Event()
    ready = asyncio.Event()
    task = asyncio.create_task(watch_project(root, on_change=recorder, stop_event=stop, debounce_ms=50, ready=ready))
    await asyncio.wait_for(ready.wait(), 30)
    yield root, recorder
    stop.set()
    await asyncio.wait_for(task, 30)


async def test_watcher_reports_the_writer_then_a_hand_edit(watched: tuple[Path, Recorder]) -> None:
    root, recorder = watched
    chapter = root / "chapters" / "chapter-001.md"
    code = (
        "from studio.fileio import atomic_write_text\n"
        f"atomic_write_text(Path({str(chapter)!r}), '# 第1章\\n\\n另一个进程。\\n')\n"
    )
    pid = await asyncio.to_thread(in_other_process, code)
    change = await recorder.wait_for(ChangeKind.CHAPTER(1))
    assert change.writer == pid and change.ok
    recorder.changes.clear()
    chapter.write_text("# 第1章\n\n作者手改。\n", encoding="utf-8")
    edited = await recorder.wait_for(ChangeKind.CHAPTER(1))
    assert edited.writer is None


def test_concurrent_writers_never_interleave_lines(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    env = {k: v for k, v in os.environ.items() if not k.startswith("NOVEL_STUDIO_")}
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env["NOVEL_STUDIO_TEST_NO_FSYNC"] = "1"
    code = (
        "import sys\nfrom pathlib import Path\nfrom studio import write_log\n"
        "from studio.fileio import atomic_write_text\nwrite_log.MAX_BYTES = 6000\n"
        "root = Path(sys.argv[1])\n"
        "for i in range(300):\n"
        "    atomic_write_text(root / 'chapters' / f'chapter-{i % 5 + 1:03d}.md', f'{sys.argv[2]} {i}\\n')\n"
    )
    children = [
        subprocess.Popen([sys.executable, "-c", code, str(root), tag], env=env, cwd=ROOT, stderr=subprocess.PIPE)
        for tag in ("甲", "乙")
    ]
    for child in children:
        _, err = child.communicate(timeout=300)
        assert child.returncode == 0, err[-2000:]
    lines = [line for part in write_log.log_paths(root) for line in part.read_bytes().splitlines()]
    assert lines and all(WriteRecord.parse_data(json.loads(line)).op == "write" for line in lines)
    assert {WriteRecord.parse_data(json.loads(line)).pid for line in lines} <= {c.pid for c in children}
    for part in write_log.log_paths(root):
        assert part.stat().st_size < 2 * 6000  # rotated (a few lines may land after the size check)
