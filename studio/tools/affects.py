"""What a tool change touches, for its report (seed 000 §6.5.5 change propagation; issue 7 item 6).

- `character_impact(paths, slug, names)`: unwritten outline entries and chapter contracts that name the
  character (its slug, display name or an alias), and written chapters whose stored state patch touches it or
  whose summary mentions it (`studio.impact.impacted_chapters`, the same reasons the rebuild flow shows).
- `rule_impact(paths, rule_id, words)`: unwritten contracts that require the rule or name it, unwritten
  outline entries that name it, written chapters whose contract required it (judged against the old
  wording), and characters whose L2 contracts name it.
- `text_mentions(paths, words)`: chapter -> how often the words appear in the committed text (a rename
  leaves committed chapters as they are and says where the old name still stands).
Read-only; reasons are Chinese or English (`lang`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from studio.fileio import read_json, read_text
from studio.i18n import Catalog, Lang, tr
from studio.impact import Fact, impacted_chapters
from studio.models.character import CharacterFile
from studio.paths import ProjectPaths
from studio.state_engine import load_changelog
from studio.tools.shared import contract_files, last_written_chapter, outline_sections, volume_dirs

__all__ = ["Impact", "character_impact", "rule_impact", "text_mentions"]

MESSAGES: Catalog = {
    "outline_pov": ("大纲：视角角色", "outline: the POV character"),
    "outline_mention": ("大纲提到“{word}”", "the outline names \"{word}\""),
    "contract_mention": ("章节契约提到“{word}”", "the chapter contract names \"{word}\""),
    "contract_requires": ("章节契约要求遵守 {rule}", "the chapter contract requires {rule}"),
    "character_contract": ("{name} 的角色契约提到 {rule}", "{name}'s contracts name {rule}"),
}


@dataclass
class Impact:
    unwritten: dict[int, list[str]] = field(default_factory=dict)  # later chapters: plans to re-check
    written: dict[int, list[str]] = field(default_factory=dict)  # committed chapters that may now read wrong
    characters: list[str] = field(default_factory=list)  # characters whose contracts are touched

    def add(self, table: dict[int, list[str]], chapter: int, reason: str) -> None:
        reasons = table.setdefault(chapter, [])
        if reason not in reasons:
            reasons.append(reason)

    def to_data(self) -> dict[str, object]:
        return {
            "unwritten_chapters": {str(k): v for k, v in sorted(self.unwritten.items())},
            "written_chapters": {str(k): v for k, v in sorted(self.written.items())},
            "characters": self.characters,
        }


def _first_word(text: str, words: Sequence[str]) -> str | None:
    return next((w for w in words if w and w in text), None)


def _outline_and_contracts(paths: ProjectPaths, impact: Impact, words: Sequence[str], lang: Lang,
                           pov: str | None = None, rule: str | None = None) -> None:
    written = last_written_chapter(paths)
    for volume_dir in volume_dirs(paths).values():
        outline = volume_dir / "outline.md"
        if outline.is_file():
            for number, text in outline_sections(read_text(outline)):
                if number is None or number <= written:
                    continue
                if pov is not None and any(
                    re.split("[:：]", line, maxsplit=1)[-1].strip() == pov for line in text.splitlines() if "POV" in line
                ):
                    impact.add(impact.unwritten, number, tr(MESSAGES, "outline_pov", lang))
                if (word := _first_word(text, words)) is not None:
                    impact.add(impact.unwritten, number, tr(MESSAGES, "outline_mention", lang, word=word))
        for number, files in contract_files(volume_dir).items():
            for path in files:
                text = read_text(path)
                table = impact.unwritten if number > written else impact.written
                if rule is not None and rule in text:
                    if number > written or _requires(path, rule):
                        impact.add(table, number, tr(MESSAGES, "contract_requires", lang, rule=rule))
                    continue
                if number > written and (word := _first_word(text, words)) is not None:
                    impact.add(table, number, tr(MESSAGES, "contract_mention", lang, word=word))


def _requires(path: Path, rule: str) -> bool:
    if path.suffix != ".json":
        return True
    try:
        data = read_json(path)
    except Exception:  # noqa: BLE001 - a broken contract is reported by the project check, not here
        return False
    pre = data.get("preconditions") if isinstance(data, dict) else None
    required = pre.get("required_world_rules") if isinstance(pre, dict) else None
    return isinstance(required, list) and rule in required


def _summaries(paths: ProjectPaths) -> dict[int, str]:
    out: dict[int, str] = {}
    folder = paths.root / "summaries"
    written = last_written_chapter(paths)
    for n in range(1, written + 1):
        path = paths.summary(n)
        if path.is_file() and folder.is_dir():
            out[n] = read_text(path)
    return out


def character_impact(
    paths: ProjectPaths, slug: str, names: Sequence[str], *, new_name: str | None = None, lang: Lang = "zh"
) -> Impact:
    """See the module docstring. `names`: the display name first, then aliases; `new_name` for a rename."""
    impact = Impact()
    words = [n for n in dict.fromkeys([*names, slug]) if len(n) >= 2]
    _outline_and_contracts(paths, impact, words, lang, pov=slug)
    old = names[0] if names else slug
    fact = Fact(f"characters.{slug}.display_name", old, new_name or old)
    try:
        entries = load_changelog(paths.changelog)
    except Exception:  # noqa: BLE001 - a broken log is reported by status/repair; the summaries still speak
        entries = []
    display = {slug: old}
    for chapter, reasons in impacted_chapters([fact], entries, _summaries(paths), display_names=display,
                                              lang=lang).items():
        for reason in reasons:
            impact.add(impact.written, chapter, reason)
    return impact


def rule_impact(paths: ProjectPaths, rule_id: str, words: Sequence[str] = (), *, lang: Lang = "zh") -> Impact:
    impact = Impact()
    _outline_and_contracts(paths, impact, [rule_id, *words], lang, rule=rule_id)
    folder = paths.characters_active
    if folder.is_dir():
        for path in sorted(folder.glob("*.json")):
            try:
                character = CharacterFile.load(path)
            except Exception:  # noqa: BLE001 - reported by the project check
                continue
            if any(rule_id in c.rule or any(rule_id in e for e in c.exceptions) or rule_id in (c.update_requires or "")
                   for c in character.contracts):
                impact.characters.append(tr(MESSAGES, "character_contract", lang, name=character.display_name,
                                            rule=rule_id))
    return impact


def text_mentions(paths: ProjectPaths, words: Sequence[str]) -> dict[int, int]:
    """chapter -> occurrences of `words` in the committed chapter text."""
    out: dict[int, int] = {}
    words = [w for w in words if w]
    for n in range(1, last_written_chapter(paths) + 1):
        path = paths.chapter(n)
        if not path.is_file():
            continue
        text = read_text(path)
        count = sum(text.count(w) for w in words)
        if count:
            out[n] = count
    return out
