"""Records of project files that passed their model's validation, so that opening a project can leave the
files it does not need yet unread (`studio.project`: world rules, style files, the storyline spec, characters
and chapter contracts are loaded on first use when every one of them has a record).

Rules:
- a record is written only after the file was validated by its model without a problem, and names the
  file's (size, mtime_ns, ctime_ns, inode) as stat'ed before it was read, and the model (`kind`); never for a
  file changed within `RACY_NS` of that stat (`studio.status_memo`'s rule: a file rewritten within the file
  system's timestamp granularity could keep its stat);
- a record counts only while the file's stat is the same on all four and the models' code is the same
  (`code_key`: the size and mtime_ns of every module of `studio/models` and of `studio/contract_markdown.py`):
  a hand edit, another tool's write, a restore, a chmod or an upgrade each make the file be validated again;
- correctness never depends on the records: a file without a valid record is validated as if there were none;
  a missing, corrupt or outdated record file is empty; one that cannot be written is skipped.

Where: `validated.json` in the project's cache folder (`studio.status_memo.cache_file`, the user's cache
folder), never in the author's folder. Format: `{"version": 1, "code": "<code_key>", "files": {"<path relative
to the project>": [size, mtime_ns, ctime_ns, inode, "<kind>"]}}`. Imports no pydantic.

The effective settings (`studio.config.load_settings`: the user file, the project's `novel-studio.toml`, the
environment) get one record of the same kind (`SettingsRecord`, `settings-ok.json` beside it): the key is a hash
of both files' (path, size, mtime_ns, ctime_ns, inode) or their absence, every `NOVEL_STUDIO_*` variable, and
the code (`code_key` plus `studio/config.py`); the record says the settings loaded without a problem and which
`ui.lang` they gave (the model's own answer, never re-read from the files). `status` then neither validates the
settings again nor builds their models; any difference in the key loads them as before.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from studio.paths import SETTINGS_FILE
from studio.settings_path import user_settings_path
from studio.status_memo import ENV_PREFIX, RACY_NS, cache_file

RECORDS_FILE = "validated.json"
RECORDS_VERSION = 1
_CODE = (Path(__file__).resolve().parent / "models", Path(__file__).resolve().parent / "contract_markdown.py")


def code_key() -> str:
    """A digest of the stats of the models' code (see the module rules)."""
    digest = hashlib.sha256()
    folder, extra = _CODE
    try:
        entries = sorted((e.name, e.stat()) for e in os.scandir(folder) if e.name.endswith(".py"))
        entries.append((extra.name, extra.stat()))
    except OSError:
        return ""  # no key: no record counts
    for name, st in entries:
        digest.update(f"{name}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return digest.hexdigest()


def _signature(st: os.stat_result, kind: str) -> list[Any]:
    return [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, kind]


class ValidatedFiles:
    """The records of the project at `root`: `stat` a file before reading it, ask `known`, `note` a success,
    `save` at the end."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self.path = cache_file(self.root, RECORDS_FILE)
        self.code = code_key()
        self.old = self._load() if self.code else {}
        self.new = dict(self.old)

    def _load(self) -> dict[str, list[Any]]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError):
            return {}
        if not isinstance(data, dict) or data.get("version") != RECORDS_VERSION or data.get("code") != self.code:
            return {}
        files = data.get("files")
        return {k: v for k, v in files.items() if isinstance(v, list)} if isinstance(files, dict) else {}

    def _name(self, path: Path) -> str:
        try:
            return Path(path).relative_to(self.root).as_posix()
        except ValueError:
            return str(path)

    @staticmethod
    def stat(path: Path) -> os.stat_result | None:
        """The file's stat, taken before it is read (None: it cannot be stat'ed)."""
        try:
            return os.stat(path)
        except OSError:
            return None

    def known(self, path: Path, kind: str) -> bool:
        """Whether `path` holds what was validated as `kind` (see the module rules)."""
        st = self.stat(path)
        return st is not None and bool(self.code) and self.old.get(self._name(path)) == _signature(st, kind)

    def note(self, path: Path, st: os.stat_result | None, kind: str) -> None:
        """`path`, stat'ed as `st` before it was read, passed its validation as `kind`."""
        if st is not None and self.code and max(st.st_mtime_ns, st.st_ctime_ns) <= time.time_ns() - RACY_NS:
            self.new[self._name(path)] = _signature(st, kind)

    def save(self) -> None:
        if self.code and self.new != self.old:
            from studio.stat_cache import write_cache

            write_cache(self.path, {"version": RECORDS_VERSION, "code": self.code, "files": self.new})


SETTINGS_RECORD = "settings-ok.json"
_CONFIG_CODE = Path(__file__).resolve().parent / "config.py"


class SettingsRecord:
    """Whether the effective settings of the project at `root` loaded without a problem, and their `ui.lang`
    (see the module rules): make it before loading (the stats are taken first), ask `lang`, `note` a success."""

    def __init__(self, root: Path, env: Mapping[str, str] | None = None) -> None:
        env = os.environ if env is None else env
        self.path = cache_file(Path(root), SETTINGS_RECORD)
        self.key, self.newest_ns = self._key(Path(root), env)

    @staticmethod
    def _key(root: Path, env: Mapping[str, str]) -> tuple[str, int]:
        code = code_key()
        try:
            config = os.stat(_CONFIG_CODE)
        except OSError:
            return "", 0
        if not code:
            return "", 0
        digest = hashlib.sha256(f"{code}\0{config.st_size}\0{config.st_mtime_ns}\n".encode())
        newest = 0
        for path in (user_settings_path(env), root / SETTINGS_FILE):
            try:
                st = os.stat(path)
            except FileNotFoundError:
                digest.update(f"{path}\0-\n".encode("utf-8", "surrogateescape"))
                continue
            except OSError:
                return "", 0  # cannot tell: no record counts
            line = f"{path}\0{st.st_mode:o}\0{st.st_size}\0{st.st_mtime_ns}\0{st.st_ctime_ns}\0{st.st_ino}\n"
            digest.update(line.encode("utf-8", "surrogateescape"))
            newest = max(newest, st.st_mtime_ns, st.st_ctime_ns)
        for name in sorted(env):
            if name.startswith(ENV_PREFIX):
                digest.update(f"env\0{name}\0{env[name]}\n".encode("utf-8", "surrogateescape"))
        return digest.hexdigest(), newest

    def lang(self) -> str | None:
        """The recorded `ui.lang` of settings that loaded without a problem under this key (None: no record)."""
        if not self.key:
            return None
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError):
            return None
        if not isinstance(data, dict) or data.get("version") != RECORDS_VERSION or data.get("key") != self.key:
            return None
        lang = data.get("lang")
        return lang if lang in ("zh", "en") else None  # `studio.i18n.Lang`

    def note(self, lang: str) -> None:
        """The settings, stat'ed when this record was made, loaded without a problem and gave `lang`."""
        if not self.key or self.newest_ns > time.time_ns() - RACY_NS or self.lang() == lang:
            return
        from studio.stat_cache import write_cache

        write_cache(self.path, {"version": RECORDS_VERSION, "key": self.key, "lang": lang})
