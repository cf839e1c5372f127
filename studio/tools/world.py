"""World rule tool mode (seed 000 §5.1 WorldBuilder incremental mode, §6.5.2 L1 rules; issue 7 item 6).

- add: a new L1 rule in `world/rules.json` with the next free `W-NNN` id, hard unless `soft`, introduced at
  the next chapter to write unless given; an identical rule text already there is refused (names its id).
- update: the rule's text, constraint type, category or exceptions; the id never changes; a change that
  changes nothing is refused. Unknown fields of the file and of the rule are kept.
Both append to `world/changelog.md` (old -> new) and report what the rule touches (`studio.tools.affects`:
unwritten contracts that require it, written chapters that were judged against it, character contracts that
name it). Built as a `ChangeSet`, applied by the CLI after the author says yes.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, Literal

from studio.fileio import dumps_json
from studio.i18n import Catalog, Lang, tr
from studio.models.world_rules import WorldRules
from studio.paths import ProjectPaths
from studio.tools.affects import rule_impact
from studio.tools.plan import ToolPlan
from studio.tools.shared import (
    ToolError,
    last_written_chapter,
    load_json_in,
    log_changelog_md,
    world_changelog,
)
from studio.tools.txn import ChangeSet

__all__ = ["add_rule", "next_rule_id", "update_rule"]

ConstraintType = Literal["hard", "soft"]

MESSAGES: Catalog = {
    "changelog": ("世界观变更记录", "World changes"),
    "t_add": ("新增规则 {id}", "added rule {id}"),
    "t_update": ("修改规则 {id}", "changed rule {id}"),
    "l_rule": ("{id}［{kind}］{rule}", "{id} [{kind}] {rule}"),
    "l_field": ("{key}：{old} → {new}", "{key}: {old} -> {new}"),
    "l_category": ("类别：{category}", "category: {category}"),
    "l_exceptions": ("例外：{items}", "exceptions: {items}"),
    "l_from": ("自第 {n} 章起", "from chapter {n}"),
    "l_affects": ("需要复查的未写章节契约：{items}", "unwritten chapter contracts to re-check: {items}"),
    "l_written": ("按旧规则评审过的已写章节：{items}", "written chapters judged against the old rule: {items}"),
    "l_chars": ("相关角色契约：{items}", "character contracts: {items}"),
    "hard": ("硬性", "hard"),
    "soft": ("软性", "soft"),
    "empty": ("规则内容不能为空", "the rule text cannot be empty"),
    "duplicate": ("已有相同的规则 {id}", "rule {id} already says this"),
    "no_rule": ("没有规则 {id}（world/rules.json）", "no rule {id} (world/rules.json)"),
    "nothing": ("没有需要修改的内容", "nothing to change"),
}

_RULE_ID = re.compile(r"^W-(\d+)$")


def next_rule_id(rules: WorldRules) -> str:
    numbers = [int(m.group(1)) for r in rules.rules if (m := _RULE_ID.match(r.id))]
    return f"W-{max(numbers, default=0) + 1:03d}"


def _load(changes: ChangeSet, paths: ProjectPaths) -> tuple[dict[str, Any], WorldRules]:
    data = load_json_in(changes, paths.world_rules)
    if data is None:
        data = {"rules": []}
    return data, WorldRules.parse_data(data, paths.world_rules)


def _kind(value: str, lang: Lang) -> str:
    return tr(MESSAGES, "hard" if value == "hard" else "soft", lang)


def _chapters(numbers: Sequence[int], lang: Lang) -> str:
    return "、".join(f"第{n}章" if lang == "zh" else f"ch {n}" for n in sorted(numbers))


def _finish(plan: ToolPlan, paths: ProjectPaths, lang: Lang) -> ToolPlan:
    impact = plan.impact
    if impact.unwritten:
        plan.lines.append(tr(MESSAGES, "l_affects", lang, items=_chapters(list(impact.unwritten), lang)))
    if impact.written:
        plan.lines.append(tr(MESSAGES, "l_written", lang, items=_chapters(list(impact.written), lang)))
    if impact.characters:
        plan.lines.append(tr(MESSAGES, "l_chars", lang, items="；".join(impact.characters)))
    log_changelog_md(plan.changes, world_changelog(paths), plan.title, plan.lines, heading=tr(MESSAGES, "changelog", lang))
    return plan


def add_rule(
    paths: ProjectPaths,
    text: str,
    *,
    constraint_type: ConstraintType = "hard",
    category: str = "",
    exceptions: Sequence[str] = (),
    chapter: int | None = None,
    lang: Lang = "zh",
) -> ToolPlan:
    text = " ".join(text.split())
    if not text:
        raise ToolError(tr(MESSAGES, "empty", lang))
    changes = ChangeSet(paths)
    data, rules = _load(changes, paths)
    same = next((r for r in rules.rules if " ".join(r.rule.split()) == text), None)
    if same is not None:
        raise ToolError(tr(MESSAGES, "duplicate", lang, id=same.id))
    rule_id = next_rule_id(rules)
    start = chapter or last_written_chapter(paths) + 1
    rule = {"id": rule_id, "category": category, "rule": text, "constraint_type": constraint_type,
            "exceptions": list(exceptions), "introduced_chapter": start}
    new = {**data, "rules": [*data.get("rules", []), rule]}
    WorldRules.parse_data(new, paths.world_rules)
    changes.write_text(paths.world_rules, dumps_json(new))
    lines = [tr(MESSAGES, "l_rule", lang, id=rule_id, kind=_kind(constraint_type, lang), rule=text),
             tr(MESSAGES, "l_from", lang, n=start)]
    if category:
        lines.append(tr(MESSAGES, "l_category", lang, category=category))
    if exceptions:
        lines.append(tr(MESSAGES, "l_exceptions", lang, items="；".join(exceptions)))
    plan = ToolPlan("world rule add", tr(MESSAGES, "t_add", lang, id=rule_id), changes,
                    rule_impact(paths, rule_id, lang=lang), lines, {"rule_id": rule_id, "rule": rule})
    return _finish(plan, paths, lang)


def update_rule(
    paths: ProjectPaths,
    rule_id: str,
    *,
    text: str | None = None,
    constraint_type: ConstraintType | None = None,
    category: str | None = None,
    exceptions: Sequence[str] | None = None,
    lang: Lang = "zh",
) -> ToolPlan:
    changes = ChangeSet(paths)
    data, rules = _load(changes, paths)
    raw = list(data.get("rules", []))
    index = next((i for i, r in enumerate(raw) if isinstance(r, dict) and r.get("id") == rule_id), None)
    if index is None:
        raise ToolError(tr(MESSAGES, "no_rule", lang, id=rule_id))
    old = dict(raw[index])
    new_rule = dict(old)
    if text is not None:
        text = " ".join(text.split())
        if not text:
            raise ToolError(tr(MESSAGES, "empty", lang))
        new_rule["rule"] = text
    if constraint_type is not None:
        new_rule["constraint_type"] = constraint_type
    if category is not None:
        new_rule["category"] = category
    if exceptions is not None:
        new_rule["exceptions"] = list(exceptions)
    if new_rule == old:
        raise ToolError(tr(MESSAGES, "nothing", lang))
    raw[index] = new_rule
    new = {**data, "rules": raw}
    WorldRules.parse_data(new, paths.world_rules)
    changes.write_text(paths.world_rules, dumps_json(new))
    lines = []
    for key in ("rule", "constraint_type", "category", "exceptions"):
        if old.get(key) != new_rule.get(key):
            before, after = old.get(key, ""), new_rule.get(key, "")
            if key == "constraint_type":
                before, after = _kind(str(before or "hard"), lang), _kind(str(after), lang)
            elif key == "exceptions":
                before, after = "；".join(before or []) or "-", "；".join(after or []) or "-"
            lines.append(tr(MESSAGES, "l_field", lang, key=key, old=before or "-", new=after or "-"))
    plan = ToolPlan("world rule update", tr(MESSAGES, "t_update", lang, id=rule_id), changes,
                    rule_impact(paths, rule_id, lang=lang), lines, {"rule_id": rule_id, "rule": new_rule})
    return _finish(plan, paths, lang)
