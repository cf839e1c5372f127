"""The volume review's state clean-up (seed 002 §8.5 periodic clean-up; issue 7 item 5): which temporary
entries of `state/current-state.json` are no longer needed, and their removal through the state engine.

The proposal (`cleanup_proposal`):
- `retired_character`: a character in the state whose file is in `characters/retired/` (and no longer in
  `characters/active/`);
- `stale_item` / `stale_location`: an item or place that nothing refers to any more (no open thread, no
  storyline, no character's location or inventory, no later volume's outline names its slug or its display
  name) and that is gone (its `status` says consumed, destroyed, lost ... `GONE_WORDS`), is marked
  `temporary: true`, or was not changed by any chapter of the finished volume;
- `resolved_thread`: an id in `active_foreshadowing` whose thread the ledger has resolved.
Characters who are merely absent are never proposed (retiring is the author's explicit act, seed 002 §8.5).

The removal (`apply_cleanup`) is one changelog line written by `studio.state_engine.merge_snapshot` (log first,
then the state; `reconcile` finishes a kill between the two), marked `review_cleanup: N`: applied at most once
per review, skipped by undo's cut, rebuild's chain and the state diff. The proposal is made against the
journal's `state_version`; a state that moved since is refused, nothing removed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from studio.errors import StudioError
from studio.fileio import read_text
from studio.i18n import Catalog, tr
from studio.models.state import CurrentState
from studio.models.volume_review import CleanupItem, ReviewJournal
from studio.paths import ProjectPaths
from studio.planning.review_report import volume_range
from studio.project import Project
from studio.state_engine import (
    is_review_cleanup,
    last_changelog_entry,
    load_changelog,
    load_state,
    merge_snapshot,
    reconcile,
)

__all__ = ["GONE_WORDS", "apply_cleanup", "cleaned_state", "cleanup_proposal"]

GONE_WORDS = ("消耗", "用尽", "用完", "毁", "碎", "遗失", "丢失", "失效", "销毁", "consumed", "destroyed", "lost", "used up")

MESSAGES: Catalog = {
    "r_retired": ("角色已退场（characters/retired/），状态中的残留条目", "the character is retired (characters/retired/)"),
    "r_gone": ("状态为「{status}」，且没有伏笔、故事线或角色再提到它", "its status is \"{status}\" and nothing refers to it any more"),
    "r_idle": ("本卷没有任何章节改动过它，且没有伏笔、故事线或角色再提到它",
               "no chapter of the volume changed it and nothing refers to it any more"),
    "r_temporary": ("标记为临时条目，且没有伏笔、故事线或角色再提到它", "marked temporary, and nothing refers to it any more"),
    "r_resolved": ("伏笔已回收，仍留在 active_foreshadowing 中", "the thread is resolved but still in active_foreshadowing"),
    "state_moved": (
        "第 {volume} 卷回顾的清理建议基于状态版本 {was}，但状态已是版本 {now}；未清理任何条目，请重新运行 review",
        "the clean-up of volume {volume}'s review was proposed against state version {was}, but the state is at "
        "version {now}; nothing was removed; run review again",
    ),
}


def _changed_in(paths: ProjectPaths, first: int, last: int) -> set[str]:
    """`items.<slug>` / `locations.<slug>` touched by an op of a chapter in first..last."""
    touched: set[str] = set()
    for entry in load_changelog(paths.changelog):
        if entry.kind in ("init", "foreign") or not first <= entry.chapter <= last or is_review_cleanup(entry):
            continue
        for op in entry.ops:
            parts = op.path.split(".")
            if len(parts) >= 2 and parts[0] in ("items", "locations"):
                touched.add(f"{parts[0]}.{parts[1]}")
    return touched


def _later_outlines(paths: ProjectPaths, volume: int) -> str:
    texts: list[str] = []
    for folder in sorted((paths.root / "volumes").glob("vol-*")):
        match = re.fullmatch(r"vol-(\d{2,})", folder.name)
        outline = folder / "outline.md"
        if match and int(match.group(1)) > volume and outline.is_file():
            texts.append(read_text(outline))
    return "\n".join(texts)


def _references(project: Project, state: CurrentState, volume: int) -> str:
    """All the text that may name an item or place that is still in play."""
    parts = [t.id + " " + t.description for t in project.foreshadowing.foreshadowing if t.status != "resolved"]
    parts += [line.model_dump_json() for line in project.storylines.storylines if line.status != "resolved"]
    for character in state.characters.values():
        parts.append(character.location or "")
        parts += [str(i) for i in character.inventory or []]
    parts.append(_later_outlines(project.paths, volume))
    return "\n".join(parts)


def _gone(entry: dict[str, object]) -> str | None:
    status = str(entry.get("status") or "")
    return next((w for w in GONE_WORDS if w in status.lower()), None)


def cleanup_proposal(project: Project, volume: int, state: CurrentState | None = None) -> list[CleanupItem]:
    """The temporary entries the review proposes to remove (rules in the module docstring)."""
    paths = project.paths
    state = state if state is not None else load_state(paths)
    span = volume_range(paths, volume)
    first, last = span if span is not None else (1, project.last_completed_chapter)
    items: list[CleanupItem] = []
    retired = paths.root / "characters" / "retired"
    for slug, character in sorted(state.characters.items()):
        if (retired / f"{slug}.json").is_file() and not paths.character(slug).is_file():
            items.append(CleanupItem(kind="retired_character", path=f"characters.{slug}",
                                     label=character.display_name or "", reason=tr(MESSAGES, "r_retired", "zh"),
                                     reason_en=tr(MESSAGES, "r_retired", "en")))
    refs = _references(project, state, volume)
    touched = _changed_in(paths, first, last)
    for category, kind in (("items", "stale_item"), ("locations", "stale_location")):
        entries: dict[str, dict[str, object]] = getattr(state, category)
        for slug, entry in sorted(entries.items()):
            name = str(entry.get("display_name") or "")
            if slug in refs or (name and name in refs):
                continue
            gone = _gone(entry)
            if gone is not None:
                reason = {lang: tr(MESSAGES, "r_gone", lang, status=str(entry.get("status"))) for lang in ("zh", "en")}
            elif entry.get("temporary") is True:
                reason = {lang: tr(MESSAGES, "r_temporary", lang) for lang in ("zh", "en")}
            elif f"{category}.{slug}" not in touched:
                reason = {lang: tr(MESSAGES, "r_idle", lang) for lang in ("zh", "en")}
            else:
                continue
            items.append(CleanupItem(kind=kind, path=f"{category}.{slug}", label=name, reason=reason["zh"],
                                     reason_en=reason["en"]))
    resolved = {t.id for t in project.foreshadowing.foreshadowing if t.status == "resolved"}
    for thread in state.active_foreshadowing:
        if thread in resolved:
            items.append(CleanupItem(kind="resolved_thread", path=f"active_foreshadowing.{thread}",
                                     reason=tr(MESSAGES, "r_resolved", "zh"), reason_en=tr(MESSAGES, "r_resolved", "en")))
    return items


def cleaned_state(state: CurrentState, items: Iterable[CleanupItem]) -> CurrentState:
    """`state` without the entries of `items` (entries already gone are skipped)."""
    data = state.to_data()
    for item in items:
        top, _, key = item.path.partition(".")
        if top == "active_foreshadowing":
            data[top] = [i for i in data[top] if i != key]
        elif isinstance(data.get(top), dict):
            data[top].pop(key, None)
    return CurrentState.model_validate(data)


def _cleanup_applied(paths: ProjectPaths, volume: int) -> bool:
    last = last_changelog_entry(paths.changelog)
    return last is not None and getattr(last, "review_cleanup", None) == volume


def apply_cleanup(paths: ProjectPaths, journal: ReviewJournal) -> bool:
    """Remove the proposed entries in one state-engine line (at most once per review); True if it wrote."""
    reconcile(paths)  # a kill between the clean-up's log line and its state write is finished here
    if not journal.cleanup or _cleanup_applied(paths, journal.volume):
        return False
    state = load_state(paths)
    if state.state_version != journal.state_version:  # the state moved since the proposal: apply nothing
        raise StudioError(tr(MESSAGES, "state_moved", "zh", volume=journal.volume, was=journal.state_version,
                             now=state.state_version))
    merge_snapshot(paths, cleaned_state(state, journal.cleanup), chapter=journal.last_chapter, volume=journal.volume)
    return True
