"""The project files each quick-start step writes, computed from a checked reply and the project as it is
(reads files, writes nothing: `studio.planning.quick_start_progress` stages and applies them; the one writer
here is `write_main_arc`, for `plan` on a project without storylines).

Formats are the models' (`to_data()` of a validated model, so every file is valid by its model):
- world step: `world/rules.json` (the project's rules plus the reply's, a clashing id renumbered to the next
  free `W-NNN`), the reply's notes `world/<slug>.md`, `world/names.json` (registered names added, existing
  ones kept), `world/changelog.md` (one dated entry appended);
- characters step: `characters/active/<id>.json` (CharacterFile: display_name, aliases, contracts; role and
  speech pattern kept as extra fields) and `<id>.md` (the profile), `characters/relationships.json`,
  `characters/changelog.md`;
- storyline step: `storylines/storylines.json` with the one line `main-arc` (type `main_arc`, the protagonist
  as POV), `storylines/main-arc/memory.md` (at most `MEMORY_MAX_CHARS`), `storylines/storyline-spec.json`
  (the default LS spec when the project has none). `main_arc_files` is also what `plan` uses on a project
  without storylines, so that a first plan never names a line storylines.json lacks.
"""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path
from typing import Any

from studio.fileio import atomic_write_text, dumps_json, read_text
from studio.models.character import CharacterFile
from studio.models.names import NamesFile
from studio.models.relationships import Relationships
from studio.models.storyline_spec import StorylineSpec, default_storyline_spec
from studio.models.storylines import Storyline, Storylines
from studio.models.world_rules import WorldRules
from studio.paths import ProjectPaths
from studio.planning.quick_start_replies import CastReply, LightWorldReply

__all__ = [
    "MAIN_ARC",
    "MEMORY_MAX_CHARS",
    "cast_files",
    "main_arc_files",
    "protagonist_of",
    "world_files",
    "write_main_arc",
]

MAIN_ARC = "main-arc"
MEMORY_MAX_CHARS = 500
_RULE_ID = re.compile(r"^W-(\d+)$")


def _rel(paths: ProjectPaths, path: Path) -> str:
    return path.relative_to(paths.root).as_posix()


def _json(data: Any) -> str:
    return dumps_json(data)


def _changelog(path: Path, title: str, body: str) -> str:
    before = read_text(path).rstrip() + "\n\n" if path.is_file() else f"# {title}\n\n"
    return before + f"## {date.today().isoformat()} 快速起步\n\n{body.strip() or '（无说明）'}\n"


def world_files(paths: ProjectPaths, reply: LightWorldReply) -> tuple[dict[str, str], dict[str, Any]]:
    """(files, progress fields) of the world step."""
    files: dict[str, str] = {}
    rules = WorldRules.load_or_default(paths.world_rules)
    taken = {r.id for r in rules.rules}
    numbers = [int(m.group(1)) for r in taken if (m := _RULE_ID.match(r))]
    next_n = max(numbers, default=0) + 1
    added = []
    for rule in reply.rules:
        if rule.id in taken:
            while f"W-{next_n:03d}" in taken:
                next_n += 1
            rule = rule.model_copy(update={"id": f"W-{next_n:03d}"})
        taken.add(rule.id)
        added.append(rule)
    merged = WorldRules.parse_data({**rules.to_data(), "rules": [*rules.to_data()["rules"],
                                                                 *(r.model_dump(by_alias=True) for r in added)]})
    files[_rel(paths, paths.world_rules)] = _json(merged.to_data())
    for note in reply.files:
        files[note.path] = note.content.rstrip() + "\n"
    if reply.names:
        names = NamesFile.load_or_default(paths.names)
        known = {e.name for e in names.entities}
        new = [e for e in reply.names if e.name not in known]
        if new:
            data = names.to_data()
            data["entities"] = [*data.get("entities", []), *(e.model_dump(exclude_none=True) for e in new)]
            files[_rel(paths, paths.names)] = _json(NamesFile.parse_data(data).to_data())
    lines = [reply.changelog.strip()] + [f"- {r.id}：{r.rule}" for r in added]
    files["world/changelog.md"] = _changelog(paths.root / "world" / "changelog.md", "世界观变更记录", "\n".join(lines))
    arc = reply.main_arc()
    progress = {"main_arc": arc.model_dump(by_alias=True)} if arc is not None else {}
    return files, progress


def protagonist_of(reply: CastReply) -> str:
    return next((c.id for c in reply.characters if c.role == "protagonist"), reply.characters[0].id)


def cast_files(paths: ProjectPaths, reply: CastReply) -> dict[str, str]:
    files: dict[str, str] = {}
    for c in reply.characters:
        data: dict[str, Any] = {
            "id": c.id,
            "display_name": c.display_name,
            "aliases": c.aliases,
            "contracts": [k.model_dump(by_alias=True, exclude_none=True) for k in c.contracts],
        }
        if c.role:
            data["role"] = c.role
        if c.speech_pattern:
            data["speech_pattern"] = c.speech_pattern
        files[_rel(paths, paths.character(c.id))] = _json(CharacterFile.parse_data(data).to_data())
        profile = c.profile_md.strip() or f"# {c.display_name}\n"
        if not profile.startswith("#"):
            profile = f"# {c.display_name}\n\n{profile}"
        files[_rel(paths, paths.character_profile(c.id))] = profile.rstrip() + "\n"
    rel_path = paths.characters_active.parent / "relationships.json"
    existing = Relationships.load_or_default(rel_path)
    data = existing.to_data()
    data["relationships"] = [*data.get("relationships", []),
                             *(r.model_dump(by_alias=True) for r in reply.relationships)]
    files[_rel(paths, rel_path)] = _json(Relationships.parse_data(data).to_data())
    names = "、".join(f"{c.display_name}（{c.id}）" for c in reply.characters)
    files["characters/changelog.md"] = _changelog(
        paths.characters_active.parent / "changelog.md", "角色变更记录", f"{reply.changelog.strip()}\n\n新增角色：{names}"
    )
    return files


def main_arc_files(paths: ProjectPaths, suggestion: dict[str, Any] | None, protagonist: str | None) -> dict[str, str]:
    """storylines.json with `main-arc` (kept as it is when it is there), its memory and the LS spec if missing."""
    files: dict[str, str] = {}
    lines = Storylines.load_or_default(paths.storylines)
    line = lines.get(MAIN_ARC)
    if line is None:
        data = dict(suggestion or {})
        data.update(id=MAIN_ARC, type="main_arc", status="active")
        data.setdefault("name", "主线")
        data.setdefault("scope", "novel")
        data.setdefault("introduced_volume", 1)
        data["introduced_volume"] = data.get("introduced_volume") or 1
        if protagonist and not data.get("pov_characters"):
            data["pov_characters"] = [protagonist]
        line = Storyline.model_validate(data)
        out = lines.to_data()
        out["storylines"] = [line.model_dump(by_alias=True), *out.get("storylines", [])]
        files[_rel(paths, paths.storylines)] = _json(Storylines.parse_data(out).to_data())
    memory = paths.storyline_memory(MAIN_ARC)
    if not memory.is_file():
        text = f"# {line.name}\n\n{line.description or '主线尚未开始。'}"
        files[_rel(paths, memory)] = text[:MEMORY_MAX_CHARS].rstrip() + "\n"
    if not paths.storyline_spec.is_file():
        files[_rel(paths, paths.storyline_spec)] = _json(default_storyline_spec().to_data())
    else:
        StorylineSpec.load(paths.storyline_spec)  # a broken spec is the author's to fix: FormatError names it
    return files


def write_main_arc(paths: ProjectPaths) -> list[str]:
    """Give a project without storylines its `main-arc` (POV: a character whose role is protagonist, if any).
    Each file is written whole and atomically; running it again changes nothing. Returns the files written."""
    protagonist = None
    for path in sorted(paths.characters_active.glob("*.json")):
        if getattr(CharacterFile.load(path), "role", None) == "protagonist":
            protagonist = path.stem
            break
    files = main_arc_files(paths, None, protagonist)
    for rel, text in files.items():
        atomic_write_text(paths.root / rel, text)
    return sorted(files)
