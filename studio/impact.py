"""The impact of a hand edit (issue 4 section 7): which facts the edited chapter now states differently,
and which later chapters may contradict them. Pure: plain data in, plain data out.

- `changed_facts(old_ops, new_ops)`: the chapter's *net effect* per state path (the last `set`, the sum of
  `inc`s, the items `add`ed / `remove`d) and per foreshadowing id (its actions), old against new; every
  key whose effect differs is a `Fact` (a character's location, an inventory item, a relationship score, a
  foreshadowing thread ...).
- `impacted_chapters(facts, later_entries, later_summaries)`: every later chapter whose stored patch touches
  a changed fact (the same path, the same entity, the same foreshadowing id) or whose summary mentions it
  (the entity's display name or slug, a changed value such as the old or new place, the foreshadowing id or
  description), with one human-readable reason per fact, using display names.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from studio.i18n import Catalog, Lang, tr
from studio.models.changelog import ChangelogEntry
from studio.models.patch import StateOp
from studio.views.state_diff import ACTION_LABELS, KIND_LABELS, field_label, format_value

ENTITY_TABLES = ("characters", "items", "locations", "factions")

MESSAGES: Catalog = {
    "fact": ("{label}：{old} → {new}", "{label}: {old} -> {new}"),
    "foreshadow": ("伏笔 {name}", "foreshadowing {name}"),
    "untouched": ("（未写）", "(not set)"),
    "same_path": ("本章状态补丁也写了这一项", "this chapter's patch writes the same field"),
    "same_entity": ("本章状态补丁涉及{name}（{fields}）", "this chapter's patch touches {name} ({fields})"),
    "same_thread": ("本章{actions}了这条伏笔", "this chapter {actions} this thread"),
    "mentions": ("本章摘要提到“{word}”", "this chapter's summary mentions \"{word}\""),
    "reason": ("{fact}（{why}）", "{fact} ({why})"),
    "sep": ("；", "; "),
    "added": ("增加", "added"),
    "removed": ("移除", "removed"),
}


@dataclass(frozen=True)
class Fact:
    """One thing the edited chapter now says differently. `key` is a state path
    (`characters.shen-zhao.location`) or, for `kind == "foreshadow"`, a foreshadowing id. `old` / `new` are
    the chapter's net effect on it before / after the edit (None: the chapter did not touch it)."""

    key: str
    old: Any
    new: Any
    kind: str = "state"  # "state" | "foreshadow"

    @property
    def entity(self) -> str:
        """`characters.shen-zhao`, `world_state.time_marker`, or the foreshadowing id."""
        if self.kind == "foreshadow":
            return self.key
        return ".".join(self.key.split(".")[:2])

    @property
    def slugs(self) -> tuple[str, ...]:
        """Entity slugs the fact is about: the entity, plus a relationship's other party."""
        if self.kind == "foreshadow":
            return ()
        parts = self.key.split(".")
        out: list[str] = []
        if parts[0] in ENTITY_TABLES and len(parts) > 1:
            out.append(parts[1])
            if parts[0] == "characters" and len(parts) == 4 and parts[2] == "relationships":
                out.append(parts[3])
        return tuple(out)

    def label(self, display_names: Mapping[str, str] | None = None, lang: Lang = "zh") -> str:
        names = dict(display_names or {})
        if self.kind == "foreshadow":
            return tr(MESSAGES, "foreshadow", lang, name=self.key)
        parts = self.key.split(".")
        top = parts[0]
        if top in ENTITY_TABLES and len(parts) > 1:
            who = names.get(parts[1], parts[1])
            rest = ".".join(parts[2:])
            return f"{who}·{field_label(rest, lang, names)}" if rest else who
        kind = KIND_LABELS.get(top)
        head = (kind[0] if lang == "zh" else kind[1]) if kind else top
        rest = ".".join(parts[1:])
        return f"{head}·{field_label(rest, lang, names)}" if rest else head

    def describe(self, display_names: Mapping[str, str] | None = None, lang: Lang = "zh") -> str:
        """`沈照·位置：青石巷 → 城西码头`."""
        return tr(
            MESSAGES,
            "fact",
            lang,
            label=self.label(display_names, lang),
            old=format_effect(self.old, self.kind, lang),
            new=format_effect(self.new, self.kind, lang),
        )


# ---------------------------------------------------------------------------------------------- effects


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def _effect(ops: Sequence[StateOp]) -> Any:
    """The net effect of a chapter's ops on one path (see the module docstring)."""
    kinds = {op.op for op in ops}
    if kinds == {"set"}:
        return ops[-1].value
    if kinds == {"inc"}:
        return sum(op.value for op in ops)
    if kinds <= {"add", "remove"}:
        added: list[Any] = []
        removed: list[Any] = []
        for op in ops:
            if op.op == "add":
                added.append(op.value)
            else:
                match = next((i for i, v in enumerate(added) if _json(v) == _json(op.value)), None)
                if match is None:
                    removed.append(op.value)
                else:
                    added.pop(match)
        return {"added": added, "removed": removed}
    return [{"op": op.op, "value": op.value} for op in ops]  # a mix of set and list/number ops


def _effects(ops: Iterable[StateOp]) -> tuple[dict[str, Any], dict[str, Any]]:
    by_path: dict[str, list[StateOp]] = {}
    threads: dict[str, list[str]] = {}
    for op in ops:
        if op.op == "foreshadow":
            threads.setdefault(op.path, []).append(str(op.value))
        else:
            by_path.setdefault(op.path, []).append(op)
    state = {path: _effect(group) for path, group in by_path.items()}
    foreshadow: dict[str, Any] = {k: v[0] if len(v) == 1 else v for k, v in threads.items()}
    return state, foreshadow


def format_effect(value: Any, kind: str = "state", lang: Lang = "zh") -> str:
    """An effect for people: none -> （未写）, list changes as `+密信 -钥匙`, actions by their label."""
    if value is None:
        return tr(MESSAGES, "untouched", lang)
    if kind == "foreshadow":
        actions = value if isinstance(value, list) else [value]
        labels = [ACTION_LABELS.get(str(a), (str(a), str(a)))[0 if lang == "zh" else 1] for a in actions]
        return "、".join(labels) if lang == "zh" else ", ".join(labels)
    if isinstance(value, dict) and set(value) == {"added", "removed"}:
        parts = [f"+{format_value(v, lang)}" for v in value["added"]]
        parts += [f"-{format_value(v, lang)}" for v in value["removed"]]
        return " ".join(parts) if parts else tr(MESSAGES, "untouched", lang)
    return format_value(value, lang)


def changed_facts(old_ops: Iterable[StateOp], new_ops: Iterable[StateOp]) -> list[Fact]:
    """The facts whose net effect differs between the old and the new ops of one chapter, state paths first
    (in the order they first appear, old ops then new), then foreshadowing ids."""
    old_ops, new_ops = list(old_ops), list(new_ops)
    old_state, old_threads = _effects(old_ops)
    new_state, new_threads = _effects(new_ops)
    facts: list[Fact] = []
    for path in dict.fromkeys([*old_state, *new_state]):
        old, new = old_state.get(path), new_state.get(path)
        if _json(old) != _json(new):
            facts.append(Fact(path, old, new))
    for thread in dict.fromkeys([*old_threads, *new_threads]):
        old, new = old_threads.get(thread), new_threads.get(thread)
        if _json(old) != _json(new):
            facts.append(Fact(thread, old, new, kind="foreshadow"))
    return facts


# ---------------------------------------------------------------------------------------------- impact


def _values(value: Any) -> list[str]:
    """Strings inside an effect worth looking for in a summary (a place, an item), two characters or more."""
    if isinstance(value, str):
        return [value] if len(value) >= 2 else []
    if isinstance(value, list):
        return [s for v in value for s in _values(v)]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _values(v)]
    return []


def _mention_words(fact: Fact, names: Mapping[str, str], descriptions: Mapping[str, str]) -> list[str]:
    words: list[str] = []
    if fact.kind == "foreshadow":
        words.append(fact.key)
        description = descriptions.get(fact.key)
        if description:
            words.append(description)
        return words
    for slug in fact.slugs:
        words.append(names.get(slug, slug))
        if slug in names:
            words.append(slug)
    if fact.key.startswith("world_state.") or fact.key.split(".")[-1] in ("location", "inventory", "owner"):
        words += _values(fact.old) + _values(fact.new)
    return list(dict.fromkeys(w for w in words if w))


def _whys(
    fact: Fact,
    ops: Sequence[StateOp],
    summary: str,
    names: Mapping[str, str],
    descriptions: Mapping[str, str],
    lang: Lang,
) -> list[str]:
    whys: list[str] = []
    if fact.kind == "foreshadow":
        actions = [str(op.value) for op in ops if op.op == "foreshadow" and op.path == fact.key]
        if actions:
            labels = [ACTION_LABELS.get(a, (a, a))[0 if lang == "zh" else 1] for a in dict.fromkeys(actions)]
            whys.append(tr(MESSAGES, "same_thread", lang, actions="、".join(labels) if lang == "zh" else "/".join(labels)))
    else:
        if any(op.op != "foreshadow" and op.path == fact.key for op in ops):
            whys.append(tr(MESSAGES, "same_path", lang))
        else:
            entities = {f"{table}.{slug}" for slug in fact.slugs for table in ENTITY_TABLES}
            entities.add(fact.entity)
            touched: dict[str, list[str]] = {}
            for op in ops:
                if op.op == "foreshadow":
                    continue
                parts = op.path.split(".")
                entity = ".".join(parts[:2])
                if entity in entities:
                    rest = ".".join(parts[2:])
                    touched.setdefault(entity, []).append(field_label(rest, lang, dict(names)) if rest else "*")
            for entity, fields in touched.items():
                slug = entity.split(".", 1)[1]
                name = names.get(slug, slug)
                sep = "、" if lang == "zh" else ", "
                whys.append(tr(MESSAGES, "same_entity", lang, name=name, fields=sep.join(dict.fromkeys(fields))))
    for word in _mention_words(fact, names, descriptions):
        if word in summary:
            whys.append(tr(MESSAGES, "mentions", lang, word=word))
    return whys


def impacted_chapters(
    facts: Sequence[Fact],
    later_entries: Iterable[ChangelogEntry],
    later_summaries: Mapping[int, str],
    *,
    display_names: Mapping[str, str] | None = None,
    descriptions: Mapping[str, str] | None = None,
    lang: Lang = "zh",
) -> dict[int, list[str]]:
    """Later chapters that touch a changed fact -> one reason per fact (`沈照·位置：A → B（本章摘要提到“沈照”）`).

    `later_entries` are the later chapters' stored changelog lines (their applied ops); `later_summaries`
    maps chapter -> summary text. Chapters with nothing in common with the facts are left out.
    """
    names = dict(display_names or {})
    descs = dict(descriptions or {})
    ops_by_chapter: dict[int, list[StateOp]] = {}
    for entry in later_entries:
        ops_by_chapter.setdefault(entry.chapter, []).extend(entry.ops)
    out: dict[int, list[str]] = {}
    for chapter in sorted(set(ops_by_chapter) | set(later_summaries)):
        ops = ops_by_chapter.get(chapter, [])
        summary = later_summaries.get(chapter, "")
        reasons: list[str] = []
        for fact in facts:
            whys = _whys(fact, ops, summary, names, descs, lang)
            if whys:
                why = tr(MESSAGES, "sep", lang).join(dict.fromkeys(whys))
                reasons.append(tr(MESSAGES, "reason", lang, fact=fact.describe(names, lang), why=why))
        if reasons:
            out[chapter] = reasons
    return out
