"""Foreshadowing ledger transitions from foreshadow ops, and the overdue rule."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from studio.foreshadow_ledger import apply_foreshadow_ops, overdue_items
from studio.models.foreshadowing import ForeshadowingItem, ForeshadowingLedger
from studio.models.patch import StateOp
from studio.state_engine import validate_ops


def _ops(*entries: tuple[str, str] | tuple[str, str, str]) -> list[StateOp]:
    raw: list[dict[str, Any]] = []
    for e in entries:
        d: dict[str, Any] = {"op": "foreshadow", "path": e[0], "value": e[1]}
        if len(e) == 3:
            d["detail"] = e[2]
        raw.append(d)
    valid, warnings = validate_ops(raw)
    assert warnings == []
    return valid


def test_planted_advanced_resolved() -> None:
    ledger = ForeshadowingLedger()
    ledger, w = apply_foreshadow_ops(ledger, _ops(("ancient_prophecy", "planted", "老者口中提及预言碎片")), 3, "main-arc")
    assert w == []
    item = ledger.get("ancient_prophecy")
    assert item is not None
    assert (item.status, item.planted_chapter, item.planted_storyline, item.last_updated_chapter) == (
        "planted",
        3,
        "main-arc",
        3,
    )
    assert item.description == "老者口中提及预言碎片"
    ledger, w = apply_foreshadow_ops(ledger, _ops(("ancient_prophecy", "advanced", "石板")), 15, "side")
    ledger, w2 = apply_foreshadow_ops(ledger, _ops(("ancient_prophecy", "advanced", "梦")), 48, "main-arc")
    item = ledger.get("ancient_prophecy")
    assert item is not None and w == w2 == []
    assert item.status == "advanced" and item.last_updated_chapter == 48
    assert item.planted_storyline == "main-arc" and item.planted_chapter == 3
    ledger, w = apply_foreshadow_ops(ledger, _ops(("ancient_prophecy", "resolved", "真相")), 60, "main-arc")
    item = ledger.get("ancient_prophecy")
    assert item is not None and w == []
    assert item.status == "resolved"
    assert [(h.chapter, h.action, h.detail) for h in item.history] == [
        (3, "planted", "老者口中提及预言碎片"),
        (15, "advanced", "石板"),
        (48, "advanced", "梦"),
        (60, "resolved", "真相"),
    ]


def test_pure_and_other_ops_ignored() -> None:
    ledger = ForeshadowingLedger.parse_data({"foreshadowing": [{"id": "a", "scope": "short"}]})
    before = ledger.to_data()
    ops = validate_ops([{"op": "set", "path": "world_state.x", "value": 1}])[0] + _ops(("a", "advanced"))
    new, _ = apply_foreshadow_ops(ledger, ops, 5, "main")
    assert ledger.to_data() == before
    assert new.get("a") is not None and new.get("a").status == "advanced"  # type: ignore[union-attr]
    assert new.get("a").scope == "short"  # type: ignore[union-attr]


def test_surprises_are_warnings_and_history() -> None:
    ledger = ForeshadowingLedger()
    ledger, w = apply_foreshadow_ops(ledger, _ops(("x", "advanced", "无中生有")), 7, "main")
    item = ledger.get("x")
    assert item is not None and item.status == "advanced" and item.planted_chapter is None
    assert len(w) == 1 and "never planted" in w[0].reason
    ledger, w = apply_foreshadow_ops(ledger, _ops(("y", "resolved")), 8, "main")
    assert ledger.get("y").status == "resolved" and len(w) == 1  # type: ignore[union-attr]
    ledger, w = apply_foreshadow_ops(ledger, _ops(("y", "resolved")), 9, "main")
    assert len(w) == 1 and "already resolved" in w[0].reason
    ledger, w = apply_foreshadow_ops(ledger, _ops(("y", "advanced")), 10, "main")
    assert ledger.get("y").status == "advanced" and "reopened" in w[0].reason  # type: ignore[union-attr]
    ledger, w = apply_foreshadow_ops(ledger, _ops(("y", "planted", "再埋")), 11, "main")
    item = ledger.get("y")
    assert item is not None and item.status == "advanced" and "already planted" in w[0].reason
    assert [h.action for h in item.history] == ["resolved", "resolved", "advanced", "planted"]
    assert len(ledger.foreshadowing) == 2


def test_a_planned_thread_planted_in_its_planned_chapter_is_no_surprise() -> None:
    ledger = ForeshadowingLedger()
    ledger, _ = apply_foreshadow_ops(ledger, _ops(("z", "planted", "旧铜牌")), 1, "main")  # as a plan registers it
    ledger, w = apply_foreshadow_ops(ledger, _ops(("z", "planted", "旧铜牌")), 1, "main")  # the chapter plants it
    assert w == []
    ledger, w = apply_foreshadow_ops(ledger, _ops(("z", "planted")), 4, "main")
    assert len(w) == 1 and "already planted (chapter 1)" in w[0].reason


def test_several_ops_in_one_chapter_apply_in_order() -> None:
    ledger, w = apply_foreshadow_ops(ForeshadowingLedger(), _ops(("a", "planted"), ("a", "resolved")), 2, "m")
    assert w == [] and ledger.get("a").status == "resolved"  # type: ignore[union-attr]


def _item(**kw: Any) -> ForeshadowingItem:
    return ForeshadowingItem.model_validate({"id": "a", **kw})


def test_overdue_only_short_scope_past_range() -> None:
    ledger = ForeshadowingLedger(
        foreshadowing=[
            _item(id="s-late", scope="short", target_resolve_range=[3, 10]),
            _item(id="s-edge", scope="short", target_resolve_range=[3, 11]),
            _item(id="s-done", scope="short", status="resolved", target_resolve_range=[3, 5]),
            _item(id="s-norange", scope="short"),
            _item(id="m-late", scope="medium", target_resolve_range=[3, 5]),
            _item(id="l-late", scope="long", target_resolve_range=[3, 5]),
            _item(id="s-adv", scope="short", status="advanced", target_resolve_range=[1, 2]),
        ]
    )
    assert [i.id for i in overdue_items(ledger, 11)] == ["s-late", "s-adv"]
    assert overdue_items(ledger, 2) == []


def test_ledger_file_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "foreshadowing" / "global.json"
    ledger, _ = apply_foreshadow_ops(ForeshadowingLedger(), _ops(("a", "planted", "伏笔")), 1, "main")
    ledger.save(path)
    assert ForeshadowingLedger.load(path) == ledger
    assert ForeshadowingLedger.load_or_default(tmp_path / "none.json") == ForeshadowingLedger()
