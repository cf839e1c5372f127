"""Own writes and the project watcher: classify, validate, and a real watchfiles run on tmp_path."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from studio import own_writes
from studio.fileio import append_line, atomic_write_text
from studio.models.style_profile import StyleProfile
from studio.outline import VolumeOutline
from studio.watch import ChangeKind, Kind, ProjectChange, classify, inspect_paths, watch_project

# ------------------------------------------------------------------------------------------ own writes


def test_own_writes_record_and_is_own(tmp_path: Path) -> None:
    path = tmp_path / "a.md"
    own_writes.record(path, b"hello")
    assert own_writes.is_own(path, b"hello")
    assert not own_writes.is_own(path, b"hello!")
    assert not own_writes.is_own(path, None)
    assert not own_writes.is_own(tmp_path / "other.md", b"hello")
    own_writes.forget(path)
    assert not own_writes.is_own(path, b"hello")
    own_writes.record_deleted(path)
    assert own_writes.is_own(path, None)
    assert not own_writes.is_own(path, b"hello")


def test_app_write_is_own_external_is_not(tmp_path: Path) -> None:
    path = tmp_path / "chapters" / "chapter-002.md"
    atomic_write_text(path, "沈照点亮了灯。\n")
    assert own_writes.is_own(path, path.read_bytes())
    path.write_text("作者改过了。\n", encoding="utf-8")  # an external program
    assert not own_writes.is_own(path, path.read_bytes())
    # the record follows the resolved path
    assert own_writes.is_own(tmp_path / "chapters" / ".." / "chapters" / "chapter-002.md", "沈照点亮了灯。\n".encode())


def test_append_line_is_own(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    append_line(path, '{"a": 1}')
    append_line(path, '{"a": 2}')
    assert own_writes.is_own(path, path.read_bytes())
    with open(path, "ab") as fh:
        fh.write(b"extra\n")
    assert not own_writes.is_own(path, path.read_bytes())


def test_own_writes_bounded_and_thread_safe(tmp_path: Path) -> None:
    def writer(k: int) -> None:
        for i in range(1000):
            own_writes.record(tmp_path / f"t{k}-{i}", b"x")

    threads = [threading.Thread(target=writer, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert own_writes.size() <= own_writes.MAX_ENTRIES
    assert own_writes.is_own(tmp_path / "t0-999", b"x")


# ------------------------------------------------------------------------------------------ classify

ROOT = Path("/novel")


@pytest.mark.parametrize(
    ("rel", "expected"),
    [
        ("chapters/chapter-002.md", ChangeKind.CHAPTER(2)),
        ("chapters/chapter-1000.md", ChangeKind.CHAPTER(1000)),
        ("summaries/chapter-002-summary.md", ChangeKind.SUMMARY(2)),
        ("volumes/vol-01/outline.md", ChangeKind.OUTLINE(1)),
        ("volumes/vol-02/storyline-schedule.json", ChangeKind.SCHEDULE(2)),
        ("volumes/vol-01/chapter-contracts/chapter-003.json", ChangeKind.CONTRACT(1, 3)),
        ("novel-studio.toml", ChangeKind.SETTINGS),
        ("brief.md", ChangeKind.BRIEF),
        ("style-profile.json", ChangeKind.STYLE_PROFILE),
        ("ai-blacklist.json", ChangeKind.BLACKLIST),
        ("style-drift.json", ChangeKind.STYLE_DRIFT),
        ("world/rules.json", ChangeKind.WORLD_RULES),
        ("characters/active/lin-feng.json", ChangeKind.CHARACTER("lin-feng")),
        ("characters/active/lin-feng.md", ChangeKind.CHARACTER_PROFILE("lin-feng")),
        ("storylines/storylines.json", ChangeKind.STORYLINES),
        ("storylines/storyline-spec.json", ChangeKind.STORYLINE_SPEC),
        # ignored: the studio's own bookkeeping
        ("staging/chapters/chapter-002.md", None),
        ("logs/chapter-002-log.json", None),
        ("state/current-state.json", None),
        (".novel-studio/marks.json", None),
        (".novel.lock/info.json", None),
        (".checkpoint.json", ChangeKind.CHECKPOINT),
        ("chapters/.checkpoint.json", None),
        ("storylines/main-arc/memory.md", None),
        # ignored: temp files and editor droppings
        ("chapters/.chapter-002.md.abc123.tmp", None),
        ("chapters/.chapter-002.md.swp", None),
        ("chapters/chapter-002.md.swp", None),
        ("chapters/chapter-002.md~", None),
        ("chapters/.#chapter-002.md", None),
        ("chapters/#chapter-002.md#", None),
        ("chapters/4913", None),
        ("chapters/chapter-002.md.partial", None),
        ("chapters/notes.md", None),
        ("chapters/chapter-0.md", None),
        ("characters/active/Bad Name.json", None),
        ("volumes/volume-one/outline.md", None),
        ("chapters", None),
    ],
)
def test_classify(rel: str, expected: ChangeKind | None) -> None:
    assert classify(ROOT / rel, ROOT) == expected


def test_classify_outside_root() -> None:
    assert classify("/elsewhere/chapters/chapter-001.md", ROOT) is None
    assert classify(ROOT, ROOT) is None


# ------------------------------------------------------------------------------------------ inspect


def test_inspect_validates(tmp_path: Path) -> None:
    root = tmp_path
    good = root / "style-profile.json"
    good.write_text('{"forbidden_words": ["然而"]}\n', encoding="utf-8")
    broken = root / "ai-blacklist.json"
    broken.write_text('{\n  "words": [\n    "a",\n  ]\n}\n', encoding="utf-8")
    shape = root / "world" / "rules.json"
    shape.parent.mkdir()
    shape.write_text('{"rules": 5}\n', encoding="utf-8")
    outline = root / "volumes" / "vol-01" / "outline.md"
    outline.parent.mkdir(parents=True)
    outline.write_text("# 卷一\n\n## 第1章 开端\n- Storyline: main-arc\n", encoding="utf-8")
    settings = root / "novel-studio.toml"
    settings.write_text("[ui\nlang = 'en'\n", encoding="utf-8")
    chapter = root / "chapters" / "chapter-001.md"
    chapter.parent.mkdir()
    chapter.write_bytes(b"ok\n\xff\xfe\n")
    gone = root / "chapters" / "chapter-002.md"

    changes = {c.path.name: c for c in inspect_paths(root, [good, broken, shape, outline, settings, chapter, gone])}
    assert isinstance(changes["style-profile.json"].value, StyleProfile)
    assert changes["style-profile.json"].ok
    problem = changes["ai-blacklist.json"].problems[0]
    assert (problem.line, problem.column) == (4, 3)
    assert changes["ai-blacklist.json"].value is None
    assert changes["rules.json"].problems and changes["rules.json"].problems[0].json_path.startswith("$")
    assert isinstance(changes["outline.md"].value, VolumeOutline)
    assert changes["novel-studio.toml"].problems[0].line == 1
    assert changes["chapter-001.md"].problems[0].line == 2
    assert changes["chapter-002.md"].deleted and changes["chapter-002.md"].kind == ChangeKind.CHAPTER(2)


# ------------------------------------------------------------------------------------------ watching


class Recorder:
    def __init__(self) -> None:
        self.changes: list[ProjectChange] = []
        self.event = asyncio.Event()

    async def __call__(self, batch: list[ProjectChange]) -> None:
        self.changes.extend(batch)
        self.event.set()

    async def wait_for(self, predicate: Callable[[ProjectChange], bool], timeout: float = 5.0) -> ProjectChange:
        async def loop() -> ProjectChange:
            while True:
                for change in self.changes:
                    if predicate(change):
                        return change
                self.event.clear()
                await self.event.wait()

        return await asyncio.wait_for(loop(), timeout)


@pytest.fixture
async def watched(tmp_path: Path) -> AsyncIterator[tuple[Path, Recorder]]:
    root = tmp_path / "novel"
    (root / "chapters").mkdir(parents=True)
    for n in (1, 2, 3):
        (root / "chapters" / f"chapter-00{n}.md").write_text(f"# 第{n}章\n\n正文。\n", encoding="utf-8")
    recorder = Recorder()
    stop = asyncio.Event()
    ready = asyncio.Event()
    task = asyncio.create_task(watch_project(root, on_change=recorder, stop_event=stop, debounce_ms=50, ready=ready))
    await asyncio.wait_for(ready.wait(), 5)
    yield root, recorder
    stop.set()
    await asyncio.wait_for(task, 5)


async def test_external_edit_reported(watched: tuple[Path, Recorder]) -> None:
    root, recorder = watched
    (root / "chapters" / "chapter-002.md").write_text("# 第2章\n\n作者手改。\n", encoding="utf-8")
    change = await recorder.wait_for(lambda c: c.kind == ChangeKind.CHAPTER(2))
    assert change.kind.kind is Kind.CHAPTER and change.kind.chapter == 2
    assert not change.deleted and change.ok


async def test_app_write_not_reported_and_swap_ignored(watched: tuple[Path, Recorder]) -> None:
    root, recorder = watched
    atomic_write_text(root / "chapters" / "chapter-002.md", "# 第2章\n\n应用写的。\n")
    (root / "chapters" / ".chapter-002.md.swp").write_bytes(b"swap")
    (root / "chapters" / "chapter-002.md~").write_text("backup", encoding="utf-8")
    (root / "chapters" / "4913").write_text("", encoding="utf-8")
    await asyncio.sleep(0.2)
    # an external edit afterwards is the sentinel: once it arrives, everything before it was processed
    (root / "chapters" / "chapter-003.md").write_text("# 第3章\n\n外部。\n", encoding="utf-8")
    await recorder.wait_for(lambda c: c.kind == ChangeKind.CHAPTER(3))
    assert [c.kind for c in recorder.changes] == [ChangeKind.CHAPTER(3)]


async def test_broken_style_profile_and_delete(watched: tuple[Path, Recorder]) -> None:
    root, recorder = watched
    (root / "style-profile.json").write_text('{\n  "forbidden_words": ["然而",\n}\n', encoding="utf-8")
    change = await recorder.wait_for(lambda c: c.kind == ChangeKind.STYLE_PROFILE)
    assert change.problems and change.value is None
    assert change.problems[0].line == 3 and change.problems[0].column is not None
    assert change.problems[0].path == root.resolve() / "style-profile.json"
    (root / "chapters" / "chapter-001.md").unlink()
    gone = await recorder.wait_for(lambda c: c.kind == ChangeKind.CHAPTER(1))
    assert gone.deleted
