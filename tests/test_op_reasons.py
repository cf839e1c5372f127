"""Why a state op was dropped (issue 11): stored as English text plus a code and params, shown in the author's
language (Chinese by default, English with lang="en"); older lines without a code show what they stored."""

from __future__ import annotations

import json
import re
import string
from pathlib import Path

from studio.foreshadow_ledger import apply_foreshadow_ops
from studio.models.changelog import ChangelogEntry, OpWarning
from studio.models.foreshadowing import ForeshadowingLedger
from studio.models.patch import StateOp
from studio.models.state import CurrentState
from studio.op_reasons import REASONS, reason_text, warning_line
from studio.state_engine import _apply_ops, validate_ops
from studio.views.state_diff import build_state_diff
from widgets.state_diff_view import render_state_diff

BAD_OPS: list[object] = [
    "not an object",
    {"path": "characters.lin-feng.location"},
    {"op": "move", "path": "characters.lin-feng.location", "value": 1},
    {"op": "set"},
    {"op": "set", "path": "characters.林枫.location", "value": "城里"},
    {"op": "set", "path": "a.b", "value": 1},
    {"op": "set", "path": "characters.lin-feng"},
    {"op": "inc", "path": "characters.lin-feng.age", "value": "一"},
    {"op": "foreshadow", "path": "fs.a", "value": "planted"},
    {"op": "foreshadow", "path": "fs-a", "value": "done"},
    {"op": "set", "path": "active_foreshadowing.x", "value": 1},
]


def _fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def test_the_catalog_is_complete_and_chinese_by_default() -> None:
    for code, (zh, en) in REASONS.items():
        assert {f.removesuffix("_zh") for f in _fields(zh)} == _fields(en), code  # the same params (a `_zh` twin allowed)
        assert re.search(r"[\u4e00-\u9fff]", zh), code


def test_dropped_entries_keep_their_english_reason_and_render_in_chinese() -> None:
    valid, warnings = validate_ops(BAD_OPS)
    assert valid == [] and len(warnings) == len(BAD_OPS)
    assert all(w.code in REASONS for w in warnings)
    slug = warnings[4]
    # the stored text is the English one every line has held; the author reads Chinese by default
    assert slug.reason == (
        "path 'characters.林枫.location': entity id '林枫' must be a slug (e.g. lin-feng), not a display name"
    )
    assert reason_text(slug) == "路径 'characters.林枫.location'：实体 id '林枫' 必须是 slug（例如 lin-feng），不能是显示名"
    assert reason_text(slug, "en") == slug.reason
    assert warnings[10].reason == (
        "active_foreshadowing is maintained by foreshadow ops ({op: foreshadow, path: <id>, value: planted})"
    )
    for w in warnings:
        assert reason_text(w, "en") == w.reason
        assert re.search(r"[\u4e00-\u9fff]", reason_text(w, "zh")), w.code


def test_conflicts_and_foreshadowing_notes_have_codes_too() -> None:
    state = CurrentState.model_validate({"characters": {"lin-feng": {"display_name": "林枫", "location": "城里"}}})
    _, applied, warnings = _apply_ops(
        state,
        [
            StateOp(op="inc", path="characters.lin-feng.location", value=1),
            StateOp(op="remove", path="characters.lin-feng.inventory", value="剑"),
        ],
    )
    assert applied == [] and [w.code for w in warnings] == ["inc_not_number", "remove_not_list"]
    assert reason_text(warnings[0]) == "无法对 characters.lin-feng.location 做 inc：它的值是 str '城里'，不是数字"
    _, notes = apply_foreshadow_ops(
        ForeshadowingLedger(), [StateOp(op="foreshadow", path="fs-a", value="advanced")], 3, None
    )
    assert notes[0].reason == "'fs-a' was never planted; created as advanced"
    assert reason_text(notes[0]) == "伏笔 'fs-a' 从未埋下；已按「advanced」新建"
    assert warning_line("foreshadowing", 3, notes[0]) == "第 3 章：伏笔：伏笔 'fs-a' 从未埋下；已按「advanced」新建"
    assert warning_line("dropped_op", 3, warnings[0], "en").startswith("chapter 3: dropped op (cannot inc")


def test_the_changelog_line_keeps_code_and_params_and_old_lines_still_read(tmp_path: Path) -> None:
    _, warnings = validate_ops([{"op": "set", "path": "a.b", "value": 1}])
    entry = ChangelogEntry(state_version=2, base_state_version=1, chapter=3, warnings=warnings)
    line = json.dumps(entry.to_data(), ensure_ascii=False)
    again = ChangelogEntry.model_validate(json.loads(line))
    assert again.warnings == warnings and reason_text(again.warnings[0]).startswith("路径 'a.b' 以 'a' 开头")
    old = OpWarning.model_validate({"entry": {"op": "set"}, "reason": "some older reason"})
    assert old.to_data() == {"entry": {"op": "set"}, "reason": "some older reason"}  # no new keys on old lines
    assert reason_text(old) == "some older reason"
    odd = OpWarning(entry=None, reason="stored", code="path_top", params={"path": "x"})  # params of another version
    assert reason_text(odd) == "stored"


def test_the_state_diff_shows_the_reason_in_the_authors_language() -> None:
    _, warnings = validate_ops([{"op": "set", "path": "characters.林枫.location", "value": "城里"}])
    diff = build_state_diff(CurrentState(), [], warnings, display_names={})
    assert "必须是 slug" in diff.render("zh") and "must be a slug" in diff.render("en")
    assert "必须是 slug" in render_state_diff(diff, "zh").plain
    assert "must be a slug" in render_state_diff(diff, "en").plain
