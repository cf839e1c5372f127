"""The project folder layout of seed 001 section 9.1, in one place. Nothing else builds project paths."""

from __future__ import annotations

import os
import re
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from studio.errors import UnsafeIdError
from studio.ids import chapter_id, check_slug, parse_chapter_id, safe_join, volume_id

SETTINGS_FILE = "novel-studio.toml"
CHAPTER_FILE = re.compile(r"^(chapter-\d{3,})\.md$")  # a committed chapter in chapters/ (`numbered_files` pattern)
EVALUATION_FILE = re.compile(r"^(chapter-\d{3,})-eval\.json$")  # a chapter's evaluation in evaluations/


@dataclass(frozen=True)
class ProjectPaths:
    root: Path

    # top-level files
    @property
    def checkpoint(self) -> Path:
        return self.root / ".checkpoint.json"

    @property
    def lock_dir(self) -> Path:
        return self.root / ".novel.lock"

    @property
    def lock_info(self) -> Path:
        return self.lock_dir / "info.json"

    @property
    def brief(self) -> Path:
        return self.root / "brief.md"

    @property
    def style_profile(self) -> Path:
        return self.root / "style-profile.json"

    @property
    def ai_blacklist(self) -> Path:
        return self.root / "ai-blacklist.json"

    @property
    def style_drift(self) -> Path:
        return self.root / "style-drift.json"

    @property
    def settings(self) -> Path:
        return self.root / SETTINGS_FILE

    # world, characters, storylines
    @property
    def world_rules(self) -> Path:
        return self.root / "world" / "rules.json"

    @property
    def names(self) -> Path:
        """Registered names that are not characters (locations, items, factions) and their aliases."""
        return self.root / "world" / "names.json"

    @property
    def import_dir(self) -> Path:
        """Unchanged copies of imported manuscripts (issue 10)."""
        return self.root / "import"

    @property
    def import_record(self) -> Path:
        """What imports wrote and how far extraction got (`studio.models.import_record.ImportRecord`)."""
        return self.root / ".novel-studio" / "import.json"

    @property
    def blacklist_proposals(self) -> Path:
        """Blacklist entries the judge proposed (`studio.models.blacklist_proposals.BlacklistProposals`)."""
        return self.root / ".novel-studio" / "blacklist-proposals.json"

    @property
    def check_allow(self) -> Path:
        """The author's waivers of check findings."""
        return self.root / "checks-allow.json"

    def checks_log(self, n: int) -> Path:
        """Per-chapter check results (the seed's chapter log `logs/chapter-NNN-log.json` is left as it is)."""
        return self.root / "logs" / chapter_id(n) / "checks.json"

    @property
    def characters_active(self) -> Path:
        return self.root / "characters" / "active"

    def character(self, slug: str) -> Path:
        return safe_join(self.characters_active, check_slug(slug, "character id") + ".json")

    def character_profile(self, slug: str) -> Path:
        return safe_join(self.characters_active, check_slug(slug, "character id") + ".md")

    @property
    def storylines(self) -> Path:
        return self.root / "storylines" / "storylines.json"

    @property
    def storyline_spec(self) -> Path:
        return self.root / "storylines" / "storyline-spec.json"

    def storyline_memory(self, storyline: str) -> Path:
        return safe_join(self.root / "storylines", check_slug(storyline, "storyline id"), "memory.md")

    # volumes
    def volume_dir(self, volume: int) -> Path:
        return self.root / "volumes" / volume_id(volume)

    def outline(self, volume: int) -> Path:
        return self.volume_dir(volume) / "outline.md"

    def schedule(self, volume: int) -> Path:
        return self.volume_dir(volume) / "storyline-schedule.json"

    def volume_foreshadowing(self, volume: int) -> Path:
        return self.volume_dir(volume) / "foreshadowing.json"

    def contract(self, volume: int, chapter: int) -> Path:
        return self.volume_dir(volume) / "chapter-contracts" / f"{chapter_id(chapter)}.json"

    # chapters and their artifacts
    def chapter(self, n: int) -> Path:
        return self.root / "chapters" / f"{chapter_id(n)}.md"

    def summary(self, n: int) -> Path:
        return self.root / "summaries" / f"{chapter_id(n)}-summary.md"

    def evaluation(self, n: int) -> Path:
        return self.root / "evaluations" / f"{chapter_id(n)}-eval.json"

    def log(self, n: int) -> Path:
        return self.root / "logs" / f"{chapter_id(n)}-log.json"

    @property
    def spend_ledger(self) -> Path:
        """Append-only JSONL of every model call and its cost (`studio.models.spend.SpendEntry`)."""
        return self.root / "logs" / "spend.jsonl"

    # state
    @property
    def current_state(self) -> Path:
        return self.root / "state" / "current-state.json"

    @property
    def changelog(self) -> Path:
        return self.root / "state" / "changelog.jsonl"

    @property
    def state_history(self) -> Path:
        return self.root / "state" / "history"

    @property
    def global_foreshadowing(self) -> Path:
        return self.root / "foreshadowing" / "global.json"

    # staging (seed 003 section 10.4)
    @property
    def staging(self) -> Path:
        return self.root / "staging"

    def staged_chapter(self, n: int) -> Path:
        return self.staging / "chapters" / f"{chapter_id(n)}.md"

    def staged_draft_partial(self, n: int) -> Path:
        return self.staging / "chapters" / f"{chapter_id(n)}.md.partial"

    def staged_summary(self, n: int) -> Path:
        return self.staging / "summaries" / f"{chapter_id(n)}-summary.md"

    def staged_delta(self, n: int) -> Path:
        return self.staging / "state" / f"{chapter_id(n)}-delta.json"

    def staged_memory(self, storyline: str) -> Path:
        return safe_join(self.staging / "storylines", check_slug(storyline, "storyline id"), "memory.md")

    def staged_evaluation(self, n: int) -> Path:
        return self.staging / "evaluations" / f"{chapter_id(n)}-eval.json"

    def staged_refine(self, n: int) -> Path:
        return self.staging / "refine" / f"{chapter_id(n)}-refine.json"

    def staged_summary_meta(self, n: int) -> Path:
        return self.staging / "summaries" / f"{chapter_id(n)}-summary.json"

    def staged_log(self, n: int) -> Path:
        return self.staging / "logs" / f"{chapter_id(n)}-log.json"

    def commit_journal(self, n: int) -> Path:
        return self.staging / f"commit-{chapter_id(n)}.json"


LISTING_RACY_NS = 2_000_000_000
"""A folder changed less than this before it was listed is listed again at the next call: within the file
system's timestamp granularity (FAT's 2 s is the coarsest) a second change could leave its stamp as it was.
The same window as `studio.status_memo.RACY_NS` (not imported: that module imports this one)."""
_LISTINGS_MAX = 256

_Stamp = tuple[int, int, int, int]  # the folder's (st_dev, st_ino, st_mtime_ns, st_ctime_ns)
_Entry = tuple[str, str, bool]  # (name, path, is a regular file)


@dataclass(frozen=True)
class _Listing:
    stamp: _Stamp
    entries: tuple[_Entry, ...]
    matched: dict[tuple[str, int, bool], dict[int, Path]]  # (pattern, flags, strict) -> numbered_files' answer


_listings: dict[str, _Listing] = {}
_listings_lock = threading.Lock()


def _listing(folder: Path) -> tuple[_Listing | None, tuple[_Entry, ...]]:
    """The folder's entries, listed once while the folder's stamp is unchanged: (the memo they are kept in, or
    None when they are not kept, and the entries). A missing folder has no entries."""
    try:
        st = os.stat(folder)
    except (FileNotFoundError, NotADirectoryError):
        return None, ()
    key, stamp = os.fspath(folder), (st.st_dev, st.st_ino, st.st_mtime_ns, st.st_ctime_ns)
    with _listings_lock:
        held = _listings.get(key)
    if held is not None and held.stamp == stamp:
        return held, held.entries
    listed_at = time.time_ns()
    try:
        with os.scandir(folder) as it:
            raw = list(it)
    except (FileNotFoundError, NotADirectoryError):
        return None, ()
    entries = tuple((e.name, e.path, e.is_file()) for e in raw)
    # Not kept: a folder whose entries changed within the racy window (every such change sets its mtime; a
    # second one in the same tick would keep it), or one holding a symbolic link (`is_file` follows it: the
    # target can change while the folder's stamp does not).
    if st.st_mtime_ns > listed_at - LISTING_RACY_NS or any(e.is_symlink() for e in raw):
        return None, entries
    listing = _Listing(stamp, entries, {})
    with _listings_lock:
        if len(_listings) >= _LISTINGS_MAX:
            _listings.pop(next(iter(_listings)))
        _listings[key] = listing
    return listing, entries


def forget_listings() -> None:
    """Forget every folder listing this process keeps (tests)."""
    with _listings_lock:
        _listings.clear()


def numbered_files(folder: Path, pattern: re.Pattern[str], *, strict: bool = True) -> dict[int, Path]:
    """Files of `folder` whose names match `pattern` (group 1 is a chapter id), by chapter number.

    A listing only: nothing is opened. Names that do not match, or whose id is not a chapter id, are ignored;
    a missing folder lists nothing. `strict` (the default) also skips chapter 0 and anything that is not a
    regular file; `strict=False` keeps every matching name (what the search has always listed).

    The folder is listed once while its stamp (device, inode, mtime and ctime in ns) is unchanged, whatever
    the pattern: a start asks for the chapters, contracts, logs and evaluations from several places (the
    project, the outline, the word counts), and used to list each folder two or three times. Adding, removing
    or renaming an entry changes the folder's stamp; a folder changed within `LISTING_RACY_NS` before it was
    listed, or holding a symbolic link, is listed again at every call. The answer is a new dict each time.
    """
    listing, entries = _listing(folder)
    key = (pattern.pattern, pattern.flags, strict)
    if listing is not None:
        with _listings_lock:
            hit = listing.matched.get(key)
        if hit is not None:
            return dict(hit)
    found: dict[int, Path] = {}
    for name, path, is_file in entries:
        m = pattern.match(name)
        if not m:
            continue
        try:
            n = parse_chapter_id(m.group(1))
        except UnsafeIdError:
            continue
        if not strict or (n >= 1 and is_file):
            found[n] = Path(path)
    if listing is not None:
        with _listings_lock:
            listing.matched[key] = dict(found)
    return found
