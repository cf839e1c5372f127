"""Writing a confirmed manuscript into a project (studio.importing.build): the files every reader accepts, the
refusals, append, and the journal that lets a rerun finish an import killed half way."""

from __future__ import annotations

import json
import shutil
import signal
from pathlib import Path

import pytest

from studio.coldstart import check_cold_start, ensure_can_start, refusals
from studio.errors import LockHeldError
from studio.importing.build import ImportRefused, render_chapter, write_project
from studio.importing.journal import journal_path, load_journal
from studio.init_project import init_project
from studio.lock import ProjectLock
from studio.models.checkpoint import Checkpoint, PipelineStage, save_checkpoint
from studio.models.import_record import ImportRecord
from studio.outline import parse_outline
from studio.paths import ProjectPaths
from studio.planning.written import is_written
from studio.project import Project
from studio.views.typeset import split_heading
from studio.wordcount import word_count
from tests.fault_runner import differing, forked, kill_sweep, shard_points, tree_bytes
from tests.import_helpers import manuscript, write_source

COMPARED = ("chapters", "import", "volumes", "world", "state")


def _tree(root: Path) -> dict[str, bytes]:
    return tree_bytes(root, COMPARED, skip_temp=True)


def _record(root: Path) -> dict[str, object]:
    data = json.loads(ProjectPaths(root).import_record.read_text("utf-8"))
    for s in data["sources"]:
        s.pop("imported_at")
    return data


def test_fresh_import_writes_a_project_every_reader_accepts(tmp_path: Path) -> None:
    ms = manuscript(4, volumes=[("第一卷 起风", 3), ("第二卷 承接", 3)], prologue=True, extra=True)
    src = write_source(tmp_path, ms)
    root = tmp_path / "book"
    record = write_project(ms, src, root)

    project = Project.open(root)
    assert project.validate_all(include_text=True) == []
    assert project.committed_chapters() == [1, 2, 3, 4, 5, 6]
    assert project.last_completed_chapter == 6 and project.current_volume == 2
    assert refusals(check_cold_start(project.paths)) == []
    ensure_can_start(project.paths)

    # chapters: the product's heading with the project number, the author's text unchanged
    for ch, n in zip(ms.chapters, range(1, 7), strict=True):
        text = project.chapter_text(n)
        assert text is not None
        heading, body, _ = split_heading(text)
        assert heading is not None and heading.startswith(f"# 第{n}章")
        assert body.rstrip("\n") == ch.text
        assert word_count(text) == word_count(ch.text)
    assert project.chapter_text(1).startswith("# 第1章 楔子 风起\n")  # type: ignore[union-attr]
    assert project.chapter_text(6).startswith("# 第6章 番外 后来\n")  # type: ignore[union-attr]

    # the source, byte for byte
    assert (root / "import" / "book.txt").read_bytes() == src.read_bytes()

    # volumes: one outline each, entries marked written, the source heading kept
    first = parse_outline((root / "volumes/vol-01/outline.md").read_text("utf-8"), "vol-01")
    second = parse_outline((root / "volumes/vol-02/outline.md").read_text("utf-8"), "vol-02")
    assert first.title == "第一卷 起风" and second.title == "第二卷 承接"
    assert first.chapter_range == (1, 3) and second.chapter_range == (4, 6)
    assert all(is_written(c) for c in [*first.chapters, *second.chapters])
    assert first.chapters[1].extra["Source"] == "第1章 标题1"

    assert [c.kind for c in record.chapters] == ["prologue", "chapter", "chapter", "chapter", "chapter", "extra"]
    assert record.chapters[1].source_number == 1 and record.last_chapter == 6
    assert ImportRecord.load(project.paths.import_record) == record
    assert not journal_path(project.paths).exists()
    notes = [f.key for f in check_cold_start(project.paths)]
    assert notes == ["import_not_extracted"]


def test_extracted_book_has_no_note(tmp_path: Path) -> None:
    ms = manuscript(3)
    root = tmp_path / "book"
    record = write_project(ms, write_source(tmp_path, ms), root)
    record.extracted_through = 3
    record.save(ProjectPaths(root).import_record)
    assert check_cold_start(ProjectPaths(root)) == []


def test_import_into_a_project_is_refused_and_changes_nothing(tmp_path: Path) -> None:
    root = init_project(tmp_path / "existing", sample=True)
    before = tree_bytes(root, (".",))
    ms = manuscript(3)
    with pytest.raises(ImportRefused, match="--append"):
        write_project(ms, write_source(tmp_path, ms), root)
    assert tree_bytes(root, (".",)) == before


def test_import_into_a_non_empty_folder_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "notes"
    root.mkdir()
    (root / "todo.txt").write_text("x", "utf-8")
    ms = manuscript(2)
    with pytest.raises(ImportRefused, match="todo.txt"):
        write_project(ms, write_source(tmp_path, ms), root)
    assert sorted(p.name for p in root.iterdir()) == ["todo.txt"]


def test_append_without_a_project_is_refused(tmp_path: Path) -> None:
    ms = manuscript(2)
    with pytest.raises(ImportRefused):
        write_project(ms, write_source(tmp_path, ms), tmp_path / "new", append=True)
    assert not (tmp_path / "new").exists()


def test_append_adds_after_the_last_chapter(tmp_path: Path) -> None:
    root = tmp_path / "book"
    one = manuscript(3)
    write_project(one, write_source(tmp_path, one, "part1.txt"), root)
    two = manuscript(2, extra=True)
    src2 = write_source(tmp_path, two, "part2.txt")
    record = write_project(two, src2, root, append=True)

    project = Project.open(root)
    assert project.committed_chapters() == [1, 2, 3, 4, 5, 6]
    assert project.last_completed_chapter == 6 and project.current_volume == 1
    outline = parse_outline((root / "volumes/vol-01/outline.md").read_text("utf-8"), "o")
    assert [c.number for c in outline.chapters] == [1, 2, 3, 4, 5, 6]
    assert [s.name for s in record.sources] == ["part1.txt", "part2.txt"]
    assert record.sources[1].first_chapter == 4 and record.sources[1].last_chapter == 6
    assert (root / "import" / "part2.txt").read_bytes() == src2.read_bytes()
    assert project.chapter_text(4).startswith("# 第4章 标题1\n")  # type: ignore[union-attr]
    assert refusals(check_cold_start(project.paths)) == []


def test_append_with_volume_headings_starts_new_volumes(tmp_path: Path) -> None:
    root = tmp_path / "book"
    one = manuscript(2)
    write_project(one, write_source(tmp_path, one, "a.txt"), root)
    two = manuscript(4, volumes=[("第三卷 远行", 2), ("第四卷 归来", 2)])
    write_project(two, write_source(tmp_path, two, "b.txt"), root, append=True)
    project = Project.open(root)
    assert project.current_volume == 3
    assert parse_outline((root / "volumes/vol-02/outline.md").read_text("utf-8"), "o").chapter_range == (3, 4)
    assert parse_outline((root / "volumes/vol-03/outline.md").read_text("utf-8"), "o").chapter_range == (5, 6)


def test_same_name_from_another_source_is_stored_beside(tmp_path: Path) -> None:
    root = tmp_path / "book"
    one = manuscript(2)
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    write_project(one, write_source(tmp_path / "a", one), root)
    two = manuscript(3)
    record = write_project(two, write_source(tmp_path / "b", two), root, append=True)
    assert [s.stored_as for s in record.sources] == ["book.txt", "book-2.txt"]


def test_append_refused_while_a_chapter_is_in_flight(tmp_path: Path) -> None:
    root = tmp_path / "book"
    one = manuscript(2)
    write_project(one, write_source(tmp_path, one), root)
    paths = ProjectPaths(root)
    cp = Checkpoint.load(paths.checkpoint)
    cp.inflight_chapter, cp.pipeline_stage = 3, PipelineStage.DRAFTED
    save_checkpoint(paths, cp)
    before = tree_bytes(root, (".",))
    with pytest.raises(ImportRefused, match="undo"):
        write_project(one, write_source(tmp_path, one, "more.txt"), root, append=True)
    assert tree_bytes(root, (".",)) == before


def test_a_held_lock_refuses(tmp_path: Path) -> None:
    root = tmp_path / "book"
    one = manuscript(2)
    write_project(one, write_source(tmp_path, one), root)
    with ProjectLock(ProjectPaths(root)), pytest.raises(LockHeldError):
        write_project(one, write_source(tmp_path, one, "more.txt"), root, append=True)


def test_pending_import_refuses_another_and_the_same_one_finishes(tmp_path: Path) -> None:
    ms = manuscript(4)
    src = write_source(tmp_path, ms)
    root = tmp_path / "book"
    def body() -> int:
        write_project(ms, src, root)
        return 0

    assert forked(body, None, tmp_path / "count.txt") == 0
    writes = int((tmp_path / "count.txt").read_text())
    shutil.rmtree(root)
    code = forked(body, writes - 3)  # dies among the last writes (outline, checkpoint, record)
    assert code == -signal.SIGKILL
    paths = ProjectPaths(root)
    journal = load_journal(paths)
    assert journal is not None and journal.last_chapter == 4
    assert [f.key for f in refusals(check_cold_start(paths))] == ["import_unfinished"]
    other = manuscript(5)
    lock = ProjectLock(paths)
    lock.acquire(take_over_stale=True)  # what the CLI does after asking
    try:
        with pytest.raises(ImportRefused, match="book.txt"):
            write_project(other, write_source(tmp_path, other, "other.txt"), root, locked=True)
        write_project(ms, src, root, locked=True)
    finally:
        lock.release()
    assert Project.open(root).committed_chapters() == [1, 2, 3, 4]
    assert refusals(check_cold_start(paths)) == []


SHARDS = 3


def _kill_everywhere(tmp_path: Path, start: Path | None, ms_source: tuple[object, Path], append: bool,
                     shard: int) -> None:
    """Kill the import at every write point of this shard (every SHARDS-th), rerun it, and compare with an
    uninterrupted import. The shards together check every point."""
    ms, src = ms_source

    def run(root: Path) -> int:
        lock = ProjectLock(ProjectPaths(root))
        if root.is_dir():
            lock.acquire(take_over_stale=True)
        else:
            root.mkdir(parents=True)
            lock.acquire()
        try:
            write_project(ms, src, root, append=append, locked=True)  # type: ignore[arg-type]
        finally:
            lock.release()
        return 0

    def fresh(name: str | int) -> Path:
        root = tmp_path / (name if isinstance(name, str) else f"kill-{name}")
        if start is not None:
            shutil.copytree(start, root)
        return root

    reference = fresh("reference")
    count = tmp_path / "writes.txt"
    assert forked(lambda: run(reference), None, count) == 0
    writes = int(count.read_text())
    expected, expected_record = _tree(reference), _record(reference)
    expected_cp = Checkpoint.load(ProjectPaths(reference).checkpoint).last_completed_chapter
    assert writes >= 8

    def check(root: Path) -> list[str]:
        problems: list[str] = []
        if differ := differing(expected, _tree(root)):
            problems.append(f"differs: {differ}")
        if _record(root) != expected_record:
            problems.append("import record differs")
        paths = ProjectPaths(root)
        if Checkpoint.load(paths.checkpoint).last_completed_chapter != expected_cp:
            problems.append("checkpoint differs")
        if journal_path(paths).exists() or refusals(check_cold_start(paths)):
            problems.append(f"not finished: {[f.key for f in check_cold_start(paths)]}")
        temps = [p for p in root.rglob("*.tmp") if ".novel.lock" not in p.parts]
        if temps:
            problems.append(f"temp files left {temps}")
        return problems

    sweep = kill_sweep(shard_points(writes, shard, SHARDS), fresh, run, check)
    assert sweep.checked == [n for n in range(1, writes + 1) if n % SHARDS == shard]
    assert not sweep.failures, "\n".join(sweep.failures)


# Not `serial`: each forked child kills itself at its own write point in its own folder, nothing races and nothing
# is timed, so the shards spread over the xdist workers.
@pytest.mark.parametrize("shard", range(SHARDS))
def test_fresh_import_killed_at_every_write_point_is_finished_by_a_rerun(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch,
                                                                         shard: int) -> None:
    monkeypatch.setenv("NOVEL_STUDIO_TEST_NO_FSYNC", "1")
    ms = manuscript(3, volumes=[("第一卷 甲", 2), ("第二卷 乙", 1)], prologue=True)
    src = write_source(tmp_path, ms)
    _kill_everywhere(tmp_path, None, (ms, src), append=False, shard=shard)


@pytest.mark.parametrize("shard", range(SHARDS))
def test_append_killed_at_every_write_point_never_duplicates(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                             shard: int) -> None:
    monkeypatch.setenv("NOVEL_STUDIO_TEST_NO_FSYNC", "1")
    start = tmp_path / "start"
    one = manuscript(2)
    write_project(one, write_source(tmp_path, one, "one.txt"), start)
    two = manuscript(3, extra=True)
    _kill_everywhere(tmp_path, start, (two, write_source(tmp_path, two, "two.txt")), append=True, shard=shard)


def test_render_keeps_the_text(tmp_path: Path) -> None:
    ms = manuscript(1)
    text = render_chapter(ms.chapters[0], 7)
    assert text == f"# 第7章 标题1\n\n{ms.chapters[0].text}\n"


def test_appending_the_same_source_twice_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "book"
    ms = manuscript(3)
    src = write_source(tmp_path, ms)
    write_project(ms, src, root)
    before = tree_bytes(root, (".",))
    with pytest.raises(ImportRefused, match="1-3"):
        write_project(ms, src, root, append=True)
    assert tree_bytes(root, (".",)) == before
