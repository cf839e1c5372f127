"""A chapter's state patch as a readable diff (the 状态变更 pane), grouped by entity.

`build_state_diff(before, applied_ops, warnings, display_names=...)` walks the applied ops in order on a copy
of the state before the patch, so each change knows its before and after value:

    沈照 (shen-zhao)
      location: 魔都 → 幽暗森林
      inventory: + 密信
      relationships.chen-lao: 50 → 60

(the arrow is the UI's: ` → ` in Chinese as everywhere in the Chinese UI, ` -> ` in English; values in the
UI's language too: 是/否 and （空） for true/false and an empty value)

plus the foreshadowing ops (id, action, detail) and the ops the engine dropped with the reason.
`state_diff_for_chapter(project, n)` finds chapter n's line in `state/changelog.jsonl` (or its staged delta
while the chapter is not committed yet) and the state before it.
"""

from __future__ import annotations

import copy
import json
import os
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from studio.errors import StudioError
from studio.i18n import Catalog, Lang, tr
from studio.models.changelog import ChangelogEntry, OpWarning
from studio.models.patch import StateOp, StatePatch
from studio.models.state import CurrentState
from studio.op_reasons import reason_text
from studio.project import Project
from studio.state_engine import apply_patch, is_review_cleanup, parse_changelog, replay, replay_from
from studio.views import replay_cache

ENTITY_KINDS: tuple[str, ...] = ("characters", "items", "locations", "factions", "world_state")

KIND_LABELS: dict[str, tuple[str, str]] = {
    "characters": ("角色", "Character"),
    "items": ("物品", "Item"),
    "locations": ("地点", "Location"),
    "factions": ("势力", "Faction"),
    "world_state": ("世界状态", "World state"),
}

FIELD_LABELS: dict[str, tuple[str, str]] = {
    "display_name": ("名字", "name"),
    "location": ("位置", "location"),
    "emotional_state": ("情绪", "mood"),
    "inventory": ("随身物品", "inventory"),
    "relationships": ("关系", "relationship"),
    "status": ("状态", "status"),
    "address": ("地址", "address"),
    "owner": ("持有者", "owner"),
    "time_marker": ("时间", "time"),
    "ongoing_events": ("进行中事件", "ongoing events"),
}

ACTION_LABELS: dict[str, tuple[str, str]] = {
    "planted": ("埋下", "planted"),
    "advanced": ("推进", "advanced"),
    "resolved": ("回收", "resolved"),
}

MESSAGES: Catalog = {
    "none": ("（无）", "(none)"),
    "empty": ("本章没有状态变更", "No state changes in this chapter"),
    "no_patch": ("本章尚无状态补丁", "No state patch for this chapter yet"),
    "foreshadowing": ("伏笔", "Foreshadowing"),
    "dropped": ("被丢弃的操作", "Dropped ops"),
    "staged": ("（暂存，未提交）", " (staged, not committed)"),
    "header": ("第{n}章 · 状态版本 {base} → {version}", "Ch {n} · state version {base} -> {version}"),
    "arrow": (" → ", " -> "),
    "true": ("是", "yes"),
    "false": ("否", "no"),
    "empty_value": ("（空）", "(empty)"),
    "new_entity": ("（新）", " (new)"),
}

_MISSING: Any = object()


def _pick(table: dict[str, tuple[str, str]], key: str, lang: Lang) -> str:
    pair = table.get(key)
    if pair is None:
        return key
    return pair[0] if lang == "zh" else pair[1]


# ---------------------------------------------------------------------------------------------- data


@dataclass(frozen=True)
class FieldChange:
    """One op on one entity: `path` is the part after the entity (`location`, `relationships.chen-lao`)."""

    path: str
    op: str  # set / inc / add / remove
    before: Any = None
    after: Any = None
    value: Any = None  # the op's own value (the item added or removed, the increment)

    def render(self, lang: Lang = "zh") -> str:
        """`location: 魔都 → 幽暗森林`, `inventory: + 密信`, `relationships.chen-lao: 50 → 60`."""
        return f"{self.path or '*'}: {self.change_text(lang)}"

    def change_text(self, lang: Lang = "zh") -> str:
        """`+ 密信`, `- 密信`, or `魔都 → 幽暗森林` (`50 -> 60 (+10)` in English)."""
        if self.op == "add":
            return f"+ {format_value(self.value, lang)}"
        if self.op == "remove":
            return f"- {format_value(self.value, lang)}"
        return f"{self.before_text(lang)}{tr(MESSAGES, 'arrow', lang)}{self.after_text(lang)}"

    def before_text(self, lang: Lang = "zh") -> str:
        """The value before a set/inc, as the diff shows it."""
        return format_value(self.before, lang)

    def after_text(self, lang: Lang = "zh") -> str:
        """The value after a set/inc, with an increment's step: `60 (+10)`."""
        text = format_value(self.after, lang)
        if self.op == "inc" and isinstance(self.value, int | float) and not isinstance(self.value, bool):
            text += f" ({self.value:+g})"
        return text


@dataclass(frozen=True)
class EntityChange:
    kind: str  # characters / items / locations / factions / world_state
    id: str | None  # the slug; None for world_state
    display_name: str | None = None
    is_new: bool = False  # the entity did not exist before the patch
    changes: list[FieldChange] = field(default_factory=list)

    def title(self, lang: Lang = "zh") -> str:
        """`沈照 (shen-zhao)`; `世界状态` for world_state; the slug alone when there is no display name."""
        if self.id is None:
            return _pick(KIND_LABELS, self.kind, lang)
        if self.display_name and self.display_name != self.id:
            return f"{self.display_name} ({self.id})"
        return self.id


@dataclass(frozen=True)
class ForeshadowChange:
    id: str
    action: str  # planted / advanced / resolved
    detail: str = ""
    description: str = ""  # from the foreshadowing ledger, when known

    def action_label(self, lang: Lang = "zh") -> str:
        return _pick(ACTION_LABELS, self.action, lang)


@dataclass(frozen=True)
class DroppedOp:
    entry: Any
    reason: str  # as stored (English); `reason_in(lang)` is what the author reads
    warning: OpWarning | None = None

    def reason_in(self, lang: Lang) -> str:
        return reason_text(self.warning, lang) if self.warning is not None else self.reason

    @property
    def entry_text(self) -> str:
        if isinstance(self.entry, str):
            return self.entry
        try:
            return json.dumps(self.entry, ensure_ascii=False, separators=(",", ":"))
        except (TypeError, ValueError):
            return repr(self.entry)


@dataclass(frozen=True)
class StateDiff:
    entities: list[EntityChange] = field(default_factory=list)
    foreshadowing: list[ForeshadowChange] = field(default_factory=list)
    dropped: list[DroppedOp] = field(default_factory=list)
    chapter: int | None = None
    base_state_version: int | None = None
    state_version: int | None = None
    staged: bool = False  # from a staged delta, not yet merged
    display_names: dict[str, str] = field(default_factory=dict)

    @property
    def is_empty(self) -> bool:
        return not (self.entities or self.foreshadowing or self.dropped)

    def render(self, lang: Lang = "zh") -> str:
        """The whole diff as plain text (for logs, the CLI and tests)."""
        lines: list[str] = []
        for entity in self.entities:
            lines.append(entity.title(lang))
            lines.extend(f"  {change.render(lang)}" for change in entity.changes)
        if self.foreshadowing:
            lines.append(tr(MESSAGES, "foreshadowing", lang))
            for fs in self.foreshadowing:
                lines.append(f"  {fs.id}: {fs.action_label(lang)}" + (f" · {fs.detail}" if fs.detail else ""))
        if self.dropped:
            lines.append(tr(MESSAGES, "dropped", lang))
            lines.extend(f"  {d.entry_text}: {d.reason_in(lang)}" for d in self.dropped)
        return "\n".join(lines)


# ---------------------------------------------------------------------------------------------- formatting


def format_value(value: Any, lang: Lang = "zh") -> str:
    """A state value for the diff in the UI's language: none -> （无）, true -> 是, "" or [] -> （空）, lists
    joined with 、, objects as compact JSON."""
    if value is None or value is _MISSING:
        return tr(MESSAGES, "none", lang)
    if isinstance(value, bool):
        return tr(MESSAGES, "true" if value else "false", lang)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, str):
        return value or tr(MESSAGES, "empty_value", lang)
    if isinstance(value, list):
        if not value:
            return tr(MESSAGES, "empty_value", lang)
        return ("、" if lang == "zh" else ", ").join(format_value(v, lang) for v in value)
    if isinstance(value, dict):
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return str(value)


def field_label(path: str, lang: Lang = "zh", display_names: dict[str, str] | None = None) -> str:
    """A readable name for a field path: `location` -> 位置, `relationships.chen-lao` -> 关系·陈老.

    English joins with spaces (`relationship with 陈老`, `status · health`): a pane wraps English at spaces
    only, and `relationship·陈老:` would be one word, cut mid-name when it is wider than the line. Chinese
    keeps `关系·陈老` (it has no spaces to wrap at either way).
    """
    if not path:
        return "*"
    head, _, rest = path.partition(".")
    label = _pick(FIELD_LABELS, head, lang)
    if not rest:
        return label
    if head == "relationships" and display_names and rest in display_names:
        rest = display_names[rest]
    if lang == "zh":
        return f"{label}·{rest}"
    return f"{label} with {rest}" if head == "relationships" else f"{label} · {rest}"


# ---------------------------------------------------------------------------------------------- building


def _get(node: Any, segments: Sequence[str]) -> Any:
    for key in segments:
        if not isinstance(node, dict) or key not in node:
            return _MISSING
        node = node[key]
    return node


def _put(node: dict[str, Any], segments: Sequence[str], value: Any) -> None:
    for key in segments[:-1]:
        child = node.get(key)
        if not isinstance(child, dict):
            child = {}
            node[key] = child
        node = child
    node[segments[-1]] = value


def _after(op: StateOp, old: Any) -> Any:
    if op.op == "set":
        return copy.deepcopy(op.value)
    if op.op == "inc":
        base = 0 if old is _MISSING or old is None or isinstance(old, bool) else old
        return base + op.value if isinstance(base, int | float) else old
    if op.op == "add":
        items = list(old) if isinstance(old, list) else []
        return [*items, copy.deepcopy(op.value)]
    if op.op == "remove":
        items = list(old) if isinstance(old, list) else []
        target = json.dumps(op.value, sort_keys=True)
        for index, item in enumerate(items):
            if json.dumps(item, sort_keys=True) == target:
                return items[:index] + items[index + 1 :]
        return items
    return old


def collect_display_names(*states: CurrentState, extra: dict[str, str] | None = None) -> dict[str, str]:
    """slug -> display name from the states' characters, items, locations and factions (`display_name`),
    then `extra` (e.g. characters/active/*.json) for slugs the states do not name."""
    names: dict[str, str] = {}
    for state in states:
        for slug, character in state.characters.items():
            if character.display_name:
                names.setdefault(slug, character.display_name)
        for table in (state.items, state.locations, state.factions):
            for slug, data in table.items():
                name = data.get("display_name") if isinstance(data, dict) else None
                if isinstance(name, str) and name:
                    names.setdefault(slug, name)
    for slug, name in (extra or {}).items():
        names.setdefault(slug, name)
    return names


def build_state_diff(
    before: CurrentState,
    applied_ops: Iterable[StateOp],
    warnings: Iterable[OpWarning] = (),
    *,
    display_names: dict[str, str],
    descriptions: dict[str, str] | None = None,
    chapter: int | None = None,
    base_state_version: int | None = None,
    state_version: int | None = None,
    staged: bool = False,
) -> StateDiff:
    """Group `applied_ops` (in order, applied on `before`) by entity with before/after values.

    `display_names`: slug -> name for entity titles and relationship targets; names set by the ops themselves
    (`display_name` of a new character) are picked up too. `descriptions`: foreshadowing id -> description.
    """
    data = before.to_data()
    names = dict(display_names)
    entities: dict[tuple[str, str | None], EntityChange] = {}
    fs_changes: list[ForeshadowChange] = []
    for op in applied_ops:
        if op.op == "foreshadow":
            fs_changes.append(
                ForeshadowChange(
                    id=op.path,
                    action=str(op.value),
                    detail=op.detail or "",
                    description=(descriptions or {}).get(op.path, ""),
                )
            )
            continue
        segments = op.path.split(".")
        kind = segments[0]
        if kind == "world_state":
            key: tuple[str, str | None] = (kind, None)
            tail = segments[1:]
        else:
            key = (kind, segments[1] if len(segments) > 1 else None)
            tail = segments[2:]
        if key not in entities:
            exists = kind == "world_state" or _get(data, segments[:2]) is not _MISSING
            entities[key] = EntityChange(kind=kind, id=key[1], is_new=not exists)
        old = _get(data, segments)
        new = _after(op, old)
        _put(data, segments, new)
        if tail == ["display_name"] and isinstance(new, str) and key[1]:
            names[key[1]] = new
        entities[key].changes.append(
            FieldChange(
                path=".".join(tail),
                op=op.op,
                before=None if old is _MISSING else old,
                after=new,
                value=op.value,
            )
        )
    kind_order = {kind: i for i, kind in enumerate(ENTITY_KINDS)}
    ordered = sorted(entities.values(), key=lambda e: kind_order.get(e.kind, len(ENTITY_KINDS)))
    # The titles need the names, which the ops themselves may have set: fill them in at the end.
    named = [
        EntityChange(
            kind=e.kind,
            id=e.id,
            display_name=names.get(e.id) if e.id else None,
            is_new=e.is_new,
            changes=e.changes,
        )
        for e in ordered
    ]
    dropped = [DroppedOp(entry=w.entry, reason=w.reason, warning=w) for w in warnings]
    return StateDiff(
        entities=named,
        foreshadowing=fs_changes,
        dropped=dropped,
        chapter=chapter,
        base_state_version=base_state_version,
        state_version=state_version,
        staged=staged,
        display_names=names,
    )


# ---------------------------------------------------------------------------------------------- from a project

LogKey = tuple[int, int, int, int, int]
"""The changelog file's stat: (size, mtime_ns, ctime_ns, device, inode)."""

RACY_NS = 2_000_000_000
"""A changelog read less than this after it was last modified is read again (and compared) at the next use,
even with the same stat: a rewrite of the same size within the file system's timestamp granularity (FAT's
2 s is the coarsest) keeps size and mtime. The same window as `studio.status_memo.RACY_NS`."""


@dataclass(frozen=True)
class _Log:
    """The changelog as read: its stat (`key`), bytes and entries; `settled`: read at least `RACY_NS` after its
    last modification, so an unchanged stat means unchanged bytes."""

    path: Path
    key: LogKey
    raw: bytes
    entries: list[ChangelogEntry]
    settled: bool = False


_changelog_memo: dict[Path, _Log] = {}
_state_memo: dict[tuple[Path, LogKey, int], CurrentState] = {}
_memo_lock = threading.Lock()
_STATE_MEMO_MAX = 64
CHECKPOINT_EVERY = 16
"""A replay of more than this many entries keeps the state at every multiple of it on the way (`_checkpoints`)."""
_checkpoints: tuple[list[ChangelogEntry], dict[int, CurrentState]] = ([], {})
"""(the parsed changelog they were replayed from, state version -> the state then), at multiples of
`CHECKPOINT_EVERY`: a step back to the chapter before replays at most that many entries, not the log from its
start (walking the outline upwards through 500 chapters cost a whole replay, 100+ ms, per key). Only those of
the log parsed last are kept: a log parsed again (changed, or another project's) starts afresh."""


def _stat(path: Path) -> LogKey | None:
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    return (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_dev, st.st_ino)


def _read(path: Path) -> tuple[bytes, bool] | None:
    """The file's bytes, and whether they were read at least `RACY_NS` after its last modification (then no
    later change can leave its stat as it was); None when it is gone."""
    started = time.time_ns()
    try:
        st = os.stat(path)
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    return raw, st.st_mtime_ns <= started - RACY_NS


def _memoised(path: Path) -> _Log | None:
    """The parsed changelog if this process parsed these very bytes already (no parse here): the stat is
    unchanged and, while the file was modified too recently to trust its stat, its bytes are the same."""
    key = _stat(path)
    with _memo_lock:
        hit = _changelog_memo.get(path)
    if key is None or hit is None or hit.key != key:
        return None
    if hit.settled:
        return hit
    read = _read(path)
    if read is None or read[0] != hit.raw:  # rewritten in place, same stat: what was kept of it is stale
        _forget_log(path)
        return None
    if read[1]:
        hit = replace(hit, settled=True)
        with _memo_lock:
            _changelog_memo[path] = hit
    return hit


def _forget_log(path: Path) -> None:
    with _memo_lock:
        _changelog_memo.pop(path, None)
        for state_key in [k for k in _state_memo if k[0] == path]:
            del _state_memo[state_key]


def _changelog(path: Path) -> _Log:
    """The parsed changelog, memoised while the file's stat is unchanged (and, within the racy window, its
    bytes: `_memoised`)."""
    hit = _memoised(path)
    if hit is not None:
        return hit
    key = _stat(path)
    read = _read(path) if key is not None else None
    if key is None or read is None:
        return _Log(path, (0, 0, 0, 0, 0), b"", [], settled=False)
    raw, settled = read
    entries, _ = parse_changelog(raw, path)
    log = _Log(path, key, raw, entries, settled and _stat(path) == key)  # changed between stat and read: recheck
    _forget_log(path)
    with _memo_lock:
        _changelog_memo[path] = log
    return log


def _state_at(root: Path, log: _Log, version: int) -> CurrentState:
    key = (log.path, log.key, version)
    with _memo_lock:
        hit = _state_memo.get(key)
    if hit is not None:
        return hit
    state = _replay_near(root, log, version)
    with _memo_lock:
        if len(_state_memo) >= _STATE_MEMO_MAX:
            _state_memo.pop(next(iter(_state_memo)))
        _state_memo[key] = state
    return state


def _replay_near(root: Path, log: _Log, version: int) -> CurrentState:
    """The state at `version`, replayed from the nearest earlier version known of the same changelog: one
    memoised in this process (moving chapter by chapter replays one entry, not the whole log: on 500 chapters
    that was most of a chapter selection's time) or the one kept between starts (`replay_cache`: the first
    screen replays only what was appended since) or a checkpoint an earlier replay kept on its way
    (`_checkpoints`: a step back replays at most `CHECKPOINT_EVERY` entries); from the start when there is none,
    or when the log holds
    another tool's lines or an `init` after its first line. A state newer than the one kept is kept for the next
    start.
    """
    entries, source = log.entries, str(log.path)
    plain = all(e.kind != "foreign" for e in entries) and all(e.kind != "init" for e in entries[1:])
    if not plain:  # another tool's lines or a re-based log: replay as the log says, from the start
        return replay(entries, upto_version=version, source=source)
    nearest: tuple[int, CurrentState] | None = None
    with _memo_lock:
        for (memo_path, memo_key, memo_version), state in _state_memo.items():
            if (memo_path, memo_key) == (log.path, log.key) and memo_version <= version:
                if nearest is None or memo_version > nearest[0]:
                    nearest = (memo_version, state)
        global _checkpoints
        if _checkpoints[0] is not entries:  # another log, or this one parsed again: those are of no use
            _checkpoints = (entries, {})
        checkpoints = _checkpoints[1]
        below = [v for v in checkpoints if v <= version]
        if below and (nearest is None or max(below) > nearest[0]):
            nearest = (max(below), checkpoints[max(below)])
    kept = replay_cache.kept_state(root, log.raw)
    if kept is not None and kept.state_version <= version and (nearest is None or kept.state_version > nearest[0]):
        nearest = (kept.state_version, kept)
    if nearest is not None and nearest[0] == version:
        return nearest[1]
    state = _replay_keeping_checkpoints(nearest, entries, version, source, checkpoints)
    replay_cache.keep_state(root, log.raw, entries, state)  # a no-op unless newer than the state kept
    return state


def _replay_keeping_checkpoints(
    nearest: tuple[int, CurrentState] | None,
    entries: list[ChangelogEntry],
    version: int,
    source: str,
    checkpoints: dict[int, CurrentState],
) -> CurrentState:
    """The state at `version`, replayed from `nearest` (or from the start), keeping in `checkpoints` the state
    at each multiple of `CHECKPOINT_EVERY` passed on the way. A log the steps cannot follow (a gap, a version
    that is not there) is replayed in one go, which raises the error it always did."""
    def one_go() -> CurrentState:
        if nearest is None:
            return replay(entries, upto_version=version, source=source)
        return replay_from(nearest[1], entries, upto_version=version, source=source)

    first = nearest[0] if nearest is not None else (entries[0].base_state_version if entries else 0)
    steps = list(range((first // CHECKPOINT_EVERY + 1) * CHECKPOINT_EVERY, version, CHECKPOINT_EVERY))
    if not steps:
        return one_go()
    state: CurrentState | None = nearest[1] if nearest is not None else None
    try:
        for step in steps:
            state = (replay(entries, upto_version=step, source=source) if state is None
                     else replay_from(state, entries, upto_version=step, source=source))
            with _memo_lock:
                checkpoints[step] = state
        assert state is not None
        return replay_from(state, entries, upto_version=version, source=source)
    except StudioError:
        return one_go()


def forget_replays() -> None:
    """Forget every replayed state and checkpoint this process remembers (tests: a cold start)."""
    global _checkpoints
    with _memo_lock:
        _state_memo.clear()
        _checkpoints = ([], {})


def _extra_names(project: Project) -> dict[str, str]:
    return {slug: c.display_name for slug, c in project.characters.items() if c.display_name}


def _descriptions(project: Project) -> dict[str, str]:
    return {item.id: item.description for item in project.foreshadowing.foreshadowing if item.description}


def warm(path: Path) -> None:
    """Parse the changelog at `path` now, unless this process has already: the studio runs it in a worker thread
    after its first paint (which parsed only the lines after the kept state), so the first selection of an
    earlier chapter does not parse the whole log inside a key press. A log that does not parse is left for the
    pane to report when it is shown."""
    try:
        _changelog(path)
    except StudioError:
        return


def _chapter_entry(entries: Sequence[ChangelogEntry], n: int) -> ChangelogEntry | None:
    """Chapter `n`'s latest patch/rebuild line (not an init, another tool's line, a tool's or a review cleanup)."""
    return next(
        (e for e in reversed(entries)
         if e.chapter == n and e.kind not in ("init", "foreign", "tool") and not is_review_cleanup(e)),
        None,
    )


def _after_kept_state(root: Path, path: Path, n: int) -> tuple[ChangelogEntry, CurrentState] | None:
    """Chapter `n`'s latest line and the state before it, parsing only the lines appended after the state kept
    between starts (`replay_cache.kept_prefix`: a prefix of whole lines this code parsed and replayed before,
    from a plain log, the same bytes): at a start, the last chapter's diff without parsing the whole log.

    None when that does not answer: no kept state valid for these bytes, `n`'s line not among the new lines, a
    new line that is not plain (another tool's, an `init`), repeats the line before it, or does not parse or
    replay. The caller then parses the whole log, which reports every problem where it is, as it always did."""
    read = _read(path)
    kept = replay_cache.kept_prefix(root, read[0]) if read is not None else None
    if read is None or kept is None:
        return None
    raw, (prefix, base) = read[0], kept
    try:
        tail, _ = parse_changelog(raw[prefix:], path)
    except StudioError:
        return None
    first_new = next((line.strip() for line in raw[prefix:].split(b"\n", 2) if line.strip()), None)
    last_kept = raw[:prefix].rstrip().rsplit(b"\n", 1)[-1].strip()
    entry = _chapter_entry(tail, n)
    if entry is None or first_new == last_kept or any(e.kind in ("foreign", "init") for e in tail):
        return None
    if entry.snapshot is not None:
        return entry, CurrentState.model_validate(entry.snapshot)
    if entry.base_state_version < base.state_version:
        return None
    if entry.base_state_version == base.state_version:
        return entry, base
    try:
        before = replay_from(base, tail, upto_version=entry.base_state_version, source=str(path))
    except StudioError:
        return None
    replay_cache.keep_state(root, raw, tail, before, start=prefix)  # the next start parses fewer lines
    return entry, before


def state_diff_for_chapter(project: Project, n: int) -> StateDiff | None:
    """The state diff of chapter `n`: its latest patch/rebuild line of the changelog against the state
    before it, or (not merged yet) its staged delta against the current state. None: no patch for `n`.

    Raises FormatError (or StateVersionMismatch) when the changelog cannot be read or replayed; the caller
    shows the problem. Parsed changelogs and replayed states are memoised by the changelog's stat (size,
    mtime, ctime, inode; its bytes compared again while it is within the racy window), and the newest
    replayed state is kept between starts (`studio.views.replay_cache`). Until this process has parsed the
    log, a chapter whose line comes after that kept state parses only the lines after it
    (`_after_kept_state`: the first paint shows the last chapter's diff without parsing 500 chapters' log).
    """
    path = project.paths.changelog
    log = _memoised(path)
    found = _after_kept_state(project.root, path, n) if log is None else None
    entry: ChangelogEntry | None
    if found is not None:
        entry, before = found
    else:
        log = log if log is not None else _changelog(path)
        entry = _chapter_entry(log.entries, n)
        if entry is not None:
            before = (CurrentState.model_validate(entry.snapshot) if entry.snapshot is not None
                      else _state_at(project.root, log, entry.base_state_version))
    extra = _extra_names(project)
    descriptions = _descriptions(project)
    if entry is not None:
        return build_state_diff(
            before,
            entry.ops,
            entry.warnings,
            display_names=collect_display_names(before, project.state, extra=extra),
            descriptions=descriptions,
            chapter=n,
            base_state_version=entry.base_state_version,
            state_version=entry.state_version,
        )
    delta = project.paths.staged_delta(n)
    if not delta.is_file():
        return None
    patch = StatePatch.load(delta)
    current = project.state
    _, applied, warnings = apply_patch(current, patch)
    return build_state_diff(
        current,
        applied,
        warnings,
        display_names=collect_display_names(current, extra=extra),
        descriptions=descriptions,
        chapter=n,
        base_state_version=patch.base_state_version,
        state_version=patch.base_state_version + 1,
        staged=True,
    )
