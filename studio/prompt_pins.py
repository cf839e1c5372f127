"""Prompt versions pinned per project: the `[prompts]` table of `novel-studio.toml` (issue 9 item 8).

Format: one line per prompt id, the version the project uses::

    [prompts]
    chapter-writer = 1
    quality-judge = 2

Rules:
- Only the project's own `novel-studio.toml` pins (a `[prompts]` table in the user's settings file is ignored
  by `studio.config.load_settings`): the versions belong to the book, not to the machine.
- A new project is pinned to the latest installed versions when it is created (init, quick start, import).
  A project without the table (made by an earlier version) is pinned on its first run to what it has been
  using: for each prompt, the version its most recent chapter log records, else the latest (`first_pins`).
- A newer installed version never switches a project: only `novel-studio prompts upgrade` moves a pin.
  A prompt id the project has never pinned (a prompt added by a newer novel-studio) is pinned to its latest
  version the first time the project runs (`missing_ids`).
- A pin fixes a template's text, not the rendering of the variables it is filled with: a release that renders
  a shared block differently (the blacklist, `pipeline.blacklist_prompt`) changes the stable section of every
  version that holds it, once (the chapter logs' `section_hashes` show it; the prompt cache is written again).
  Wording that belongs to one version goes into a new version of the template instead.
- Installed versions are read from the file names of the `prompts` package (`<id>.v<N>.md`); this module does
  not parse templates (that is `pipeline.prompts_registry`, which validates them).

Writing: the `[prompts]` table is rendered with tomli-w and spliced into the file's text in place of the old
table (or appended), so the author's other settings and every comment outside the table are kept byte for
byte. Comments inside the `[prompts]` table itself are lost. If the pins were written in another TOML form
(dotted keys `prompts.x = 1` or an inline table) the splice cannot find the table and the whole file is
rewritten with tomli-w, which drops all comments; `write_pins` reports that with `comments_lost`.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

from studio.errors import FormatError, Problem
from studio.fileio import atomic_write_text, read_text
from studio.paths import ProjectPaths, numbered_files
from studio.toml_file import read_toml

__all__ = [
    "PROMPT_FILE_NAME",
    "PinRow",
    "WriteResult",
    "first_pins",
    "installed_versions",
    "latest_pins",
    "missing_ids",
    "pin_rows",
    "pins_text",
    "read_pins",
    "versions_in_logs",
    "write_pins",
]

PROMPT_FILE_NAME = re.compile(r"^(?P<id>[a-z0-9][a-z0-9-]*)\.v(?P<version>[1-9][0-9]*)\.md$")
TABLE = "prompts"
LOG_LOOKBACK = 20  # newest chapter logs searched for the versions a project without pins has been using
_LOG_NAME = re.compile(r"^(chapter-\d{3,})-log\.json$")  # as `Project.log_files`
_HEADER = re.compile(r"^\s*\[")
_PROMPTS_HEADER = re.compile(r"""^\s*\[\s*(?:prompts|"prompts"|'prompts')\s*\]\s*(?:#.*)?$""")
_COMMENT = "# 提示词版本：本项目固定使用的版本（新版本不会自动启用；升级用 novel-studio prompts upgrade）\n"


# Where the installed prompts are read from (by `installed_versions` here and by
# `pipeline.prompts_registry.installed_registry`): None = the `prompts` package. Tests point it at a copy with a
# newer version; nothing else sets it.
PROMPTS_FOLDER: Path | None = None


def installed_versions(folder: Path | Traversable | None = None) -> dict[str, list[int]]:
    """prompt id -> its installed versions, ascending (from the file names of `folder`, default
    `PROMPTS_FOLDER`, else the installed `prompts` package)."""
    folder = folder if folder is not None else PROMPTS_FOLDER
    root: Path | Traversable = resources.files("prompts") if folder is None else folder
    found: dict[str, list[int]] = {}
    for entry in root.iterdir():
        match = PROMPT_FILE_NAME.match(entry.name)
        if match is not None and entry.is_file():
            found.setdefault(match.group("id"), []).append(int(match.group("version")))
    return {pid: sorted(versions) for pid, versions in sorted(found.items())}


def _check_pins(data: object, path: Path) -> dict[str, int]:
    if not isinstance(data, Mapping):
        raise FormatError([Problem(path, "[prompts] must be a table of prompt id = version", json_path=TABLE,
                                    zh="[prompts] 应是“提示词编号 = 版本号”的表")])
    pins: dict[str, int] = {}
    problems: list[Problem] = []
    for key, value in data.items():
        if not PROMPT_FILE_NAME.match(f"{key}.v1.md"):
            problems.append(Problem(path, f"'{key}' is not a prompt id", json_path=f"{TABLE}.{key}",
                                    zh=f"“{key}”不是提示词编号"))
        elif isinstance(value, bool) or not isinstance(value, int) or value < 1:
            problems.append(
                Problem(path, f"the version must be a whole number >= 1 (got {value!r})", json_path=f"{TABLE}.{key}",
                        zh=f"版本号应是不小于 1 的整数（现为 {value!r}）")
            )
        else:
            pins[str(key)] = value
    if problems:
        raise FormatError(problems)
    return pins


def read_pins(paths: ProjectPaths) -> dict[str, int] | None:
    """The project's pins; None when `novel-studio.toml` is missing or has no `[prompts]` table.
    A bad table raises FormatError naming the file and the key."""
    path = paths.settings
    if not path.is_file():
        return None
    data = read_toml(path)
    if TABLE not in data:
        return None
    return _check_pins(data[TABLE], path)


def versions_in_logs(paths: ProjectPaths, *, lookback: int = LOG_LOOKBACK) -> dict[str, int]:
    """prompt id -> the version the newest chapter logs record (the newest log that names a prompt wins).
    Reads at most `lookback` logs, newest first; an unreadable log is skipped (it only informs a default)."""
    # Imported here: `status` reads the pins, never the logs' versions.
    from studio.models.pipeline_log import PipelineLog

    logs = numbered_files(paths.root / "logs", _LOG_NAME)
    found: dict[str, int] = {}
    for n in sorted(logs, reverse=True)[:lookback]:
        try:
            log = PipelineLog.load(logs[n])
        except (FormatError, OSError):
            continue
        for pid, version in log.prompt_versions_used().items():
            found.setdefault(pid, version)
    return found


def first_pins(paths: ProjectPaths, installed: Mapping[str, list[int]]) -> tuple[dict[str, int], dict[str, int]]:
    """(pins, from_logs) for a project without pins: every installed prompt at the version the chapter logs
    record when that version is still installed, else at its latest. `from_logs` is the part that came from
    the logs."""
    logged = versions_in_logs(paths)
    pins: dict[str, int] = {}
    from_logs: dict[str, int] = {}
    for pid, versions in installed.items():
        version = logged.get(pid)
        if version is not None and version in versions:
            pins[pid] = from_logs[pid] = version
        else:
            pins[pid] = versions[-1]
    return pins, from_logs


def missing_ids(pins: Mapping[str, int], installed: Mapping[str, list[int]]) -> dict[str, int]:
    """Installed prompts the pins do not name yet, at their latest version."""
    return {pid: versions[-1] for pid, versions in installed.items() if pid not in pins}


@dataclass(frozen=True)
class PinRow:
    """One prompt as `prompts list` and `status` show it."""

    prompt_id: str
    pinned: int | None  # None: not pinned yet
    latest: int | None  # None: no version installed at all
    installed: tuple[int, ...]

    @property
    def missing(self) -> bool:
        """Pinned to a version whose file is not installed."""
        return self.pinned is not None and self.pinned not in self.installed

    @property
    def newer(self) -> bool:
        """A newer version than the pinned one is installed."""
        return self.pinned is not None and self.latest is not None and self.latest > self.pinned

    def to_data(self) -> dict[str, Any]:
        return {
            "prompt_id": self.prompt_id,
            "pinned": self.pinned,
            "latest": self.latest,
            "installed": list(self.installed),
            "newer": self.newer,
            "missing": self.missing,
        }


def pin_rows(pins: Mapping[str, int] | None, installed: Mapping[str, list[int]]) -> list[PinRow]:
    """Every installed or pinned prompt id, sorted."""
    pins = pins or {}
    rows = []
    for pid in sorted(set(installed) | set(pins)):
        versions = tuple(installed.get(pid, ()))
        rows.append(PinRow(pid, pins.get(pid), versions[-1] if versions else None, versions))
    return rows


@dataclass(frozen=True)
class WriteResult:
    path: Path
    comments_lost: bool  # the file had to be rewritten whole (see the module docstring)


def _splice(text: str, table: str) -> str:
    """`text` with its `[prompts]` table replaced by `table` (appended when there is none)."""
    lines = text.splitlines(keepends=True)
    start = next((i for i, line in enumerate(lines) if _PROMPTS_HEADER.match(line)), None)
    if start is None:
        head = text if not text or text.endswith("\n") else text + "\n"
        return head + ("\n" if head.strip() else "") + _COMMENT + table
    end = next((i for i in range(start + 1, len(lines)) if _HEADER.match(lines[i])), len(lines))
    # Comments and blank lines just above the next table belong to it (the template's "# 写作" headings).
    keep = end
    while keep > start + 1 and (not lines[keep - 1].strip() or lines[keep - 1].lstrip().startswith("#")):
        keep -= 1
    tail = lines[keep:]
    sep = "\n" if tail and tail[0].strip() else ""
    return "".join(lines[:start]) + table + sep + "".join(tail)


def pins_text(text: str, pins: Mapping[str, int]) -> tuple[str, bool]:
    """(the settings file's `text` with `pins` as its `[prompts]` table, whether comments were lost)."""
    old = tomllib.loads(text) if text else {}
    ordered = dict(sorted(pins.items()))
    wanted = {**{k: v for k, v in old.items() if k != TABLE}, TABLE: ordered}
    import tomli_w  # writing pins only: `status` reads them

    new_text = _splice(text, tomli_w.dumps({TABLE: ordered}))
    try:
        if tomllib.loads(new_text) == wanted:
            return new_text, False
    except tomllib.TOMLDecodeError:
        pass
    import tomli_w  # writing pins only: `status` reads them

    return tomli_w.dumps(wanted), "#" in text


def latest_pins(installed: Mapping[str, list[int]] | None = None) -> dict[str, int]:
    """Every installed prompt at its latest version (what a new project pins)."""
    found = installed_versions() if installed is None else installed
    return {pid: versions[-1] for pid, versions in found.items() if versions}


def write_pins(paths: ProjectPaths, pins: Mapping[str, int]) -> WriteResult:
    """Write `pins` as the project's `[prompts]` table (see the module docstring for what is kept)."""
    path = paths.settings
    text = read_text(path) if path.is_file() else ""
    new_text, lost = pins_text(text, pins)
    atomic_write_text(path, new_text)
    return WriteResult(path, lost)
