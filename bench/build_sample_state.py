"""Build the sample novel's state with the real state engine.

Writes, under templates/sample/:
- state/changelog.jsonl   an `init` entry (the starting state, version 0) + one `patch` line per chapter;
- state/current-state.json exactly what replaying that changelog gives;
- foreshadowing/global.json the ledger after the chapters' `foreshadow` ops, completed with the scope,
  target range and description planned in volumes/vol-01/foreshadowing.json.

Run from the repository root after editing the patches below:  .venv/bin/python bench/build_sample_state.py
Timestamps are fixed so that a rebuild without changes gives identical files.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from studio import state_engine  # noqa: E402
from studio.fileio import atomic_write_json, read_json  # noqa: E402
from studio.foreshadow_ledger import apply_foreshadow_ops  # noqa: E402
from studio.models.foreshadowing import ForeshadowingLedger  # noqa: E402
from studio.models.patch import StatePatch  # noqa: E402
from studio.models.state import CurrentState  # noqa: E402
from studio.paths import ProjectPaths  # noqa: E402

SAMPLE = ROOT / "templates" / "sample"

INITIAL_STATE: dict[str, Any] = {
    "schema_version": 1,
    "state_version": 0,
    "last_updated_chapter": 0,
    "characters": {
        "shen-zhao": {
            "display_name": "沈照",
            "location": "雾港·城南出租屋",
            "emotional_state": "疲惫",
            "relationships": {"xu-qing-he": 0, "gu-yuan-zhou": 40},
            "inventory": ["电动车钥匙", "沈记灯铺的钥匙"],
        },
        "xu-qing-he": {
            "display_name": "许青禾",
            "location": "城北",
            "emotional_state": "冷静",
            "relationships": {"shen-zhao": 0},
            "inventory": ["青铜灯×3", "守灯司登记册"],
        },
        "gu-yuan-zhou": {
            "display_name": "顾远舟",
            "location": "青石巷·远舟旧书店",
            "emotional_state": "平静",
            "relationships": {"shen-zhao": 40},
            "inventory": [],
        },
    },
    "locations": {
        "shen-ji-deng-pu": {"display_name": "沈记灯铺", "address": "青石巷十七号", "status": "封存"},
        "yuan-zhou-bookshop": {"display_name": "远舟旧书店", "address": "青石巷十五号", "status": "营业"},
    },
    "world_state": {"ongoing_events": [], "time_marker": "深秋·十月初七夜"},
    "active_foreshadowing": [],
}

PATCHES: list[dict[str, Any]] = [
    {
        "chapter": 1,
        "storyline_id": "main-arc",
        "recorded_at": "2026-03-15T23:33:05+08:00",
        "ops": [
            {"op": "set", "path": "characters.shen-zhao.location", "value": "青石巷·沈记灯铺"},
            {"op": "set", "path": "characters.shen-zhao.emotional_state", "value": "惊魂未定"},
            {"op": "add", "path": "characters.shen-zhao.inventory", "value": "长明灯（第七盏）"},
            {"op": "add", "path": "characters.shen-zhao.inventory", "value": "灯账"},
            {"op": "set", "path": "locations.shen-ji-deng-pu.status", "value": "封条已撕，长明灯重燃"},
            {"op": "set", "path": "world_state.time_marker", "value": "十月初七·子时"},
            {"op": "add", "path": "world_state.ongoing_events", "value": "青石巷长明灯熄灭"},
            {"op": "foreshadow", "path": "bell-in-fog", "value": "planted",
             "detail": "雾里先响铜铃，雾客随后用爷爷的声音叫“照儿”"},
            {"op": "foreshadow", "path": "grandfather-ledger", "value": "planted",
             "detail": "灯账最后一页写着“欠顾三盏”"},
        ],
    },
    {
        "chapter": 2,
        "storyline_id": "main-arc",
        "recorded_at": "2026-03-15T23:46:42+08:00",
        "ops": [
            {"op": "set", "path": "characters.shen-zhao.emotional_state", "value": "将信将疑"},
            {"op": "inc", "path": "characters.shen-zhao.relationships.xu-qing-he", "value": 10},
            {"op": "add", "path": "characters.shen-zhao.inventory", "value": "许青禾留下的电话号码"},
            {"op": "inc", "path": "characters.xu-qing-he.relationships.shen-zhao", "value": 5},
            {"op": "set", "path": "characters.xu-qing-he.location", "value": "青石巷"},
            {"op": "set", "path": "characters.xu-qing-he.emotional_state", "value": "疑虑"},
            {"op": "set", "path": "locations.yuan-zhou-bookshop.status", "value": "台灯熄灭"},
            {"op": "set", "path": "world_state.time_marker", "value": "十月初八·卯时"},
            {"op": "foreshadow", "path": "bell-in-fog", "value": "advanced",
             "detail": "许青禾：雾客不会摇铃，有人在引路；黑衣人提铃走出远舟旧书店"},
            {"op": "foreshadow", "path": "thirteenth-lamp", "value": "planted",
             "detail": "灯账记十三盏灯，守灯司在册十二盏，第十三行只有空圈"},
        ],
    },
]

INIT_RECORDED_AT = "2026-03-15T21:00:00+08:00"


@contextmanager
def _fixed_clock(stamp: str) -> Iterator[None]:
    """Freeze the engine's clock so the changelog is reproducible."""
    original = getattr(state_engine, "_now", None)
    if original is None:
        yield
        return
    state_engine._now = lambda: stamp
    try:
        yield
    finally:
        state_engine._now = original


def build(sample: Path = SAMPLE) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        paths = ProjectPaths(Path(tmp))
        with _fixed_clock(INIT_RECORDED_AT):
            state_engine.init_state(paths, CurrentState.model_validate(INITIAL_STATE))
        ledger = ForeshadowingLedger()
        for raw in PATCHES:
            state = state_engine.load_state(paths)
            patch = StatePatch(
                chapter=raw["chapter"],
                base_state_version=state.state_version,
                storyline_id=raw["storyline_id"],
                ops=raw["ops"],
            )
            with _fixed_clock(raw["recorded_at"]):
                entry = state_engine.merge_patch(paths, patch)
            if entry.warnings:
                raise SystemExit(f"chapter {patch.chapter}: ops dropped: {[w.reason for w in entry.warnings]}")
            ledger, warnings = apply_foreshadow_ops(ledger, entry.ops, patch.chapter, patch.storyline_id)
            if warnings:
                raise SystemExit(f"chapter {patch.chapter}: foreshadowing warnings: {[w.reason for w in warnings]}")

        # The ops only know what happened; the volume plan knows scope, target range and the description.
        plan = ForeshadowingLedger.parse_data(read_json(sample / "volumes" / "vol-01" / "foreshadowing.json"))
        items = []
        for item in ledger.foreshadowing:
            planned = plan.get(item.id)
            if planned is None:
                raise SystemExit(f"foreshadowing {item.id!r} is not in the volume plan")
            items.append(
                item.model_copy(
                    update={
                        "description": planned.description,
                        "scope": planned.scope,
                        "target_resolve_range": planned.target_resolve_range,
                    }
                )
            )
        ledger = ForeshadowingLedger.model_validate({"foreshadowing": [i.to_data() for i in items]})

        replayed = state_engine.replay(state_engine.load_changelog(paths.changelog))
        assert replayed.to_data() == state_engine.load_state(paths).to_data()

        out = ProjectPaths(sample)
        out.current_state.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(paths.changelog, out.changelog)
        shutil.copyfile(paths.current_state, out.current_state)
        atomic_write_json(out.global_foreshadowing, ledger.to_data())
    print(f"wrote {out.changelog}, {out.current_state}, {out.global_foreshadowing}")


if __name__ == "__main__":
    build()
