"""The last `status` output, printed again while nothing it depends on has changed (issue 12: `status` ≤ 0.3 s).

A repeat `status` on an unchanged project then imports no pydantic model and reads no project file: it stats
the project's files, hashes what it saw and prints the output the last full run printed for the same hash.

A second key, the layout key, is the same hash with chapter text and evaluations left out: each
`chapters/chapter-NNN.md` (`studio.paths.CHAPTER_FILE`) enters with its name, mode and whether it is empty, each
`evaluations/chapter-NNN-eval.json` (`studio.paths.EVALUATION_FILE`) with its name and mode, the `chapters` and
`evaluations` folders with their names and modes. Nothing in the report but the 字数 depends on more of a
chapter file than that (the cold-start check looks at names and empty files; a chapter that cannot be read
shows in `problems`), and nothing but the scores (`average_score`, `evaluated_chapters`, `recent_scores`; an
evaluation that cannot be read shows in `problems`) on more of an evaluation. So a run whose layout key is a
full run's needs only the chapters counted and the evaluations scored again: the full run keeps its report's
JSON form and language under the layout key (`KeptReport`), and `studio.cli.status_cmd` recounts
(`studio.status_words`), rescores (`studio.status_scores`: pydantic's `Evaluation` model is imported only for an
evaluation whose score is not cached) and renders it. The first run after any other change builds the whole
report (`studio.status`).

The key (sha256) covers:
- `MEMO_VERSION` (the command's variant, `--lang` as given and `--json`, picks one of the outputs kept under
  the key);
- the environment variables the settings read (every `NOVEL_STUDIO_*`) and the user settings file's path;
- for every file and folder under the project folder (version-control folders `.git`, `.hg`, `.svn` left out):
  its relative path, mode, size, mtime_ns and ctime_ns (a chmod that makes a file unreadable changes ctime);
- the same for the user settings file and for the studio's own code and data (packages `studio`, `prompts`,
  `templates`): an upgrade or a changed prompt set is a miss.

Rules that keep the answer from ever being stale:
- a project whose lock folder (`.novel.lock`) exists is never memoised: the lock's state depends on a live
  process and on the clock;
- a memo is written only when every file it covers was last changed at least `RACY_NS` before the run began:
  a file rewritten within the file system's timestamp granularity could keep its size and mtime;
- a status that fails (exit ≠ 0) is not memoised, nor one on a folder that does not look like a project
  (`status_cmd.early` asks first) or holds more than `MAX_ENTRIES` entries: the walk is bounded;
- the key is taken before the full run reads anything: a file changed during the run makes the next key
  differ, so the output stored under the old key is never replayed for the new content;
- a kept report is used only under the same rules as an output (storable), only when it lists no problem, and
  only when every chapter counts again without one; otherwise the full run.

Where: `cache_folder(root)/status-output.json` in the user cache folder (platformdirs), never in the author's
folder. Format: `{"version": 2, "key": "<hex>", "outputs": {"<variant>": "<text printed>"}, "layout": "<hex>",
"reports": {"<variant>": {"lang": "zh", "data": {<StatusReport's JSON form>}, "scores": "<hex>"}}}` (`scores`: the
hash of the evaluations' full stat lines the report was scored under; while it is the same, the light path
reads no evaluation and no score cache). A memo that cannot be read
is a miss; one that cannot be written is skipped. This module imports nothing heavier than
platformdirs and `studio.paths` (no pydantic, no project model), so the repeat path stays light.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import stat
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import platformdirs

from studio.paths import CHAPTER_FILE, EVALUATION_FILE
from studio.settings_path import user_settings_path

MEMO_FILE = "status-output.json"
MEMO_VERSION = 3  # 2: the layout key and the reports kept under it; 3: evaluations out of the layout key
LANGS = ("zh", "en")  # `studio.i18n.Lang`
RACY_NS = 2_000_000_000  # FAT's 2 s timestamps are the coarsest a project folder may sit on
LOCK_DIR = ".novel.lock"  # `studio.paths.ProjectPaths.lock_dir` (a property of a project's paths: not built here)
MAX_ENTRIES = 50_000  # a folder holding far more than a novel: no memo (the walk would cost what it saves)
SKIPPED_DIRS = frozenset({".git", ".hg", ".svn", "__pycache__"})
CODE_PACKAGES = ("studio", "prompts", "templates")
ENV_PREFIX = "NOVEL_STUDIO"


def cache_folder(root: Path) -> Path:
    """The derived-value caches of the project at `root`: in the user's cache folder, one folder per project
    (named by a hash of its resolved path), never in the author's folder (status is read-only there)."""
    key = hashlib.sha256(os.fsencode(Path(root).resolve())).hexdigest()[:16]
    return Path(platformdirs.user_cache_dir("novel-studio")) / "status" / key


def cache_file(root: Path, name: str) -> Path:
    """The cache file `name` (e.g. `studio.status.WORDCOUNT_CACHE`) of the project at `root`."""
    return cache_folder(root) / name


CHAPTERS_LABEL = "project/chapters"  # the walk's labels of the folders the layout key leaves the content out of
EVALUATIONS_LABEL = "project/evaluations"
_LAYOUT_FILES = {CHAPTERS_LABEL: CHAPTER_FILE, EVALUATIONS_LABEL: EVALUATION_FILE}  # folder -> its files' names


@dataclass
class _Fingerprint:
    """Two running hashes of what was seen, and the newest change among it (mtime or ctime, ns): `digest` of
    every entry's stat, `layout` of the same with chapter text and evaluations left out (see the module rules)."""

    digest: hashlib._Hash = field(default_factory=hashlib.sha256)
    layout: hashlib._Hash = field(default_factory=hashlib.sha256)
    scores: hashlib._Hash = field(default_factory=hashlib.sha256)  # the full lines of the evaluations folder's entries
    newest_ns: int = 0
    seen: set[tuple[int, int]] = field(default_factory=set)  # (dev, inode) of folders walked: no symlink loops
    entries: int = 0

    def update(self, line: str, layout_line: str | None = None) -> None:
        data = line.encode("utf-8", "surrogateescape")
        self.digest.update(data)
        self.layout.update(data if layout_line is None else layout_line.encode("utf-8", "surrogateescape"))

    def add(self, label: str, st: os.stat_result | None, *, parent: str = "") -> None:
        """One entry; `parent`: the label of the folder it lies in (see `_layout_line`)."""
        if st is None:
            self.update(f"{label}\0-\n")
            return
        data = f"{label}\0{st.st_mode:o}\0{st.st_size}\0{st.st_mtime_ns}\0{st.st_ctime_ns}\n".encode(
            "utf-8", "surrogateescape")
        self.digest.update(data)
        if parent in _LAYOUT_FILES or label in _LAYOUT_FILES:  # inlined `update`: the walk's hot path
            layout_line = _layout_line(label, st, parent)
            self.layout.update(data if layout_line is None else layout_line.encode("utf-8", "surrogateescape"))
            if parent == EVALUATIONS_LABEL:
                self.scores.update(data)
        else:
            self.layout.update(data)
        self.newest_ns = max(self.newest_ns, st.st_mtime_ns, st.st_ctime_ns)

    def walk(self, folder: str, label: str) -> None:
        """Every entry under `folder`, sorted by name, depth first (symlinks followed, each folder once)."""
        try:
            with os.scandir(folder) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as exc:
            self.update(f"{label}\0!{exc.errno}\n")
            return
        self.entries += len(entries)
        if self.entries > MAX_ENTRIES:
            raise _TooBig
        for entry in entries:
            if entry.name in SKIPPED_DIRS:
                continue
            name = f"{label}/{entry.name}"
            try:
                st: os.stat_result | None = entry.stat()
            except OSError:
                st = None  # a dangling symlink: its presence is still part of the key
            self.add(name, st, parent=label)
            if st is not None and stat.S_ISDIR(st.st_mode) and (st.st_dev, st.st_ino) not in self.seen:
                self.seen.add((st.st_dev, st.st_ino))
                self.walk(entry.path, name)


def _layout_line(label: str, st: os.stat_result, parent: str) -> str | None:
    """An entry's line in the layout key where it differs from the full key's (None: the same line): a chapter
    text file counts by its name, mode and whether it is empty (the cold-start check's `chapters_empty`), an
    evaluation by its name and mode; the chapters and evaluations folders by their names and modes (every
    atomic write into them changes their times and size)."""
    if label in _LAYOUT_FILES:
        return f"{label}\0{st.st_mode:o}\n"
    pattern = _LAYOUT_FILES.get(parent)
    if pattern is None or not pattern.match(label.rpartition("/")[2]):
        return None
    if parent == CHAPTERS_LABEL:
        return f"{label}\0{st.st_mode:o}\0{'empty' if st.st_size == 0 else 'text'}\n"
    return f"{label}\0{st.st_mode:o}\n"


class _TooBig(Exception):
    """More than MAX_ENTRIES under the folder: it is not memoised."""


def _stat(path: Path) -> os.stat_result | None:
    try:
        return os.stat(path)
    except OSError:
        return None


def _code_folders() -> list[str]:
    folders: list[str] = []
    for name in CODE_PACKAGES:
        spec = importlib.util.find_spec(name)  # finds without importing the package
        if spec is not None:
            folders.extend(spec.submodule_search_locations or [])
    return folders


@dataclass(frozen=True)
class KeptReport:
    """A full run's report in its JSON form (`StatusReport.model_dump(mode="json")`) and the language it was
    rendered in, kept under the layout key: what a run that finds only chapter text and evaluations changed starts from."""

    lang: str
    data: dict[str, Any]
    scores: str = ""  # the evaluations' key (`StatusMemo.scores`) its scores were read under: equal, none to read again


@dataclass(frozen=True)
class StatusMemo:
    """One `status` run's keys and the memo file it is kept in (`probe`, then `replay`, `kept_report` or `save`)."""

    path: Path
    key: str
    variant: str
    storable: bool  # no lock folder, nothing changed within RACY_NS of the run's start
    layout: str = ""  # the key with chapter text and evaluations left out
    scores: str = ""  # the hash of the evaluations folder's entries alone (their full stat lines)

    @classmethod
    def probe(cls, root: Path, variant: str, env: Mapping[str, str] | None = None) -> StatusMemo:
        """Stat everything the output depends on (see the module rules) and hash it."""
        env = os.environ if env is None else env
        started = time.time_ns()
        fp = _Fingerprint()
        fp.update(f"v{MEMO_VERSION}\n")  # the variant picks an output under the key
        for name in sorted(env):
            if name.startswith(ENV_PREFIX):
                fp.update(f"env\0{name}\0{env[name]}\n")
        user = user_settings_path(env)
        fp.add(f"user\0{user}", _stat(user))
        root = Path(root).resolve()
        fp.add("project", _stat(root))
        try:
            for i, folder in enumerate(_code_folders()):
                fp.walk(folder, f"code{i}")
            fp.walk(str(root), "project")
        except _TooBig:
            return cls(cache_file(root, MEMO_FILE), "", variant, storable=False)
        locked = (root / LOCK_DIR).exists()
        storable = not locked and fp.newest_ns <= started - RACY_NS
        return cls(cache_file(root, MEMO_FILE), fp.digest.hexdigest(), variant, storable, fp.layout.hexdigest(),
                   fp.scores.hexdigest())

    def _load(self) -> dict[str, Any]:
        """The memo file's content, {} when missing, unreadable or of another version."""
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError):
            return {}
        return data if isinstance(data, dict) and data.get("version") == MEMO_VERSION else {}

    @staticmethod
    def _section(data: Mapping[str, Any], key_field: str, key: str, section: str) -> dict[str, Any]:
        """`data[section]` when `data[key_field]` is `key`, else {}."""
        value = data.get(section) if data.get(key_field) == key else None
        return dict(value) if isinstance(value, dict) else {}

    def replay(self) -> str | None:
        """The text the last full run printed for this key and variant (None: run status in full)."""
        if not self.storable:
            return None
        text = self._section(self._load(), "key", self.key, "outputs").get(self.variant)
        return text if isinstance(text, str) else None

    def kept_report(self) -> KeptReport | None:
        """The report a full run kept for this layout key and variant (None: none, or not trusted)."""
        if not self.storable or not self.layout:
            return None
        kept = self._section(self._load(), "layout", self.layout, "reports").get(self.variant)
        if not isinstance(kept, dict) or not isinstance(kept.get("data"), dict) or kept.get("lang") not in LANGS:
            return None
        scores = kept.get("scores")
        return KeptReport(kept["lang"], kept["data"], scores if isinstance(scores, str) else "")

    def save(self, text: str, report: KeptReport | None = None) -> None:
        """Keep `text` (what a successful run printed) for this key, and `report` for this layout key; other
        variants under the same keys stay."""
        if not self.storable:
            return
        old = self._load()
        outputs = self._section(old, "key", self.key, "outputs")
        outputs[self.variant] = text
        reports = self._section(old, "layout", self.layout, "reports")
        if report is not None:
            reports[self.variant] = {"lang": report.lang, "data": report.data, "scores": report.scores}
        data = {"version": MEMO_VERSION, "key": self.key, "outputs": outputs, "layout": self.layout,
                "reports": reports}
        from studio.stat_cache import write_cache  # the full run has loaded it already

        write_cache(self.path, data)


def variant(lang: str | None, as_json: bool, root: str = "") -> str:
    """The command-line choices that change what `status` prints for the same files: `--json` prints the
    project folder as given (`root`), which the key (the resolved folder) does not tell."""
    return f"lang={lang or ''};json={int(as_json)}" + (f";root={root}" if as_json else "")
