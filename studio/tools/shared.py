"""What the tool-mode commands share: the project's written and unwritten chapters, the state entry of a tool
change, the human-readable changelogs, and replacing names or ids in text and JSON.

Rules:
- "Written" is every chapter up to the checkpoint's `last_completed_chapter` or with a file in `chapters/`
  (whichever is later); outline entries and contracts after it are "unwritten" and may be changed by a tool,
  written ones never.
- A state change that ops cannot express (an entry renamed or removed) is logged as one `kind="tool"` line
  of `state/changelog.jsonl` carrying the whole new state as its snapshot (`studio.models.changelog`); the
  state and its log must be in step first (else `repair` is named). Like `merge_patch`, a log that does not
  start on the current state gets an `init` snapshot line first, so replay stays exact.
- `characters/changelog.md` and `world/changelog.md` are appended: one `## <time> · <what>` section a change,
  bullet lines under it. They are plain Markdown for the author; nothing parses them.
- Every write goes into the command's `ChangeSet` (`studio.tools.txn`), never straight to disk.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from studio.errors import StudioError
from studio.fileio import dumps_json, parse_json
from studio.models.changelog import ChangelogEntry
from studio.models.checkpoint import Checkpoint
from studio.models.state import CurrentState
from studio.outline import _CHAPTER_HEADING, chinese_numeral
from studio.paths import ProjectPaths
from studio.state_engine import parse_changelog
from studio.tools.txn import ChangeSet

__all__ = [
    "ToolError",
    "character_changelog",
    "contract_files",
    "last_written_chapter",
    "log_changelog_md",
    "outline_sections",
    "replace_in_data",
    "replace_in_text",
    "retired_dir",
    "tool_state_change",
    "volume_dirs",
    "world_changelog",
]

_VOLUME_DIR = re.compile(r"^vol-(\d+)$")
_CONTRACT = re.compile(r"^chapter-(\d+)\.(json|md)$")
_CHAPTER = re.compile(r"^chapter-(\d+)\.md$")


class ToolError(StudioError):
    """A tool command refused to change anything; the message says why and what to do."""


def character_changelog(paths: ProjectPaths) -> Path:
    return paths.characters_active.parent / "changelog.md"


def world_changelog(paths: ProjectPaths) -> Path:
    return paths.world_rules.parent / "changelog.md"


def retired_dir(paths: ProjectPaths) -> Path:
    """`characters/retired/` (seed 002 §8.5): retired characters' files, kept."""
    return paths.characters_active.parent / "retired"


def last_written_chapter(paths: ProjectPaths) -> int:
    cp = Checkpoint.load_or_default(paths.checkpoint)
    folder = paths.root / "chapters"
    on_disk = [int(m.group(1)) for p in folder.iterdir() if (m := _CHAPTER.match(p.name))] if folder.is_dir() else []
    return max([cp.last_completed_chapter, *on_disk])


def volume_dirs(paths: ProjectPaths) -> dict[int, Path]:
    folder = paths.root / "volumes"
    if not folder.is_dir():
        return {}
    return {int(m.group(1)): p for p in sorted(folder.iterdir()) if p.is_dir() and (m := _VOLUME_DIR.match(p.name))}


def contract_files(volume_dir: Path) -> dict[int, list[Path]]:
    """chapter -> its contract files (`.json` and the plugin's `.md`)."""
    folder = volume_dir / "chapter-contracts"
    out: dict[int, list[Path]] = {}
    if folder.is_dir():
        for p in sorted(folder.iterdir()):
            if (m := _CONTRACT.match(p.name)) and p.is_file():
                out.setdefault(int(m.group(1)), []).append(p)
    return out


def _heading_number(line: str) -> int | None:
    m = _CHAPTER_HEADING.match(line.rstrip("\n"))
    if not m:
        return None
    token = m.group(1)
    digits = token.translate(str.maketrans("０１２３４５６７８９", "0123456789"))
    return int(digits) if digits.isdigit() else chinese_numeral(token)


def outline_sections(text: str) -> list[tuple[int | None, str]]:
    """The outline as (chapter number or None for the volume header, its lines) in order, losslessly:
    joining the texts gives `text` back."""
    out: list[tuple[int | None, str]] = []
    current: int | None = None
    buf: list[str] = []
    for line in text.splitlines(keepends=True):
        number = _heading_number(line)
        if number is not None:
            if buf:
                out.append((current, "".join(buf)))
            current, buf = number, []
        buf.append(line)
    if buf:
        out.append((current, "".join(buf)))
    return out


def replace_in_text(text: str, mapping: Mapping[str, str]) -> str:
    """Replace every key by its value, longest keys first (so 沈照 inside 沈照儿 is one replacement)."""
    if not mapping:
        return text
    pattern = re.compile("|".join(re.escape(k) for k in sorted(mapping, key=len, reverse=True) if k))
    return pattern.sub(lambda m: mapping[m.group(0)], text)


def replace_in_data(data: Any, text: Callable[[str], str], key: Callable[[str], str] | None = None) -> Any:
    """`data` with `text` applied to every string value and `key` to every object key."""
    if isinstance(data, str):
        return text(data)
    if isinstance(data, list):
        return [replace_in_data(v, text, key) for v in data]
    if isinstance(data, dict):
        return {(key(k) if key else k): replace_in_data(v, text, key) for k, v in data.items()}
    return data


def load_json_in(changes: ChangeSet, path: Path) -> Any:
    """The JSON a file has in this change set (None when it does not exist)."""
    text = changes.read_text(path)
    return None if text is None else parse_json(text, path)


def _now() -> str:
    return datetime.now().astimezone().isoformat(timespec="seconds")


def tool_state_change(changes: ChangeSet, update: Callable[[CurrentState], CurrentState]) -> CurrentState | None:
    """Apply `update` to the state and log it as a `tool` changelog line (see the module rules); None (and
    nothing written) when the state does not change."""
    paths = changes.paths
    state_text = changes.read_text(paths.current_state)
    state = CurrentState() if state_text is None else CurrentState.parse_data(parse_json(state_text, paths.current_state),
                                                                              paths.current_state)
    new = update(state.model_copy(deep=True))
    if new.to_data() == state.to_data():
        return None
    log_text = changes.read_text(paths.changelog) or ""
    entries, _ = parse_changelog(log_text.encode("utf-8"), paths.changelog)
    last = entries[-1] if entries else None
    if last is not None and last.kind != "foreign" and last.state_version != state.state_version:
        raise ToolError(
            f"状态与变更日志不一致（{paths.current_state.name} 为版本 {state.state_version}，日志到版本 "
            f"{last.state_version}）；请先运行 novel-studio repair"
        )
    lines: list[ChangelogEntry] = []
    if (last is not None and last.kind == "foreign") or (last is None and (state.state_version or not state.is_empty())):
        lines.append(ChangelogEntry(state_version=state.state_version, base_state_version=state.state_version,
                                    chapter=state.last_updated_chapter, kind="init", recorded_at=_now(),
                                    snapshot=state.to_data()))
    new = new.model_copy(update={"state_version": state.state_version + 1,
                                 "last_updated_chapter": state.last_updated_chapter})
    lines.append(ChangelogEntry(state_version=new.state_version, base_state_version=state.state_version,
                                chapter=state.last_updated_chapter, kind="tool", recorded_at=_now(),
                                snapshot=new.to_data()))
    if log_text and not log_text.endswith("\n"):
        log_text += "\n"
    log_text += "".join(json.dumps(e.to_data(), ensure_ascii=False, separators=(",", ":")) + "\n" for e in lines)
    changes.write_text(paths.changelog, log_text)
    changes.write_text(paths.current_state, dumps_json(new.to_data()))
    return new


def log_changelog_md(changes: ChangeSet, path: Path, title: str, lines: Iterable[str], *, heading: str) -> None:
    """Append one section to a human-readable changelog (created with `# heading` when missing)."""
    text = changes.read_text(path)
    if text is None or not text.strip():
        text = f"# {heading}\n"
    if not text.endswith("\n"):
        text += "\n"
    stamp = _now()[:16].replace("T", " ")
    body = "".join(f"- {line}\n" for line in lines)
    changes.write_text(path, f"{text}\n## {stamp} · {title}\n\n{body}")
