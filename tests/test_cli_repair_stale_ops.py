"""`repair` and a logged op that no longer applies (issue 11): it used to say "nothing to repair" while undo
failed on that very op. Now it shows the op, its chapter and line and why, and fixes the log only when the fix
gives back exactly the current state (backup first, the state file untouched); otherwise it says what to do by
hand and changes nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from studio.cli.main import main
from studio.paths import ProjectPaths
from studio.state_engine import load_changelog, replay


def _edit_line(paths: ProjectPaths, index: int, edit: object) -> None:
    lines = paths.changelog.read_text(encoding="utf-8").splitlines()
    data = json.loads(lines[index])
    edit(data)  # type: ignore[operator]
    lines[index] = json.dumps(data, ensure_ascii=False)
    paths.changelog.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _name_path(data: dict[str, object], name: str) -> None:
    ops = data["ops"]
    assert isinstance(ops, list) and ops[0]["path"] == "characters.shen-zhao.location"
    ops[0]["path"] = f"characters.{name}.location"


def test_a_display_name_in_a_logged_op_is_put_back_to_its_slug(
    sample: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    paths = ProjectPaths(sample)
    _edit_line(paths, 1, lambda d: _name_path(d, "沈照"))  # 沈照 is shen-zhao's display name
    before = paths.changelog.read_bytes()
    state_before = paths.current_state.read_bytes()

    assert main(["repair", "--yes", "--project", str(sample)]) == 0
    out = capsys.readouterr().out
    assert "未发现需要修复的问题" not in out
    assert "state/changelog.jsonl 第 2 行（第 1 章）" in out and "characters.沈照.location" in out
    assert "实体 id '沈照' 必须是 slug" in out and "characters.shen-zhao.location" in out
    assert "重放的结果与当前状态完全一致" in out

    old, new = before.splitlines(), paths.changelog.read_bytes().splitlines()
    assert old[0] == new[0] and old[2:] == new[2:]  # only the stale line is rewritten
    assert json.loads(new[1])["ops"][0]["path"] == "characters.shen-zhao.location"
    assert paths.current_state.read_bytes() == state_before
    assert replay(load_changelog(paths.changelog)).to_data() == json.loads(state_before)
    (backup,) = (sample / ".novel-studio" / "repair").iterdir()
    assert (backup / "state" / "changelog.jsonl").read_bytes() == before

    assert main(["repair", "--yes", "--project", str(sample)]) == 0
    assert "未发现需要修复的问题" in capsys.readouterr().out
    assert main(["undo", "--yes", "--project", str(sample)]) == 0  # it failed on that op before


def test_an_op_whose_skipping_changes_nothing_is_kept_in_the_line_and_skipped(
    sample: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    paths = ProjectPaths(sample)
    added = {"op": "set", "path": "characters.无名氏.mood", "value": "慌张"}  # names nobody the state knows
    _edit_line(paths, 1, lambda d: d["ops"].append(added))

    assert main(["repair", "--yes", "--project", str(sample), "--lang", "en"]) == 0
    out = capsys.readouterr().out
    assert "line 2 of state/changelog.jsonl (chapter 1)" in out and "moves to the line's warnings" in out
    entry = load_changelog(paths.changelog)[1]
    assert added not in [op.to_data() for op in entry.ops]
    (marked,) = [w for w in entry.warnings if w.code == "marked_by_repair"]
    assert marked.entry == added  # the author's op stays in the file, word for word
    assert "novel-studio repair" in marked.reason
    assert replay(load_changelog(paths.changelog)).to_data() == json.loads(paths.current_state.read_bytes())


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_an_op_that_cannot_be_fixed_exactly_is_explained_and_nothing_changes(
    sample: Path, capsys: pytest.CaptureFixture[str], lang: str
) -> None:
    paths = ProjectPaths(sample)
    _edit_line(paths, 1, lambda d: _name_path(d, "林枫"))  # no such character: skipping it loses a change
    before = paths.changelog.read_bytes()

    assert main(["repair", "--yes", "--project", str(sample), "--lang", lang]) == 1
    out = capsys.readouterr().out
    if lang == "zh":
        assert "无法自动修复" in out and "第 2 行（第 1 章）" in out and "characters.林枫.location" in out
        assert "手动处理" in out and "撤销第 1 章之后的章节会失败" in out
    else:
        assert "cannot be fixed safely" in out and "line 2 of state/changelog.jsonl (chapter 1)" in out
        assert "By hand" in out
    assert "nothing to repair" not in out and "未发现" not in out
    assert paths.changelog.read_bytes() == before
    assert not (sample / ".novel-studio" / "repair").exists()


def test_a_state_that_cannot_be_rebuilt_because_of_a_stale_op_names_that_op(
    sample: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """State behind its log (an interrupted merge) and the op to re-apply no longer applies: the way out names the
    op, not a missing snapshot (it said "the log does not start at version 0 and no snapshot exists")."""
    paths = ProjectPaths(sample)

    def stale_second_op(data: dict[str, object]) -> None:
        ops = data["ops"]
        assert isinstance(ops, list)
        ops[0]["path"] = ops[0]["path"].replace("shen-zhao", "林枫")

    _edit_line(paths, 2, stale_second_op)
    state = json.loads(paths.current_state.read_text(encoding="utf-8"))
    state["state_version"] -= 1
    paths.current_state.write_text(json.dumps(state, ensure_ascii=False), encoding="utf-8")
    before = paths.changelog.read_bytes(), paths.current_state.read_bytes()

    assert main(["repair", "--yes", "--project", str(sample)]) == 1
    out = capsys.readouterr().out
    assert "无法按变更日志重建 state/current-state.json：第 3 行（第 2 章）" in out and "characters.林枫." in out
    assert "没有可用的快照" not in out
    assert (paths.changelog.read_bytes(), paths.current_state.read_bytes()) == before


@pytest.mark.parametrize(("folder", "name"), [("tools", "tx1.json"), ("plan", "apply-vol-01.json")])
def test_an_unreadable_commit_journal_is_named_with_the_way_out(
    sample: Path, capsys: pytest.CaptureFixture[str], folder: str, name: str
) -> None:
    """Trying to break tools and planning: a commit journal that cannot be read made `continue` refuse while
    `repair` said "nothing to repair"."""
    journal = sample / "staging" / folder / name
    journal.parent.mkdir(parents=True, exist_ok=True)
    journal.write_text('{"id": 3', encoding="utf-8")

    assert main(["continue", "--offline", "--yes", "--project", str(sample)]) == 1
    capsys.readouterr()
    assert main(["repair", "--yes", "--project", str(sample)]) == 1
    out = capsys.readouterr().out
    assert "未发现需要修复的问题" not in out
    assert f"{name}:1:9：不是有效的 JSON" in out and "提交日志，读不出来" in out and "手动处理" in out
    assert journal.read_text(encoding="utf-8") == '{"id": 3'  # left for the author


def _checkpoint_back_to_one(paths: ProjectPaths) -> None:
    from studio.models.checkpoint import Checkpoint, save_checkpoint

    cp = Checkpoint.load(paths.checkpoint)
    assert cp.last_completed_chapter == 2
    cp.last_completed_chapter = 1
    save_checkpoint(paths, cp)


def test_a_checkpoint_behind_chapters_and_log_on_disk_catches_up(
    sample: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The cold start says "run novel-studio repair (it sets the checkpoint back in line with the disk)"; repair
    answered that it could not (the same sentence, as a thing for the author to do)."""
    from studio.models.checkpoint import Checkpoint

    paths = ProjectPaths(sample)
    _checkpoint_back_to_one(paths)
    assert main(["continue", "--offline", "--yes", "--project", str(sample)]) == 1
    assert "novel-studio repair" in capsys.readouterr().err

    assert main(["repair", "--yes", "--project", str(sample)]) == 0
    out = capsys.readouterr().out
    assert "检查点只记录到第 1 章，但第 2 章的正文和状态变更都已在磁盘上" in out
    assert Checkpoint.load(paths.checkpoint).last_completed_chapter == 2
    assert main(["repair", "--yes", "--project", str(sample)]) == 0
    assert "未发现需要修复的问题" in capsys.readouterr().out


def test_a_log_ahead_of_missing_chapters_says_what_to_do_by_hand(
    sample: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    paths = ProjectPaths(sample)
    _checkpoint_back_to_one(paths)
    paths.chapter(2).unlink()
    before = paths.checkpoint.read_bytes()
    assert main(["repair", "--yes", "--project", str(sample)]) == 1
    out = capsys.readouterr().out
    assert "变更日志已含第 2 章的状态变更，但 chapters/ 中没有第 2 章" in out and "repair 无法判断" in out
    assert "会把检查点改回与磁盘一致" not in out  # no loop back to repair itself
    assert paths.checkpoint.read_bytes() == before
