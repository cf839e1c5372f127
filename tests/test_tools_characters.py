"""Tool mode in the domain (studio.tools): rename updates every place listed in issue 7 item 6 and leaves the
committed chapters alone, retire refuses protected characters and archives the others, add and update
write valid character files, world rules get the next id, and every change is journaled and own-written."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from studio import own_writes
from studio.fileio import atomic_write_json, dumps_json, read_json, read_text
from studio.models.character import CharacterFile
from studio.models.state import CurrentState
from studio.models.world_rules import WorldRules
from studio.outline import parse_outline
from studio.paths import ProjectPaths
from studio.project import Project
from studio.state_engine import load_changelog, replay
from studio.tools.characters import (
    RetireBlocked,
    add_character,
    parse_fields,
    rename_character,
    retire_blockers,
    retire_character,
    update_character,
)
from studio.tools.replies import ToolCharacter
from studio.tools.shared import ToolError, retired_dir
from studio.tools.txn import apply_changes, pending_tool_changes
from studio.tools.world import add_rule, update_rule

PLUGIN = Path(__file__).parent / "fixtures" / "plugin-project"


def _apply(plan: object) -> None:
    from studio.tools.plan import ToolPlan

    assert isinstance(plan, ToolPlan)
    assert apply_changes(plan.changes, command=plan.command, summary=plan.title) is not None


def _state(paths: ProjectPaths) -> CurrentState:
    return CurrentState.load(paths.current_state)


def _log_matches_state(paths: ProjectPaths) -> None:
    assert replay(load_changelog(paths.changelog)).to_data() == _state(paths).to_data()


@pytest.fixture
def plugin(tmp_path: Path) -> Path:
    root = tmp_path / "plugin"
    shutil.copytree(PLUGIN, root)
    return root


# ------------------------------------------------------------------------------------------ rename


def test_rename_keeps_the_slug_and_updates_every_place_still_to_come(sample: Path) -> None:
    paths = ProjectPaths(sample)
    chapters = {n: paths.chapter(n).read_bytes() for n in (1, 2)}
    written_contracts = {n: paths.contract(1, n).read_bytes() for n in (1, 2)}
    summaries = {n: paths.summary(n).read_bytes() for n in (1, 2)}
    atomic_write_json(paths.names, {"entities": [{"name": "沈记灯铺", "kind": "location", "aliases": ["沈照家的铺子"]}]})
    outline_before = parse_outline(read_text(paths.outline(1)), paths.outline(1))

    plan = rename_character(paths, "shen-zhao", "沈昭")
    assert plan.data["old_name_in_committed_chapters"] == {"1": 23, "2": 30}
    assert set(plan.impact.written) == {1, 2} and min(plan.impact.unwritten) == 3
    _apply(plan)

    project = Project.open(sample)  # every file still valid
    assert project.characters["shen-zhao"].display_name == "沈昭"
    assert _state(paths).characters["shen-zhao"].display_name == "沈昭"
    _log_matches_state(paths)
    assert load_changelog(paths.changelog)[-1].kind == "tool"
    assert "沈昭" in read_text(paths.character_profile("gu-yuan-zhou"))  # another character's profile
    assert "沈照家的铺子" not in read_text(paths.names) and "沈昭家的铺子" in read_text(paths.names)
    assert "沈照" not in read_text(paths.storylines)
    outline = parse_outline(read_text(paths.outline(1)), paths.outline(1))
    for before, after in zip(outline_before.chapters, outline.chapters, strict=True):
        if before.number <= 2:
            assert before == after  # written chapters' outline entries are records
        else:
            assert "沈照" not in after.model_dump_json()
    for n in range(3, 11):
        assert "沈照" not in read_text(paths.contract(1, n))
    assert {n: paths.contract(1, n).read_bytes() for n in (1, 2)} == written_contracts
    assert {n: paths.chapter(n).read_bytes() for n in (1, 2)} == chapters  # committed text never changes
    assert {n: paths.summary(n).read_bytes() for n in (1, 2)} == summaries
    log = read_text(sample / "characters" / "changelog.md")
    assert "改名：沈照 → 沈昭" in log and "第1章（23处）" in log
    assert pending_tool_changes(paths) == []


def test_rename_with_a_new_slug_moves_files_and_keys(sample: Path) -> None:
    paths = ProjectPaths(sample)
    _apply(rename_character(paths, "shen-zhao", "沈昭", new_slug="shen-zhao-2", keep_alias=True))
    assert not paths.character("shen-zhao").exists() and not paths.character_profile("shen-zhao").exists()
    moved = CharacterFile.load(paths.character("shen-zhao-2"))
    assert (moved.id, moved.display_name, moved.aliases) == ("shen-zhao-2", "沈昭", ["沈照"])
    state = _state(paths)
    assert "shen-zhao" not in state.characters and state.characters["shen-zhao-2"].display_name == "沈昭"
    assert state.characters["xu-qing-he"].relationships == {"shen-zhao-2": 5}
    rels = read_json(sample / "characters" / "relationships.json")["relationships"]
    assert all("shen-zhao" not in (r["from"], r["to"]) for r in rels)
    project = Project.open(sample)
    assert project.storylines.storylines[0].pov_characters == ["shen-zhao-2"]
    outline = parse_outline(read_text(paths.outline(1)), paths.outline(1))
    assert {c.pov for c in outline.chapters if c.number <= 2} == {"shen-zhao"}
    assert "shen-zhao" not in {c.pov for c in outline.chapters if c.number > 2}
    contract = read_json(paths.contract(1, 5))
    assert "shen-zhao-2" in contract["preconditions"]["character_states"]
    _log_matches_state(paths)


def test_rename_refuses_a_name_in_use_and_changes_nothing(sample: Path) -> None:
    paths = ProjectPaths(sample)
    before = paths.character("shen-zhao").read_bytes()
    with pytest.raises(ToolError, match="许青禾"):
        rename_character(paths, "shen-zhao", "许青禾")
    with pytest.raises(ToolError, match="已存在"):
        rename_character(paths, "shen-zhao", "沈昭", new_slug="xu-qing-he")
    assert paths.character("shen-zhao").read_bytes() == before


def test_rename_on_the_plugin_project(plugin: Path) -> None:
    paths = ProjectPaths(plugin)
    _apply(rename_character(paths, "shen-zhao", "沈昭", new_slug="shen-zhao-x"))
    Project.open(plugin)
    outline = read_text(paths.outline(1))
    assert outline.count("- **POV**: shen-zhao\n") == 2 and "- **POV**: shen-zhao-x" in outline  # ch 3 only
    assert "沈昭" in read_text(paths.volume_dir(1) / "chapter-contracts" / "chapter-003.md")
    assert json.loads(read_text(paths.character("a-ning")))["relationships"][0]["target"] == "shen-zhao-x"
    _log_matches_state(paths)  # the plugin's foreign log got an init snapshot first


# ------------------------------------------------------------------------------------------ retire


def test_retire_refuses_a_protected_character_and_says_why(sample: Path) -> None:
    paths = ProjectPaths(sample)
    with pytest.raises(RetireBlocked) as caught:
        retire_character(paths, "gu-yuan-zhou")
    text = "\n".join(caught.value.blockers)
    assert "grandfather-ledger" in text  # an open medium thread names him
    assert "fog-tide" in text  # the POV of a storyline
    assert "main-arc ↔ fog-tide" in text  # a shared character of two storylines
    assert "交汇事件（第 9-10 章）" in text  # a convergence event still to come
    assert paths.character("gu-yuan-zhou").is_file()


def test_protection_rules_one_by_one(sample: Path) -> None:
    paths = ProjectPaths(sample)
    _apply(add_character(paths, "周衡", role="反派"))
    assert retire_blockers(paths, "zhou-heng") == []
    ledger = read_json(paths.global_foreshadowing)
    ledger["foreshadowing"].append({"id": "zhou-debt", "description": "周衡欠下的人情", "scope": "short",
                                    "status": "planted", "planted_chapter": 2})
    atomic_write_json(paths.global_foreshadowing, ledger)
    assert retire_blockers(paths, "zhou-heng") == []  # a short thread does not protect
    ledger["foreshadowing"][-1]["scope"] = "long"
    atomic_write_json(paths.global_foreshadowing, ledger)
    assert len(retire_blockers(paths, "zhou-heng")) == 1
    ledger["foreshadowing"][-1]["status"] = "resolved"
    atomic_write_json(paths.global_foreshadowing, ledger)
    assert retire_blockers(paths, "zhou-heng") == []  # a resolved one neither
    schedule = read_json(paths.schedule(1))
    schedule["convergence_events"].append({"chapter_range": [1, 2], "involved_storylines": ["main-arc"],
                                           "trigger": "周衡现身"})
    atomic_write_json(paths.schedule(1), schedule)
    assert retire_blockers(paths, "zhou-heng") == []  # a past event does not protect
    schedule["convergence_events"][-1]["chapter_range"] = [6, 7]
    atomic_write_json(paths.schedule(1), schedule)
    assert retire_blockers(paths, "zhou-heng")[0].startswith("第 1 卷交汇事件")
    schedule["convergence_events"].pop()
    atomic_write_json(paths.schedule(1), schedule)
    lines = read_json(paths.storylines)
    lines["storylines"][1]["status"] = "dormant"
    lines["storylines"][1]["pov_characters"].append("zhou-heng")
    atomic_write_json(paths.storylines, lines)
    assert "dormant" in retire_blockers(paths, "zhou-heng")[0]  # dormant storylines protect too


def test_retire_moves_the_files_and_clears_state_and_relationships(sample: Path) -> None:
    paths = ProjectPaths(sample)
    _apply(add_character(paths, "周衡", role="反派", relationships=[], brief="叛徒"))
    rels = read_json(sample / "characters" / "relationships.json")
    rels["relationships"].append({"from": "zhou-heng", "to": "shen-zhao", "type": "enemy", "score": -30})
    atomic_write_json(sample / "characters" / "relationships.json", rels)
    _apply(retire_character(paths, "zhou-heng", reason="第二卷死于雾中"))
    assert not paths.character("zhou-heng").exists()
    archived = read_json(retired_dir(paths) / "zhou-heng.json")
    assert archived["retired"]["reason"] == "第二卷死于雾中" and (retired_dir(paths) / "zhou-heng.md").is_file()
    assert "zhou-heng" not in _state(paths).characters
    assert all("zhou-heng" not in (r["from"], r["to"])
               for r in read_json(sample / "characters" / "relationships.json")["relationships"])
    _log_matches_state(paths)
    Project.open(sample)
    assert "退场：周衡（zhou-heng）" in read_text(sample / "characters" / "changelog.md")
    from studio.checks.names import NameRegistry

    registry = NameRegistry.load(Project.open(sample).characters, paths.names)
    assert registry.is_known("周衡")  # the checks still know the name in written chapters
    with pytest.raises(ToolError, match="names.json"):
        add_character(paths, "周衡")


def test_retire_on_the_plugin_project_is_protected_by_an_open_thread(plugin: Path) -> None:
    with pytest.raises(RetireBlocked, match="F-002"):
        retire_character(ProjectPaths(plugin), "a-ning")


# ------------------------------------------------------------------------------------------ add / update


def _draft(**changes: object) -> ToolCharacter:
    data: dict[str, object] = {
        "id": "zhou-heng", "display_name": "周衡", "role": "反派", "profile_md": "# 周衡\n\n叛徒。",
        "aliases": ["老周"], "contracts": [{"id": "C-ZHOU-HENG-001", "type": "capability", "rule": "不会灯术"}],
    }
    data.update(changes)
    return ToolCharacter.model_validate(data)


def test_add_from_a_draft_writes_file_profile_state_and_relationships(sample: Path) -> None:
    from studio.models.relationships import Relationship

    paths = ProjectPaths(sample)
    rel = Relationship.model_validate({"from": "zhou-heng", "to": "shen-zhao", "value": -20, "note": "宿敌"})
    ghost = Relationship.model_validate({"from": "zhou-heng", "to": "nobody", "value": 1})
    plan = add_character(paths, "周衡", draft=_draft(), relationships=[rel, ghost])
    _apply(plan)
    character = CharacterFile.load(paths.character("zhou-heng"))
    assert character.aliases == ["老周"] and character.contracts[0].id == "C-ZHOU-HENG-001"
    assert read_text(paths.character_profile("zhou-heng")).startswith("# 周衡")
    rels = read_json(sample / "characters" / "relationships.json")["relationships"]
    assert {"from": "zhou-heng", "to": "shen-zhao", "type": "", "score": -20, "description": "宿敌"} in rels
    assert all(r["to"] != "nobody" for r in rels)
    assert any("nobody" in line for line in plan.lines)
    assert _state(paths).characters["zhou-heng"].display_name == "周衡"
    _log_matches_state(paths)
    with pytest.raises(ToolError, match="已被角色"):
        add_character(paths, "老周")  # an alias is a name in use


def test_add_manual_skeleton_takes_a_free_slug(sample: Path) -> None:
    paths = ProjectPaths(sample)
    _apply(add_character(paths, "沈兆"))  # pinyin shen-zhao is taken
    assert CharacterFile.load(paths.character("shen-zhao-2")).display_name == "沈兆"
    assert CharacterFile.load(paths.character("shen-zhao-2")).contracts == []


def test_update_by_fields_and_by_draft(sample: Path) -> None:
    paths = ProjectPaths(sample)
    with pytest.raises(ToolError, match="rename"):
        update_character(paths, "xu-qing-he", fields={"display_name": "许清河"})
    with pytest.raises(ToolError, match="不合法"):
        update_character(paths, "xu-qing-he", fields=parse_fields(['contracts="x"']))
    _apply(update_character(paths, "xu-qing-he", fields=parse_fields(["age=25", "role=守灯司巡夜人·队长"])))
    data = read_json(paths.character("xu-qing-he"))
    assert (data["age"], data["role"]) == (25, "守灯司巡夜人·队长")
    draft = _draft(id="xu-qing-he", display_name="许青禾", aliases=["青禾"], contracts=[
        {"id": "C-XUQINGHE-001", "type": "capability", "rule": "掌四盏青铜灯"},
        {"id": "C-XUQINGHE-003", "type": "relationship", "rule": "信任沈照"},
    ])
    plan = update_character(paths, "xu-qing-he", draft=draft, note="她升任队长")
    _apply(plan)
    character = CharacterFile.load(paths.character("xu-qing-he"))
    assert [c.id for c in character.contracts] == ["C-XUQINGHE-001", "C-XUQINGHE-002", "C-XUQINGHE-003"]
    assert character.contracts[0].rule == "掌四盏青铜灯" and character.aliases == ["青禾"]
    assert any("C-XUQINGHE-003" in line for line in plan.lines)


# ------------------------------------------------------------------------------------------ world


def test_world_rule_add_and_update(sample: Path) -> None:
    paths = ProjectPaths(sample)
    plan = add_rule(paths, "雾中不能点第二盏灯", constraint_type="soft", category="magic_system")
    _apply(plan)
    rules = WorldRules.load(paths.world_rules)
    added = rules.get(plan.data["rule_id"])
    assert added is not None and (added.constraint_type, added.introduced_chapter) == ("soft", 3)
    with pytest.raises(ToolError, match=plan.data["rule_id"]):
        add_rule(paths, "雾中不能点第二盏灯")
    update = update_rule(paths, "W-002", text="新的措辞", exceptions=["灯主本人"])
    assert sorted(update.impact.unwritten) == [5, 6, 8, 10] and sorted(update.impact.written) == [1, 2]
    _apply(update)
    changed = WorldRules.load(paths.world_rules).get("W-002")
    assert changed is not None and (changed.rule, changed.exceptions) == ("新的措辞", ["灯主本人"])
    log = read_text(sample / "world" / "changelog.md")
    assert "修改规则 W-002" in log and "第5章" in log
    with pytest.raises(ToolError):
        update_rule(paths, "W-002", text="新的措辞", exceptions=["灯主本人"])  # nothing to change
    with pytest.raises(ToolError, match="W-404"):
        update_rule(paths, "W-404", text="x")


def test_world_rules_keep_unknown_fields(plugin: Path) -> None:
    paths = ProjectPaths(plugin)
    before = read_json(paths.world_rules)
    _apply(add_rule(paths, "渡口子时不收活人"))
    after = read_json(paths.world_rules)
    assert after["rules"][: len(before["rules"])] == before["rules"]
    assert {k: v for k, v in after.items() if k != "rules"} == {k: v for k, v in before.items() if k != "rules"}


# ------------------------------------------------------------------------------------------ writes


def test_every_write_is_recorded_as_the_apps_own(sample: Path) -> None:
    paths = ProjectPaths(sample)
    own_writes.clear()
    plan = rename_character(paths, "shen-zhao", "沈昭", new_slug="shen-zhao-2")
    files = plan.changes.changes()
    _apply(plan)
    for change in files:
        path = sample / change.path
        assert own_writes.is_own(path, path.read_bytes() if path.exists() else None), change.path


def test_a_broken_character_file_is_reported_and_never_rewritten(sample: Path) -> None:
    paths = ProjectPaths(sample)
    paths.character("xu-qing-he").write_text('{"display_name": ', "utf-8")
    with pytest.raises(Exception, match="xu-qing-he.json"):
        rename_character(paths, "shen-zhao", "沈昭")
    assert paths.character("xu-qing-he").read_text("utf-8") == '{"display_name": '
    assert dumps_json({}) == "{}\n"


# ------------------------------------------------------------------------------------------ other readers of the log


def test_undo_after_a_tool_change_refuses_instead_of_taking_it_back(sample: Path) -> None:
    from pipeline.undo import UndoError, undo_last_chapter

    paths = ProjectPaths(sample)
    _apply(rename_character(paths, "shen-zhao", "沈昭"))
    before = {p: p.read_bytes() for p in sample.rglob("*") if p.is_file()}
    with pytest.raises(UndoError, match="工具"):
        undo_last_chapter(paths)
    assert {p: p.read_bytes() for p in sample.rglob("*") if p.is_file()} == before


def test_the_state_diff_of_a_chapter_ignores_later_tool_lines(sample: Path) -> None:
    from studio.views.state_diff import state_diff_for_chapter

    paths = ProjectPaths(sample)
    expected = state_diff_for_chapter(Project.open(sample), 2)
    _apply(add_character(paths, "周衡"))
    got = state_diff_for_chapter(Project.open(sample), 2)
    assert expected is not None and got is not None
    assert got.state_version == expected.state_version == 2 and len(got.entities) == len(expected.entities) > 0


def test_update_merges_the_weavers_relationships(sample: Path) -> None:
    from studio.models.relationships import Relationship

    paths = ProjectPaths(sample)
    rel = Relationship.model_validate({"from": "xu-qing-he", "to": "shen-zhao", "value": 30, "note": "开始信任"})
    draft = _draft(id="xu-qing-he", display_name="许青禾", aliases=[], contracts=[
        {"id": "C-XUQINGHE-001", "type": "capability", "rule": "掌三盏青铜灯"}])
    _apply(update_character(paths, "xu-qing-he", draft=draft, relationships=[rel], note="关系升温"))
    rels = read_json(sample / "characters" / "relationships.json")["relationships"]
    mine = [r for r in rels if (r["from"], r["to"]) == ("xu-qing-he", "shen-zhao")]
    assert mine == [{"from": "xu-qing-he", "to": "shen-zhao", "type": "", "score": 30, "description": "开始信任"}]


def test_a_file_edited_after_the_diff_was_shown_is_not_overwritten(sample: Path) -> None:
    from studio.tools.txn import ChangedMeanwhile

    paths = ProjectPaths(sample)
    plan = rename_character(paths, "shen-zhao", "沈昭")
    edited = read_text(paths.outline(1)) + "\n作者刚加的一行\n"
    paths.outline(1).write_text(edited, "utf-8")
    before = {p: p.read_bytes() for p in sample.rglob("*") if p.is_file()}
    with pytest.raises(ChangedMeanwhile, match="outline.md"):
        apply_changes(plan.changes, command=plan.command)
    assert {p: p.read_bytes() for p in sample.rglob("*") if p.is_file()} == before
