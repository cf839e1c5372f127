"""Character tool mode (seed 000 §5.2 CharacterWeaver modes; seed 002 §8.5 archiving; issue 7 item 6).

Each function reads the project, builds the whole change as a `ChangeSet` (nothing is written here) and
returns a `ToolPlan`: the diff to show, the human-readable changelog entry (`characters/changelog.md`, part of
the change set) and what else the change touches (`studio.tools.affects`). The CLI shows it, asks, and
applies it with `studio.tools.txn.apply_changes`.

- add: `characters/active/<slug>.json` (display name, role, aliases, L2 contracts) and `<slug>.md` (the
  profile), the character's relationships merged into `characters/relationships.json` (one entry per
  from/to pair; endpoints must be known characters), an entry in the state. From CharacterWeaver's reply
  (`studio.tools.replies.ToolCharacter`) or, with `--manual`, a skeleton with no contract. The slug is the
  pinyin of the name (a numeric suffix when taken); a name already used by another character is refused.
- update: top-level fields set by the author (`k=v`, the value read as JSON when it parses, else text), or
  CharacterWeaver's reply merged in: contracts replaced by id or appended (never dropped), aliases joined,
  the profile replaced. `id` and `display_name` change only by rename.
- rename: the display name everywhere that describes what is still to come: the character file (the slug
  kept, or renamed with `new_slug`: files moved, `id` changed), the state entry (and other characters'
  relationship keys), `relationships.json`, `storylines.json`, `world/names.json`, other characters' contracts
  and profiles, the outline entries, schedules' future convergence events and contracts of unwritten chapters.
  Committed chapters, summaries and the foreshadowing history are records of what was written and are not
  changed; the report lists the chapters whose text still uses the old name.
- retire: refused while the character is protected (seed 002 §8.5): named by an open medium or long thread,
  tied to any storyline (dormant ones too: POV, description, shared characters of a storyline relationship),
  or named by a convergence event not yet written. Otherwise the files move to `characters/retired/` (the
  reason and chapter recorded in the file), the state entry and the relationships involving it are removed,
  and the name is registered in `world/names.json` (kind `retired_character`) so the name checks still know
  it in the chapters already written.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from studio.errors import FormatError, UnsafeIdError
from studio.fileio import dumps_json
from studio.i18n import Catalog, Lang, tr
from studio.ids import is_slug, slugify
from studio.models.character import CharacterFile
from studio.models.foreshadowing import ForeshadowingLedger
from studio.models.names import NamesFile
from studio.models.relationships import Relationship, Relationships
from studio.models.schedule import StorylineSchedule
from studio.models.state import CharacterState, CurrentState
from studio.models.storylines import Storylines
from studio.paths import ProjectPaths
from studio.tools import shared
from studio.tools.affects import character_impact, text_mentions
from studio.tools.plan import ToolPlan
from studio.tools.replies import ToolCharacter
from studio.tools.shared import (
    ToolError,
    character_changelog,
    contract_files,
    last_written_chapter,
    load_json_in,
    log_changelog_md,
    outline_sections,
    replace_in_data,
    replace_in_text,
    retired_dir,
    tool_state_change,
    volume_dirs,
)
from studio.tools.txn import ChangeSet

__all__ = [
    "RetireBlocked",
    "ToolPlan",
    "add_character",
    "load_characters",
    "rename_character",
    "retire_blockers",
    "retire_character",
    "update_character",
]

MESSAGES: Catalog = {
    "changelog": ("角色变更记录", "Character changes"),
    "t_add": ("新增角色：{name}（{slug}）", "added {name} ({slug})"),
    "t_update": ("修改角色：{name}（{slug}）", "updated {name} ({slug})"),
    "t_rename": ("改名：{old} → {new}（{slug}）", "renamed {old} -> {new} ({slug})"),
    "t_retire": ("退场：{name}（{slug}）", "retired {name} ({slug})"),
    "l_source_model": ("来源：模型生成", "source: written by the model"),
    "l_source_manual": ("来源：手动骨架（无契约，请补充）", "source: a manual skeleton (no contract yet: add some)"),
    "l_role": ("定位：{role}", "role: {role}"),
    "l_contracts": ("L2 契约 {n} 条：{ids}", "{n} L2 contracts: {ids}"),
    "l_aliases": ("别名：{aliases}", "aliases: {aliases}"),
    "l_relations": ("关系：{items}", "relationships: {items}"),
    "l_field": ("{key}：{old} → {new}", "{key}: {old} -> {new}"),
    "l_contract_new": ("新增契约 {id}：{rule}", "new contract {id}: {rule}"),
    "l_contract_changed": ("修改契约 {id}：{rule}", "changed contract {id}: {rule}"),
    "l_note": ("作者要求：{note}", "author's note: {note}"),
    "l_slug": ("角色 id：{old} → {new}", "character id: {old} -> {new}"),
    "l_files": ("改动的文件：{files}", "files changed: {files}"),
    "l_mentions": ("已提交章节中仍用旧名的：{items}（正文不改）", "committed chapters still using the old name: {items} "
                   "(their text is not changed)"),
    "l_reason": ("原因：{reason}", "reason: {reason}"),
    "l_affects": ("受影响的未写章节：{items}", "unwritten chapters affected: {items}"),
    "no_character": ("没有角色 {slug}（characters/active/{slug}.json）", "no character {slug} (characters/active/{slug}.json)"),
    "name_taken": ("名字“{name}”已被角色 {owner} 使用", "the name \"{name}\" is already used by {owner}"),
    "name_entity": ("名字“{name}”已登记在 world/names.json（{kind}）", "the name \"{name}\" is registered in "
                    "world/names.json ({kind})"),
    "slug_taken": ("角色 id {slug} 已存在", "character id {slug} already exists"),
    "bad_slug": ("角色 id {slug} 不合法（小写字母、数字与连字符）", "character id {slug} is not valid (lowercase letters, "
                 "digits and '-')"),
    "bad_field": ("不能用 --field 修改 {key}：{why}", "cannot set {key} with --field: {why}"),
    "use_rename": ("改名请用 novel-studio character rename", "use `novel-studio character rename`"),
    "fixed_id": ("id 与文件名一致，不能修改", "the id is the file name"),
    "invalid": ("修改后的角色文件不合法，未做任何改动：\n{problems}", "the changed character file would be invalid; "
                "nothing was changed:\n{problems}"),
    "same_name": ("新名字与原名相同", "the new name is the current name"),
    "empty_name": ("名字不能为空", "the name cannot be empty"),
    "unknown_end": ("关系 {a} → {b} 指向不存在的角色，已略去", "relationship {a} -> {b} names an unknown character; "
                    "left out"),
    "nothing": ("没有需要修改的内容", "nothing to change"),
    "b_thread": ("伏笔 {id}（{scope}，{status}）：{text}", "thread {id} ({scope}, {status}): {text}"),
    "b_storyline": ("故事线 {id}（{name}，{status}）：{why}", "storyline {id} ({name}, {status}): {why}"),
    "b_pov": ("视角角色", "a POV character"),
    "b_mention": ("描述提到“{word}”", "its description names \"{word}\""),
    "b_bridge": ("故事线关系 {a} ↔ {b} 的共享角色", "a shared character of storylines {a} <-> {b}"),
    "b_event": ("第 {volume} 卷交汇事件（第 {first}-{last} 章）：{text}", "volume {volume} convergence event "
                "(chapters {first}-{last}): {text}"),
    "blocked": ("{name}（{slug}）受归档保护，不能退场：\n{items}", "{name} ({slug}) is protected and cannot be retired:\n"
                "{items}"),
}


RETIRED_KIND = "retired_character"  # `world/names.json` kind of a retired character's name


class RetireBlocked(ToolError):
    def __init__(self, message: str, blockers: list[str]) -> None:
        super().__init__(message)
        self.blockers = blockers


# ------------------------------------------------------------------------------------------ loading


def load_characters(paths: ProjectPaths) -> dict[str, CharacterFile]:
    out: dict[str, CharacterFile] = {}
    folder = paths.characters_active
    if folder.is_dir():
        for path in sorted(folder.glob("*.json")):
            if is_slug(path.stem):
                out[path.stem] = CharacterFile.load(path)
    return out


def _raw_character(changes: ChangeSet, paths: ProjectPaths, slug: str, lang: Lang) -> dict[str, Any]:
    try:
        path = paths.character(slug)
    except UnsafeIdError:
        raise ToolError(tr(MESSAGES, "bad_slug", lang, slug=slug)) from None
    data = load_json_in(changes, path)
    if not isinstance(data, dict):
        raise ToolError(tr(MESSAGES, "no_character", lang, slug=slug))
    CharacterFile.parse_data(data, path)  # a broken file is reported with its path, never rewritten
    return data


def _validated(data: Mapping[str, Any], path: Path, lang: Lang, slug: str) -> CharacterFile:
    try:
        character = CharacterFile.parse_data(dict(data), path)
    except FormatError as exc:
        problems = exc.problems
    else:
        problems = [p.at(path) for p in character.problems(slug)]
        if not problems:
            return character
    raise ToolError(tr(MESSAGES, "invalid", lang, problems="\n".join(f"- {p.describe(lang)}" for p in problems)))


def _check_name_free(paths: ProjectPaths, name: str, lang: Lang, *, except_slug: str | None = None) -> None:
    for slug, character in load_characters(paths).items():
        if slug != except_slug and name in (character.display_name, *character.aliases):
            raise ToolError(tr(MESSAGES, "name_taken", lang, name=name, owner=f"{character.display_name}（{slug}）"))
    if paths.names.is_file():
        for entity in NamesFile.load(paths.names).entities:
            if name in (entity.name, *entity.aliases):
                raise ToolError(tr(MESSAGES, "name_entity", lang, name=name, kind=entity.kind))


def _slug_taken(paths: ProjectPaths, slug: str) -> bool:
    return (paths.characters_active / f"{slug}.json").exists() or (retired_dir(paths) / f"{slug}.json").exists()


def _free_slug(paths: ProjectPaths, base: str) -> str:
    slug, n = base, 1
    while _slug_taken(paths, slug):
        n += 1
        slug = f"{base}-{n}"
    return slug


def _relationships(changes: ChangeSet, paths: ProjectPaths) -> tuple[Path, dict[str, Any]]:
    path = paths.characters_active.parent / "relationships.json"
    data = load_json_in(changes, path)
    if data is None:
        data = {"relationships": []}
    Relationships.parse_data(data, path)
    return path, data


def _save_json(changes: ChangeSet, path: Path, data: Any) -> None:
    changes.write_text(path, dumps_json(data))


def _files_line(changes: ChangeSet, lang: Lang) -> str:
    return tr(MESSAGES, "l_files", lang, files="、".join(c.path for c in changes.changes()) or "-")


def _finish(plan: ToolPlan, paths: ProjectPaths, lang: Lang) -> ToolPlan:
    """Add the affected chapters and the changed files to the entry, and the entry to the change set."""
    if plan.impact.unwritten:
        items = "、".join(f"第{n}章" if lang == "zh" else f"ch {n}" for n in sorted(plan.impact.unwritten))
        plan.lines.append(tr(MESSAGES, "l_affects", lang, items=items))
    plan.lines.append(_files_line(plan.changes, lang))
    log_changelog_md(plan.changes, character_changelog(paths), plan.title, plan.lines,
                     heading=tr(MESSAGES, "changelog", lang))
    return plan


# ------------------------------------------------------------------------------------------ add


def _merge_relationships(changes: ChangeSet, paths: ProjectPaths, slug: str, relationships: Sequence[Relationship],
                         lines: list[str], lang: Lang) -> None:
    """One entry per from/to pair in `relationships.json` (the new one replaces the old); endpoints that name
    no character are left out with a line saying so."""
    if not relationships:
        return
    known = {*load_characters(paths), slug}
    rel_path, rel_data = _relationships(changes, paths)
    entries = list(rel_data.get("relationships", []))
    kept: list[str] = []
    for rel in relationships:
        if rel.from_ not in known or rel.to not in known:
            lines.append(tr(MESSAGES, "unknown_end", lang, a=rel.from_, b=rel.to))
            continue
        entries = [e for e in entries if not (e.get("from") == rel.from_ and e.get("to") == rel.to)]
        entries.append(rel.model_dump(mode="json", by_alias=True))
        kept.append(f"{rel.from_}→{rel.to} {rel.score}")
    _save_json(changes, rel_path, {**rel_data, "relationships": entries})
    if kept:
        lines.append(tr(MESSAGES, "l_relations", lang, items="；".join(kept)))


def add_character(
    paths: ProjectPaths,
    name: str,
    *,
    draft: ToolCharacter | None = None,
    relationships: Sequence[Relationship] = (),
    role: str = "",
    brief: str = "",
    slug: str | None = None,
    lang: Lang = "zh",
) -> ToolPlan:
    """A new character from CharacterWeaver's `draft`, or (draft None) a skeleton without contracts."""
    name = name.strip()
    if not name:
        raise ToolError(tr(MESSAGES, "empty_name", lang))
    _check_name_free(paths, name, lang)
    if slug is not None:
        if not is_slug(slug):
            raise ToolError(tr(MESSAGES, "bad_slug", lang, slug=slug))
        if _slug_taken(paths, slug):
            raise ToolError(tr(MESSAGES, "slug_taken", lang, slug=slug))
    else:
        base = draft.id if draft is not None else slugify(name)
        slug = _free_slug(paths, base)
    changes = ChangeSet(paths)
    path = paths.character(slug)
    if draft is not None:
        data = {**draft.file_fields(), "id": slug, "display_name": name}
        if role and not data.get("role"):
            data["role"] = role
        profile = draft.profile_md.strip()
    else:
        data = {"id": slug, "display_name": name, **({"role": role} if role else {}), "aliases": [], "contracts": []}
        profile = ""
    data["aliases"] = [a for a in data.get("aliases", []) if a != name]
    for alias in data["aliases"]:
        _check_name_free(paths, alias, lang)
    character = _validated(data, path, lang, slug)
    _save_json(changes, path, data)
    if not profile:
        profile = (f"# {name}\n\n- 身份：{role or '（待补充）'}\n- 目标：\n- 动机：\n- 内在矛盾：\n- 说话风格：\n"
                   + (f"\n{brief.strip()}\n" if brief.strip() else ""))
    changes.write_text(paths.character_profile(slug), profile.rstrip() + "\n")
    lines = [tr(MESSAGES, "l_source_model" if draft is not None else "l_source_manual", lang)]
    if data.get("role"):
        lines.append(tr(MESSAGES, "l_role", lang, role=data["role"]))
    if character.aliases:
        lines.append(tr(MESSAGES, "l_aliases", lang, aliases="、".join(character.aliases)))
    if character.contracts:
        lines.append(tr(MESSAGES, "l_contracts", lang, n=len(character.contracts),
                        ids="、".join(c.id for c in character.contracts)))
    _merge_relationships(changes, paths, slug, relationships, lines, lang)

    def add_entry(state: CurrentState) -> CurrentState:
        if slug not in state.characters:
            state.characters = {**state.characters, slug: CharacterState(display_name=name)}
        return state

    tool_state_change(changes, add_entry)
    plan = ToolPlan("character add", tr(MESSAGES, "t_add", lang, name=name, slug=slug), changes,
                    character_impact(paths, slug, [name, *character.aliases], lang=lang), lines,
                    {"slug": slug, "display_name": name, "manual": draft is None})
    return _finish(plan, paths, lang)


# ------------------------------------------------------------------------------------------ update


def _parse_value(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def parse_fields(items: Sequence[str], lang: Lang = "zh") -> dict[str, Any]:
    """`k=v` pairs (the value as JSON when it parses, else as text)."""
    out: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise ToolError(tr(MESSAGES, "bad_field", lang, key=item, why="k=v"))
        out[key] = _parse_value(value)
    return out


def _short(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 60 else text[:57] + "..."


def update_character(
    paths: ProjectPaths,
    slug: str,
    *,
    fields: Mapping[str, Any] | None = None,
    draft: ToolCharacter | None = None,
    relationships: Sequence[Relationship] = (),
    note: str = "",
    lang: Lang = "zh",
) -> ToolPlan:
    changes = ChangeSet(paths)
    data = _raw_character(changes, paths, slug, lang)
    path = paths.character(slug)
    new = dict(data)
    lines: list[str] = []
    for key, value in (fields or {}).items():
        if key == "display_name":
            raise ToolError(tr(MESSAGES, "bad_field", lang, key=key, why=tr(MESSAGES, "use_rename", lang)))
        if key == "id":
            raise ToolError(tr(MESSAGES, "bad_field", lang, key=key, why=tr(MESSAGES, "fixed_id", lang)))
        lines.append(tr(MESSAGES, "l_field", lang, key=key, old=_short(data.get(key, "-")), new=_short(value)))
        new[key] = value
    if draft is not None:
        incoming = draft.file_fields()
        for key in ("id", "display_name", "contracts", "aliases"):
            incoming.pop(key, None)
        for key, value in incoming.items():
            if value not in (None, "", []) and new.get(key) != value:
                lines.append(tr(MESSAGES, "l_field", lang, key=key, old=_short(new.get(key, "-")), new=_short(value)))
                new[key] = value
        aliases = list(dict.fromkeys([*new.get("aliases", []), *draft.aliases]))
        aliases = [a for a in aliases if a != new.get("display_name")]
        for alias in aliases:
            if alias not in new.get("aliases", []):
                _check_name_free(paths, alias, lang, except_slug=slug)
        if aliases != new.get("aliases", []):
            lines.append(tr(MESSAGES, "l_aliases", lang, aliases="、".join(aliases)))
        new["aliases"] = aliases
        contracts = [dict(c) for c in new.get("contracts", [])]
        by_id = {c.get("id"): i for i, c in enumerate(contracts)}
        for contract in draft.contracts:
            cdata = contract.model_dump(mode="json", by_alias=True)
            if contract.id in by_id:
                old = contracts[by_id[contract.id]]
                merged = {**old, **cdata}
                if merged != old:
                    contracts[by_id[contract.id]] = merged
                    lines.append(tr(MESSAGES, "l_contract_changed", lang, id=contract.id, rule=contract.rule))
            else:
                contracts.append(cdata)
                lines.append(tr(MESSAGES, "l_contract_new", lang, id=contract.id, rule=contract.rule))
        new["contracts"] = contracts
        if draft.profile_md.strip():
            changes.write_text(paths.character_profile(slug), draft.profile_md.strip() + "\n")
    character = _validated(new, path, lang, slug)
    if new != data:
        _save_json(changes, path, new)
    _merge_relationships(changes, paths, slug, relationships, lines, lang)
    if not changes.changes():
        raise ToolError(tr(MESSAGES, "nothing", lang))
    if note:
        lines.insert(0, tr(MESSAGES, "l_note", lang, note=note))
    name = character.display_name
    plan = ToolPlan("character update", tr(MESSAGES, "t_update", lang, name=name, slug=slug), changes,
                    character_impact(paths, slug, [name, *character.aliases], lang=lang), lines, {"slug": slug})
    return _finish(plan, paths, lang)


# ------------------------------------------------------------------------------------------ rename


def _outline_rename(text: str, written: int, names: Mapping[str, str], slug: str, new_slug: str) -> str:
    sections = outline_sections(text)
    numbers = [n for n, _ in sections if n is not None]
    whole_volume_unwritten = bool(numbers) and min(numbers) > written
    out = []
    for number, body in sections:
        if (number is None and whole_volume_unwritten) or (number is not None and number > written):
            body = replace_in_text(body, names)
            if new_slug != slug:
                body = re.sub(rf"(?m)^([ \t]*[-*+][ \t]*[*_]*POV[*_]*[ \t]*[:：][ \t]*){re.escape(slug)}[ \t]*$",
                              lambda m: m.group(1) + new_slug, body)
        out.append(body)
    return "".join(out)


def rename_character(
    paths: ProjectPaths,
    slug: str,
    new_name: str,
    *,
    new_slug: str | None = None,
    keep_alias: bool = False,
    lang: Lang = "zh",
) -> ToolPlan:
    changes = ChangeSet(paths)
    data = _raw_character(changes, paths, slug, lang)
    old = str(data["display_name"])
    new_name = new_name.strip()
    if not new_name:
        raise ToolError(tr(MESSAGES, "empty_name", lang))
    if new_name == old:
        raise ToolError(tr(MESSAGES, "same_name", lang))
    _check_name_free(paths, new_name, lang, except_slug=slug)
    target = new_slug or slug
    if target != slug:
        if not is_slug(target):
            raise ToolError(tr(MESSAGES, "bad_slug", lang, slug=target))
        if _slug_taken(paths, target):
            raise ToolError(tr(MESSAGES, "slug_taken", lang, slug=target))
    impact = character_impact(paths, slug, [old, *data.get("aliases", [])], new_name=new_name, lang=lang)
    written = last_written_chapter(paths)
    names = {old: new_name}

    def text(value: str) -> str:
        return target if value == slug else replace_in_text(value, names)

    def key(value: str) -> str:
        return target if value == slug else value

    # the character's own file (and profile)
    aliases = [a for a in data.get("aliases", []) if a != new_name]
    if keep_alias and old not in aliases:
        aliases.append(old)
    if not keep_alias:
        aliases = [a for a in aliases if a != old]
    new = {k: (v if k in ("id", "display_name", "aliases") else replace_in_data(v, text)) for k, v in data.items()}
    new.update(display_name=new_name, aliases=aliases)
    if "id" in new or target != slug:
        new["id"] = target
    _validated(new, paths.character(target), lang, target)
    profile = changes.read_text(paths.character_profile(slug))
    if target != slug:
        changes.delete(paths.character(slug))
        if profile is not None:
            changes.delete(paths.character_profile(slug))
    _save_json(changes, paths.character(target), new)
    if profile is not None:
        changes.write_text(paths.character_profile(target), replace_in_text(profile, names))
    # other characters: contracts and profiles that name this one
    for other in load_characters(paths):
        if other == slug:
            continue
        other_data = load_json_in(changes, paths.character(other))
        changed = {k: (v if k in ("id", "display_name") else replace_in_data(v, text)) for k, v in other_data.items()}
        if changed != other_data:
            _save_json(changes, paths.character(other), changed)
        other_profile = changes.read_text(paths.character_profile(other))
        if other_profile is not None:
            changes.write_text(paths.character_profile(other), replace_in_text(other_profile, names))
    # relationships, storylines, names registry
    rel_path, rel_data = _relationships(changes, paths)
    if changes.exists(rel_path):
        _save_json(changes, rel_path, replace_in_data(rel_data, text))
    if changes.exists(paths.storylines):
        lines_data = load_json_in(changes, paths.storylines)
        Storylines.parse_data(lines_data, paths.storylines)
        _save_json(changes, paths.storylines, replace_in_data(lines_data, text))
    if changes.exists(paths.names):
        names_data = load_json_in(changes, paths.names)
        NamesFile.parse_data(names_data, paths.names)
        _save_json(changes, paths.names, replace_in_data(names_data, text))
    # what is still to come: outline entries, future convergence events, contracts of unwritten chapters
    for volume_dir in volume_dirs(paths).values():
        outline = volume_dir / "outline.md"
        outline_text = changes.read_text(outline)
        if outline_text is not None:
            changes.write_text(outline, _outline_rename(outline_text, written, names, slug, target))
        schedule_path = volume_dir / "storyline-schedule.json"
        schedule = load_json_in(changes, schedule_path)
        if isinstance(schedule, dict):
            StorylineSchedule.parse_data(schedule, schedule_path)
            events = [
                replace_in_data(e, text) if isinstance(e, dict) and _future(e, written) else e
                for e in schedule.get("convergence_events", [])
            ]
            _save_json(changes, schedule_path, {**schedule, "convergence_events": events})
        for number, files in contract_files(volume_dir).items():
            if number <= written:
                continue
            for path in files:
                if path.suffix == ".json":
                    _save_json(changes, path, replace_in_data(load_json_in(changes, path), text, key))
                else:
                    body = changes.read_text(path) or ""
                    changes.write_text(path, replace_in_text(body, {**names, slug: target} if target != slug else names))

    def rename_entry(state: CurrentState) -> CurrentState:
        characters: dict[str, CharacterState] = {}
        for k, v in state.characters.items():
            entry = v.model_copy(deep=True)
            if entry.relationships and slug in entry.relationships and target != slug:
                entry.relationships = {key(r): s for r, s in entry.relationships.items()}
            if k == slug:
                entry.display_name = new_name
            characters[key(k)] = entry
        state.characters = characters
        return state

    tool_state_change(changes, rename_entry)
    lines = []
    if target != slug:
        lines.append(tr(MESSAGES, "l_slug", lang, old=slug, new=target))
    mentions = text_mentions(paths, [old])
    if mentions:
        items = "、".join((f"第{n}章（{c}处）" if lang == "zh" else f"ch {n} ({c})") for n, c in sorted(mentions.items()))
        lines.append(tr(MESSAGES, "l_mentions", lang, items=items))
    plan = ToolPlan("character rename", tr(MESSAGES, "t_rename", lang, old=old, new=new_name, slug=target), changes,
                    impact, lines, {"slug": target, "old_slug": slug, "old_name": old, "new_name": new_name,
                                    "old_name_in_committed_chapters": {str(k): v for k, v in sorted(mentions.items())}})
    return _finish(plan, paths, lang)


def _future(event: Mapping[str, Any], written: int) -> bool:
    span = event.get("chapter_range")
    return isinstance(span, list) and len(span) == 2 and isinstance(span[1], int) and span[1] > written


# ------------------------------------------------------------------------------------------ retire


def _mention(text: str, words: Sequence[str]) -> str | None:
    return next((w for w in words if len(w) >= 2 and w in text), None)


def retire_blockers(paths: ProjectPaths, slug: str, *, lang: Lang = "zh") -> list[str]:
    """Why `slug` cannot be retired (archive protection, seed 002 §8.5); empty when it can."""
    character = CharacterFile.load(paths.character(slug))
    words = [character.display_name, *character.aliases, slug]
    out: list[str] = []
    if paths.global_foreshadowing.is_file():
        for item in ForeshadowingLedger.load(paths.global_foreshadowing).foreshadowing:
            if item.status == "resolved" or item.scope not in ("medium", "long"):
                continue
            data = item.to_data()
            data.pop("history", None)
            blob = json.dumps(data, ensure_ascii=False)
            if _mention(blob, words) or f'"{slug}"' in blob:
                out.append(tr(MESSAGES, "b_thread", lang, id=item.id, scope=item.scope, status=item.status,
                              text=item.description))
    if paths.storylines.is_file():
        storylines = Storylines.load(paths.storylines)
        for line in storylines.storylines:
            why = None
            if slug in line.pov_characters:
                why = tr(MESSAGES, "b_pov", lang)
            elif (word := _mention(f"{line.name} {line.description}", words)) is not None:
                why = tr(MESSAGES, "b_mention", lang, word=word)
            if why is not None:
                out.append(tr(MESSAGES, "b_storyline", lang, id=line.id, name=line.name, status=line.status, why=why))
        for rel in storylines.relationships:
            if slug in rel.bridges.shared_characters:
                out.append(tr(MESSAGES, "b_bridge", lang, a=rel.from_, b=rel.to))
    written = last_written_chapter(paths)
    for volume, volume_dir in volume_dirs(paths).items():
        path = volume_dir / "storyline-schedule.json"
        if not path.is_file():
            continue
        for event in StorylineSchedule.load(path).convergence_events:
            if event.chapter_range[1] <= written:
                continue
            blob = json.dumps(event.model_dump(mode="json", by_alias=True), ensure_ascii=False)
            if _mention(blob, words) or f'"{slug}"' in blob:
                out.append(tr(MESSAGES, "b_event", lang, volume=volume, first=event.chapter_range[0],
                              last=event.chapter_range[1], text=event.trigger or event.aftermath))
    return out


def shared_now() -> str:
    return shared._now()  # one clock for the tool modules (frozen by the kill tests)


def retire_character(paths: ProjectPaths, slug: str, *, reason: str = "", lang: Lang = "zh") -> ToolPlan:
    changes = ChangeSet(paths)
    data = _raw_character(changes, paths, slug, lang)
    name = str(data["display_name"])
    blockers = retire_blockers(paths, slug, lang=lang)
    if blockers:
        raise RetireBlocked(tr(MESSAGES, "blocked", lang, name=name, slug=slug,
                               items="\n".join(f"- {b}" for b in blockers)), blockers)
    written = last_written_chapter(paths)
    impact = character_impact(paths, slug, [name, *data.get("aliases", [])], lang=lang)
    retired = {**data, "retired": {"chapter": written, "reason": reason,
                                   "date": shared_now()}}
    changes.delete(paths.character(slug))
    _save_json(changes, retired_dir(paths) / f"{slug}.json", retired)
    if changes.exists(paths.character_profile(slug)):
        changes.move(paths.character_profile(slug), retired_dir(paths) / f"{slug}.md")
    rel_path, rel_data = _relationships(changes, paths)
    if changes.exists(rel_path):
        entries = [e for e in rel_data.get("relationships", []) if slug not in (e.get("from"), e.get("to"))]
        _save_json(changes, rel_path, {**rel_data, "relationships": entries})

    # the name stays registered, so the checks still know it in the chapters already written
    names_data = load_json_in(changes, paths.names) or {"version": 1, "entities": []}
    NamesFile.parse_data(names_data, paths.names)
    entity = {"id": slug, "name": name, "kind": RETIRED_KIND, "aliases": list(data.get("aliases", []))}
    kept = [e for e in names_data.get("entities", []) if not (isinstance(e, dict) and e.get("id") == slug)]
    _save_json(changes, paths.names, {**names_data, "entities": [*kept, entity]})

    def remove_entry(state: CurrentState) -> CurrentState:
        state.characters = {k: v for k, v in state.characters.items() if k != slug}
        return state

    tool_state_change(changes, remove_entry)
    lines = [tr(MESSAGES, "l_reason", lang, reason=reason)] if reason else []
    plan = ToolPlan("character retire", tr(MESSAGES, "t_retire", lang, name=name, slug=slug), changes, impact, lines,
                    {"slug": slug, "display_name": name})
    return _finish(plan, paths, lang)
