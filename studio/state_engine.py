"""The state engine: validate ops (seed 003 10.6), apply them, merge a patch, log it, replay the log.

Write order of a merge (crash safety): the changelog line is appended (and fsynced) first, then
`current-state.json` is replaced atomically. So after a crash the changelog is either
- one version ahead of the state (the state write was lost): `reconcile` re-applies that last entry, or
- ends in a torn line (the append was cut): nothing was merged; `reconcile` drops that line.
`merge_patch` refuses to run on such a project and says to reconcile first.

Decision on `active_foreshadowing`: it is a flat list of ids, so no dotted path of depth 2-4 can
address anything in it (`active_foreshadowing.x` has no meaning for a list). Generic ops on it are
dropped with a warning pointing at the `foreshadow` op, which maintains the list deterministically:
planted/advanced -> id present (appended once), resolved -> id removed.
"""

from __future__ import annotations

import copy
import json
import math
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from studio.errors import FormatError, StateVersionMismatch, UsageError
from studio.fileio import append_line, atomic_write_bytes
from studio.ids import is_slug
from studio.models.changelog import ChangelogEntry, ChangelogKind, OpWarning
from studio.models.patch import FORESHADOW_ACTIONS, OP_NAMES, StateOp, StatePatch
from studio.models.state import CharacterState, CurrentState, is_foreshadow_id
from studio.models.validation_text import error_text, json_path, problems_from
from studio.op_reasons import Reason, mismatch, op_warning, problem, reason
from studio.paths import ProjectPaths

TOP_LEVEL = ("characters", "items", "locations", "factions", "world_state", "active_foreshadowing")
ENTITY_CATEGORIES = ("characters", "items", "locations", "factions")
_VALUE_OPS = ("set", "inc", "add", "remove")


# --------------------------------------------------------------------------- validation (static)


def _is_json(value: Any, depth: int = 0) -> bool:
    """Plain JSON that survives a write and a read unchanged: finite numbers, UTF-8-encodable strings."""
    if depth > 64:
        return False
    if value is None or isinstance(value, bool | int):
        return True
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, str):
        return _utf8(value)
    if isinstance(value, list):
        return all(_is_json(v, depth + 1) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _utf8(k) and _is_json(v, depth + 1) for k, v in value.items())
    return False


def _utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates from a "\ud800" escape
        return False
    return True


def _loggable(entry: Any) -> Any:
    """The entry as it can be written to the changelog: itself if plain JSON, else its repr."""
    return entry if _is_json(entry) else repr(entry)


def _check_generic_path(path: str) -> Reason | None:
    """Why `path` is not acceptable for a set/inc/add/remove op, or None if it is."""
    segments = path.split(".")
    if not 2 <= len(segments) <= 4:
        return reason("path_parts", path=path)
    if any(not s or s != s.strip() for s in segments):
        return reason("path_blank_part", path=path)
    top = segments[0]
    if top not in TOP_LEVEL:
        return reason("path_top", path=path, top=top, allowed=", ".join(TOP_LEVEL))
    if top == "active_foreshadowing":
        return reason("active_foreshadowing")
    if top in ENTITY_CATEGORIES and not is_slug(segments[1]):
        return reason("entity_slug", path=path, id=segments[1])
    if top == "characters" and len(segments) == 4 and segments[2] == "relationships" and not is_slug(segments[3]):
        return reason("relationship_slug", path=path, target=segments[3])
    return None


def _check_entry(entry: Any) -> Reason | None:
    """Why `entry` is dropped, or None if it is a valid op (shape and path rules of seed 003 10.6)."""
    if not isinstance(entry, dict):
        return reason("not_object")
    op = entry.get("op")
    if not isinstance(op, str):
        return reason("no_op")
    if op not in OP_NAMES:
        return reason("unknown_op", op=op, allowed=", ".join(OP_NAMES))
    path = entry.get("path")
    if not isinstance(path, str):
        return reason("no_path")
    if not _utf8(path):
        return reason("path_text")
    detail = entry.get("detail")
    if detail is not None and not (isinstance(detail, str) and _utf8(detail)):
        return reason("detail_text")
    if not _is_json(entry):
        return reason("not_json")
    if op == "foreshadow":
        if not is_foreshadow_id(path):
            return reason("foreshadow_path", path=path)
        if entry.get("value") not in FORESHADOW_ACTIONS:
            return reason("foreshadow_value", value=entry.get("value"), allowed=", ".join(FORESHADOW_ACTIONS))
        return None
    why = _check_generic_path(path)
    if why:
        return why
    if "value" not in entry:
        return reason("no_value", op=op)
    value = entry["value"]
    if op == "inc" and (isinstance(value, bool) or not isinstance(value, int | float)):
        return reason("inc_number", value=value)
    if op in ("add", "remove") and value is None:
        return reason("null_value", op=op)
    return None


def validate_ops(ops: Iterable[Any]) -> tuple[list[StateOp], list[OpWarning]]:
    """Split raw ops entries into valid ops (in order) and warnings for the dropped ones. Never raises."""
    valid: list[StateOp] = []
    warnings: list[OpWarning] = []
    for entry in ops:
        why = _check_entry(entry)
        if why is None:
            try:
                valid.append(StateOp.model_validate(copy.deepcopy(entry)))
                continue
            except ValidationError as exc:  # defensive: _check_entry should have caught it
                error = "; ".join(f"{json_path(tuple(e['loc']))}: {e['msg']}" for e in exc.errors())
                why = reason("invalid", error=error)
        warnings.append(op_warning(_loggable(entry), why))
    return valid, warnings


# --------------------------------------------------------------------------- application


class _Conflict(Exception):
    """An op that is well formed but does not fit the current state (a type conflict), and why."""

    def __init__(self, why: Reason) -> None:
        super().__init__(why.text("en"))
        self.why = why


_MISSING: Any = object()


def _update(node: Any, segments: Sequence[str], where: str, fn: Callable[[Any], Any]) -> Any:
    """Return a copy of `node` with `fn` applied at `segments`; untouched branches are shared."""
    if not segments:
        return fn(node)
    if node is _MISSING or node is None:
        node = {}  # set/inc/add create missing intermediate objects
    if not isinstance(node, dict):
        raise _Conflict(reason("not_an_object", where=where, type=type(node).__name__))
    key = segments[0]
    out = dict(node)
    out[key] = _update(node.get(key, _MISSING), segments[1:], f"{where}.{key}", fn)
    return out


def _op_fn(op: StateOp) -> Callable[[Any], Any]:
    value = op.value

    def do_set(old: Any) -> Any:
        return copy.deepcopy(value)

    def do_inc(old: Any) -> Any:
        if old is _MISSING or old is None:
            old = 0
        if isinstance(old, bool) or not isinstance(old, int | float):
            raise _Conflict(reason("inc_not_number", path=op.path, type=type(old).__name__, value=old))
        result = old + value
        if isinstance(result, float) and not math.isfinite(result):
            raise _Conflict(reason("inc_overflow", path=op.path))
        return result

    def do_add(old: Any) -> Any:
        if old is _MISSING or old is None:
            old = []
        if not isinstance(old, list):
            raise _Conflict(reason("add_not_list", path=op.path, type=type(old).__name__))
        return [*old, copy.deepcopy(value)]

    def do_remove(old: Any) -> Any:
        if not isinstance(old, list):
            what = "nothing" if old is _MISSING or old is None else type(old).__name__
            raise _Conflict(reason("remove_not_list", path=op.path, what=what))
        for index, item in enumerate(old):
            if _same_json(item, value):
                return old[:index] + old[index + 1 :]  # first occurrence only: one item leaves
        raise _Conflict(reason("remove_missing", path=op.path, value=value))

    return {"set": do_set, "inc": do_inc, "add": do_add, "remove": do_remove}[op.op]


def _same_json(a: Any, b: Any) -> bool:
    # 1 == True in Python; in the state they are different values.
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def _apply_one(data: dict[str, Any], op: StateOp) -> dict[str, Any]:
    """Apply one valid op to state data (as from `to_data()`); raise _Conflict if it does not fit."""
    if op.op == "foreshadow":
        active = list(data["active_foreshadowing"])
        if op.value == "resolved":
            active = [i for i in active if i != op.path]
        elif op.path not in active:
            active.append(op.path)
        return {**data, "active_foreshadowing": active}
    segments = op.path.split(".")
    top = segments[0]
    new_top = _update(data.get(top, {}), segments[1:], top, _op_fn(op))
    if top in ENTITY_CATEGORIES:
        slug = segments[1]
        entity = new_top[slug]
        if not isinstance(entity, dict):
            raise _Conflict(reason("entity_object", top=top, slug=slug, type=type(entity).__name__))
        if top == "characters":
            try:
                # Store the model's own dump so the data stays exactly what the file will hold.
                new_top[slug] = CharacterState.model_validate(entity).to_data()
            except ValidationError as exc:
                err = exc.errors()[0]
                where = json_path(("characters", slug, *err["loc"]))
                raise _Conflict(
                    reason("character_field", where=where, error=err["msg"], error_zh=error_text(err, "zh"))
                ) from None
    return {**data, top: new_top}


def _apply_ops(state: CurrentState, ops: Iterable[StateOp]) -> tuple[CurrentState, list[StateOp], list[OpWarning]]:
    data = state.to_data()
    applied: list[StateOp] = []
    warnings: list[OpWarning] = []
    for op in ops:
        try:
            data = _apply_one(data, op)
        except _Conflict as exc:
            warnings.append(op_warning(op.to_data(), exc.why))
            continue
        applied.append(op)
    return CurrentState.model_validate(data), applied, warnings


def apply_patch(state: CurrentState, patch: StatePatch) -> tuple[CurrentState, list[StateOp], list[OpWarning]]:
    """Validate and apply the patch's ops to a copy of `state`; returns (new state, applied ops, warnings).

    Pure: `state` is not changed, versions are left alone (`merge_patch` bumps them). Bad entries and
    ops that conflict with the state (inc on a string, add to a non-list, a path through a non-object)
    are dropped with a warning; the others still apply, in order.
    """
    return apply_ops(state, patch.ops)


def apply_ops(state: CurrentState, ops: Iterable[Any]) -> tuple[CurrentState, list[StateOp], list[OpWarning]]:
    """`apply_patch` for raw ops entries (a logged line's ops, re-checked by `repair`)."""
    valid, warnings = validate_ops(ops)
    new_state, applied, conflicts = _apply_ops(state, valid)
    return new_state, applied, warnings + conflicts


# --------------------------------------------------------------------------- changelog




def load_changelog(path: Path, *, repair_tail: bool = False) -> list[ChangelogEntry]:
    """Read `state/changelog.jsonl` (missing file: no entries). Blank lines are skipped.

    A line that is not UTF-8 or not JSON is a FormatError naming its line number, except that with
    `repair_tail=True` a broken *last* line (an append cut short by a crash, possibly inside a multi-byte
    character: nothing was merged for it, since the state is written after the log line) is removed from
    the file and ignored. A line repeated right after itself (a copy or a replayed append) is a
    FormatError: building on it would put two merges of one chapter in the state (`novel-studio repair`
    removes the repeat).
    """
    path = Path(path)
    if not path.exists():
        return []
    raw = path.read_bytes()
    entries, kept = parse_changelog(raw, path, drop_torn_tail=repair_tail)
    if kept is not None:
        atomic_write_bytes(path, kept)
    return entries


def parse_changelog(
    raw: bytes, path: Path | str, *, drop_torn_tail: bool = False
) -> tuple[list[ChangelogEntry], bytes | None]:
    """Parse the changelog's bytes (see `load_changelog`). Returns the entries and, when a torn last line
    was dropped (`drop_torn_tail`), the bytes the file should hold instead (else None). Pure."""
    lines = raw.split(b"\n")
    numbered = [(n, line) for n, line in enumerate(lines, start=1) if line.strip()]
    entries: list[ChangelogEntry] = []
    previous: bytes | None = None
    for position, (lineno, line) in enumerate(numbered):
        try:
            text = line.decode("utf-8")
            if lineno == 1:
                text = text.removeprefix("\ufeff")
            data = json.loads(text)
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            if drop_torn_tail and position == len(numbered) - 1:
                keep = b"\n".join(lines[: lineno - 1])
                return entries, (keep + b"\n" if keep.strip() else b"")
            if isinstance(exc, json.JSONDecodeError):
                torn = problem(path, "line_not_json", line=lineno, column=exc.colno, error=exc.msg)
            else:
                torn = problem(path, "line_not_utf8", line=lineno)
            raise FormatError([torn]) from None
        if previous is not None and line.strip() == previous:
            raise FormatError(
                [problem(path, "line_repeats", line=lineno)]
            )
        previous = line.strip()
        try:
            entries.append(ChangelogEntry.model_validate(data))
        except ValidationError as exc:
            raise FormatError(problems_from(exc, path, line=lineno)) from None
        if entries[-1].kind == "init" and len(entries) > 1 and entries[-2].kind != "foreign":
            raise FormatError(
                [problem(path, "init_not_first", line=lineno)]
            )
    return entries, None


def last_changelog_entry(path: Path) -> ChangelogEntry | None:
    """The last entry of the changelog, reading only the file's tail (merges must not slow down as the
    novel grows). A torn last line is a FormatError, exactly as in `load_changelog`."""
    path = Path(path)
    if not path.exists():
        return None
    with open(path, "rb") as fh:
        size = fh.seek(0, 2)
        chunk = 64 * 1024
        while True:
            start = max(0, size - chunk)
            fh.seek(start)
            data = fh.read(size - start)
            lines = [line.strip() for line in data.split(b"\n") if line.strip()]
            # a line is known to be whole once a newline precedes it inside the chunk (or it starts the file);
            # the one before it is read too, to catch a repeated last line
            if not lines or start == 0 or len(lines) > 2:
                break
            chunk *= 4
    if not lines:
        return None
    try:
        data_obj = json.loads(lines[-1].decode("utf-8"))
    except UnicodeDecodeError:
        raise FormatError([problem(path, "last_not_utf8")]) from None
    except json.JSONDecodeError as exc:
        raise FormatError(
            [problem(path, "last_not_json", column=exc.colno, error=exc.msg)]
        ) from None
    if len(lines) > 1 and lines[-1] == lines[-2]:
        raise FormatError([problem(path, "last_repeats")])
    try:
        return ChangelogEntry.model_validate(data_obj)
    except ValidationError as exc:
        raise FormatError(problems_from(exc, path)) from None


def _append_entry(path: Path, entry: ChangelogEntry) -> None:
    # a last line cut before its newline is not glued onto: `append_line` starts a line of its own
    append_line(path, json.dumps(entry.to_data(), ensure_ascii=False, separators=(",", ":")))


def _apply_entry(state: CurrentState, entry: ChangelogEntry, source: str, index: int) -> CurrentState:
    """Re-apply one logged entry. Its ops applied once on this very state, so any drop now means the
    log and the state disagree: that is an error, not a warning."""
    if entry.snapshot is not None:
        try:
            state = CurrentState.model_validate(entry.snapshot)
        except ValidationError as exc:
            raise FormatError(problems_from(exc, source, prefix=(index, "snapshot"))) from None
    valid, warnings = validate_ops(op.to_data() for op in entry.ops)
    new_state, _, conflicts = _apply_ops(state, valid)
    problems = warnings + conflicts
    if problems:
        raise FormatError(
            [problem(source, "op_stale", json_path=f"$[{index}].ops", reason=w) for w in problems]
        )
    return new_state.model_copy(update={"state_version": entry.state_version, "last_updated_chapter": entry.chapter})


def replay(
    entries: Sequence[ChangelogEntry], upto_version: int | None = None, *, source: str = "state/changelog.jsonl"
) -> CurrentState:
    """Rebuild the state from the changelog, up to and including `upto_version` (default: the end).

    Starts from the empty state at version 0, or from the `snapshot` of a first `init` entry (a project
    created with starting characters, or a log begun on an existing state). Versions must follow on
    without gaps. Replaying the whole log gives exactly `current-state.json` (same `to_data()`).
    """
    state = CurrentState()
    foreign = False  # another tool's lines (history only, see models/changelog.py) not yet followed by an init
    for index, entry in enumerate(entries):
        if entry.kind == "foreign":
            foreign = True
            continue
        if foreign and entry.kind != "init":
            raise FormatError([problem(source, "foreign_no_base", json_path=f"$[{index}]")])
        foreign = False
        if entry.kind != "init":
            if entry.base_state_version != state.state_version:
                raise FormatError(
                    [problem(source, "log_gap", json_path=f"$[{index}]", base=entry.base_state_version,
                             at=state.state_version)]
                )
            if upto_version is not None and state.state_version >= upto_version:
                break
        state = _apply_entry(state, entry, source, index)
    if foreign:
        raise FormatError([problem(source, "foreign_no_base")])
    if upto_version is not None and state.state_version != upto_version:
        first = entries[0].base_state_version if entries else 0
        raise mismatch("no_version", source=source, version=upto_version, first=first, last=state.state_version)
    return state


def replay_from(
    base: CurrentState,
    entries: Sequence[ChangelogEntry],
    upto_version: int | None = None,
    *,
    source: str = "state/changelog.jsonl",
) -> CurrentState:
    """Like `replay`, but starting from `base` (a snapshot of some version) instead of the log's start:
    the entries after `base.state_version` are applied in order, up to `upto_version` (default: the end)."""
    state = base
    for index, entry in enumerate(entries):
        if entry.kind == "init" or entry.state_version <= base.state_version:
            continue
        if upto_version is not None and state.state_version >= upto_version:
            break
        if entry.base_state_version != state.state_version:
            raise FormatError(
                [problem(source, "replay_gap", json_path=f"$[{index}]", base=entry.base_state_version,
                         at=state.state_version)]
            )
        state = _apply_entry(state, entry, source, index)
    if upto_version is not None and state.state_version != upto_version:
        raise mismatch("no_version_after", source=source, version=upto_version, base=base.state_version)
    return state


def log_describes(entries: Sequence[ChangelogEntry], state: CurrentState, *, source: str = "") -> bool:
    """True when replaying the whole log from its start gives exactly `state`: then every older version
    can be replayed from the log alone. False for a log begun on a state it does not record (another
    tool's project, hand edits, lost lines): replaying it from empty would drop what it does not describe."""
    if not entries:
        return state.is_empty() and state.state_version == 0
    try:
        return replay(entries, source=source or "changelog").to_data() == state.to_data()
    except (FormatError, StateVersionMismatch):
        return False


# --------------------------------------------------------------------------- merge and repair


def load_state(paths: ProjectPaths) -> CurrentState:
    """`state/current-state.json`; a missing file is the empty state at version 0."""
    return CurrentState.load_or_default(paths.current_state)


def _check_in_step(paths: ProjectPaths, state: CurrentState, last_entry: ChangelogEntry | None) -> None:
    if last_entry is None or last_entry.kind == "foreign":
        return
    last = last_entry.state_version
    if last == state.state_version:
        return
    if last == state.state_version + 1:
        raise mismatch(
            "merge_interrupted", changelog=paths.changelog, last=last, state=paths.current_state, at=state.state_version
        )
    raise mismatch("state_behind", state=paths.current_state, at=state.state_version, changelog=paths.changelog, last=last)


def _now() -> str:
    return datetime.now().astimezone().isoformat(timespec="seconds")


def merge_patch(paths: ProjectPaths, patch: StatePatch, *, kind: ChangelogKind = "patch") -> ChangelogEntry:
    """Merge a chapter's patch into `state/current-state.json` and log it; returns the logged entry.

    Raises StateVersionMismatch if `patch.base_state_version` is not the state's version, or if the state
    and the changelog are out of step (see `reconcile`). The caller holds the project lock.
    """
    if kind == "init":
        raise UsageError("merge_patch cannot write an init entry; use init_state")
    state = load_state(paths)
    last_entry = last_changelog_entry(paths.changelog)
    _check_in_step(paths, state, last_entry)
    if patch.base_state_version != state.state_version:
        raise mismatch(
            "patch_behind", chapter=patch.chapter, base=patch.base_state_version, state=paths.current_state,
            at=state.state_version,
        )
    foreign_tail = last_entry is not None and last_entry.kind == "foreign"
    if foreign_tail or (last_entry is None and (state.state_version != 0 or not state.is_empty())):
        # The log starts on a non-empty state, or goes on after another tool's unversioned lines: record
        # the state so replay can start from it.
        _append_entry(paths.changelog, _init_entry(state))
    new_state, applied, warnings = apply_patch(state, patch)
    new_state = new_state.model_copy(
        update={"state_version": state.state_version + 1, "last_updated_chapter": patch.chapter}
    )
    entry = ChangelogEntry(
        state_version=new_state.state_version,
        base_state_version=state.state_version,
        chapter=patch.chapter,
        storyline_id=patch.storyline_id,
        kind=kind,
        ops=applied,
        warnings=warnings,
        recorded_at=_now(),
    )
    _append_entry(paths.changelog, entry)  # log first: see the module docstring
    new_state.save(paths.current_state)
    return entry


REVIEW_CLEANUP_FIELD = "review_cleanup"
"""Marks a changelog line written by the volume review's clean-up (its value: the volume). Such a line belongs
to no chapter's ops: undo cuts the log at the chapter's own line (dropping the clean-up after it) and a rebuild
never lets it stand for the chapter (`pipeline.rebuild.effective_chain`)."""


def is_review_cleanup(entry: ChangelogEntry) -> bool:
    return getattr(entry, REVIEW_CLEANUP_FIELD, None) is not None


def merge_snapshot(paths: ProjectPaths, state: CurrentState, *, chapter: int, volume: int) -> ChangelogEntry:
    """Log a deliberate rewrite of the whole state (the volume review's clean-up: entries removed, which no op
    can express) as one line whose `snapshot` is the new state, then write the state; returns the entry.

    Same write order and checks as `merge_patch` (log first; refused on a log out of step). `state` must be
    made from the current state (its `state_version`); the new version is one more. The caller holds the lock.
    """
    current = load_state(paths)
    last_entry = last_changelog_entry(paths.changelog)
    _check_in_step(paths, current, last_entry)
    if state.state_version != current.state_version:
        raise mismatch("rewrite_behind", base=state.state_version, state=paths.current_state, at=current.state_version)
    if last_entry is None or last_entry.kind == "foreign":
        _append_entry(paths.changelog, _init_entry(current))
    entry = ChangelogEntry.model_validate(
        {
            "state_version": current.state_version + 1,
            "base_state_version": current.state_version,
            "chapter": chapter,
            "kind": "patch",
            "recorded_at": _now(),
            "snapshot": state.to_data(),
            REVIEW_CLEANUP_FIELD: volume,
        }
    )
    new_state = state.model_copy(update={"state_version": entry.state_version, "last_updated_chapter": chapter})
    _append_entry(paths.changelog, entry)  # log first: see the module docstring
    new_state.save(paths.current_state)
    return entry


def _init_entry(state: CurrentState) -> ChangelogEntry:
    return ChangelogEntry(
        state_version=state.state_version,
        base_state_version=state.state_version,
        chapter=state.last_updated_chapter,
        kind="init",
        recorded_at=_now(),
        snapshot=state.to_data(),
    )


def init_state(paths: ProjectPaths, state: CurrentState) -> ChangelogEntry:
    """Start a project's state log with `state` (e.g. the sample novel's characters) as its base."""
    if load_changelog(paths.changelog):
        raise UsageError(f"{paths.changelog} already has entries; the starting state cannot change now")
    entry = _init_entry(state)
    _append_entry(paths.changelog, entry)
    state.save(paths.current_state)
    return entry


def reconcile(paths: ProjectPaths) -> bool:
    """Repair what an interrupted merge can leave; returns True if something was repaired.

    - a torn last changelog line is dropped (its merge never reached the state);
    - a changelog one version ahead of the state (or a missing state file next to a log) is finished by
      re-applying the logged ops, which gives exactly the state the merge would have written.
    Any other disagreement raises StateVersionMismatch: that needs a deliberate rebuild.
    """
    before = paths.changelog.read_bytes() if paths.changelog.exists() else b""
    entries = load_changelog(paths.changelog, repair_tail=True)
    repaired = paths.changelog.exists() and paths.changelog.read_bytes() != before
    if not entries:
        return repaired
    if not paths.current_state.exists():
        replay(entries, source=str(paths.changelog)).save(paths.current_state)
        return True
    state = load_state(paths)
    last = entries[-1]
    if last.state_version == state.state_version + 1:
        _apply_entry(state, last, str(paths.changelog), len(entries) - 1).save(paths.current_state)
        return True
    _check_in_step(paths, state, entries[-1] if entries else None)
    return repaired
