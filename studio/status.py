"""`novel-studio status`: where the novel stands, in one screen (PRD `/novel:status`, read-only).

Reads the checkpoint and the small per-chapter files (evaluations, logs); chapter text is read only to count
字数 and the counts are cached in the user's cache folder (`cache_file`: platformdirs' user cache dir,
`novel-studio/status/<hash of the project's path>/wordcount.json`), keyed by (size, mtime_ns), so a second
status on 500 chapters reads no chapter text at all. Status writes nothing into the author's folder.

A full report builds the models of the files a chapter's commit changes (checkpoint, state, changelog,
foreshadowing) and its own; the settings are not loaded again while their record holds
(`studio.validated_files.SettingsRecord`), and storylines, schedule, outline and blacklist are not loaded while
what the report shows of them is kept under their files' stats (`ReportParts`).

Prompt cache and versions (issue 9 items 6 and 8):
- `cache`: the share of input tokens served from the prompt cache. For the book, from the spend ledger (every
  call ever paid, planning and repairs included), over the calls whose vendor reported cache use (offline
  calls report none and are left out); a project without a ledger uses its chapter logs' stages instead. For
  the last chapter, from that chapter's log (`PipelineLog.cache_read_share`).
- `prompt_updates`: prompts whose pinned version (`[prompts]` of novel-studio.toml) has a newer installed
  version, or whose pinned file is gone; `prompts_pinned` is False for a project its first run will pin.
"""

from __future__ import annotations

import dataclasses
import json
import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from studio.coldstart import ChangelogFacts, changelog_facts, check_cold_start
from studio.errors import FormatError, Problem, StudioError
from studio.foreshadow_ledger import overdue_items
from studio.i18n import Lang, env_lang, tr
from studio.lock import LockStatus, ProjectLock
from studio.paths import ProjectPaths
from studio.pending import pending_plan_applies, pending_tool_changes
from studio.project import MESSAGES as PROJECT_MESSAGES
from studio.project import Project
from studio.prompt_pins import installed_versions, pin_rows, read_pins
from studio.recovery import RecoveryKind, decide_recovery
from studio.spend_ledger import SpendTotals, spend_totals
from studio.stat_cache import StatCache as StatCache  # re-exported: `studio.views.outline_rows` uses it
from studio.stat_cache import write_cache

# defined in the memo module, which the repeat `status` imports alone; re-exported here
from studio.status_memo import RACY_NS, cache_file
from studio.status_memo import cache_folder as cache_folder
from studio.status_scores import EVALUATION_CACHE as EVALUATION_CACHE
from studio.status_scores import RECENT_SCORES as RECENT_SCORES
from studio.status_scores import score_rows, score_summary
from studio.status_text import MESSAGES as MESSAGES
from studio.status_text import render_data
from studio.status_words import WORDCOUNT_CACHE as WORDCOUNT_CACHE
from studio.status_words import count_words
from studio.validated_files import SettingsRecord, code_key

if TYPE_CHECKING:
    from studio.models.pipeline_log import PipelineLog, StageLog

PARTS_CACHE = "report-parts.json"
LOG_CACHE = "logs.json"
LOG_CACHE_SHARE = "log-cache-share.json"
PROPOSALS_CACHE = "blacklist-proposals.json"
LEDGER_CACHE = "spend-ledger.json"


# ---------------------------------------------------------------------------------------------- report


class ChapterScore(BaseModel):
    chapter: int
    overall: float
    recommendation: str | None = None
    force_passed: bool = False


class ForeshadowSummary(BaseModel):
    id: str
    description: str = ""
    scope: str | None = None
    status: str | None = None
    target_end: int | None = None


class StorylineSummary(BaseModel):
    id: str
    name: str = ""
    status: str = "active"
    volume_role: str | None = None


class LockSummary(BaseModel):
    state: str = "free"  # free / held_alive / stale (studio.lock.LockState)
    cause: str = "free"  # a studio.lock.MESSAGES key
    pid: int | None = None
    host: str | None = None
    since: str | None = None
    chapter: int | None = None
    age_seconds: float = 0.0


class RecoverySummary(BaseModel):
    """An interrupted chapter and what a resume would do (studio.recovery.decide_recovery)."""

    chapter: int
    stage: str | None
    action: str  # a studio.recovery.RecoveryKind value
    description: str  # Chinese
    description_en: str


class ColdStartNote(BaseModel):
    """One finding of the cold-start check (studio.coldstart), or an invalid settings file."""

    key: str
    text: str  # Chinese
    text_en: str


class CacheShare(BaseModel):
    """The prompt cache's read share: the book's (over `book_calls` calls of `source`) and the last chapter's."""

    book: float | None = None
    book_calls: int = 0
    source: str = "ledger"  # ledger (logs/spend.jsonl) | logs (chapter logs, a project without a ledger)
    chapter: int | None = None
    chapter_share: float | None = None


class PromptVersionNote(BaseModel):
    prompt_id: str
    pinned: int
    latest: int | None = None
    missing: bool = False  # the pinned version's file is not installed


class StatusReport(BaseModel):
    """Everything `status` shows; `--json` prints `model_dump(mode="json")` of it."""

    project_name: str
    root: str
    current_volume: int
    last_completed_chapter: int
    volume_start: int | None = None
    volume_end: int | None = None
    volume_over: bool = False
    orchestrator_state: str
    pipeline_stage: str | None = None
    inflight_chapter: int | None = None
    recovery: RecoverySummary | None = None
    chapters_committed: int = 0
    total_chars: int = 0
    average_score: float | None = None
    evaluated_chapters: int = 0
    recent_scores: list[ChapterScore] = Field(default_factory=list)
    foreshadowing_unresolved: int = 0
    foreshadowing_overdue: list[ForeshadowSummary] = Field(default_factory=list)
    active_storylines: list[StorylineSummary] = Field(default_factory=list)
    lock: LockSummary = Field(default_factory=LockSummary)
    cost_usd: float = 0.0
    input_tokens: int = 0
    output_tokens: int = 0
    chapters_without_cost: int = 0
    ledger_unreadable_lines: int = 0  # spend ledger lines not counted: the cost may be incomplete
    ledger_unreadable_at: list[int] = Field(default_factory=list)  # their line numbers (the first few)
    skipped_ops_warnings: int = 0
    pending_actions: int = 0
    blacklist_proposals: int = 0  # the judge's proposals waiting for the author (`blacklist proposals`)
    problems: list[str] = Field(default_factory=list)  # unreadable evaluation/log files, etc. (the author's language)
    notices: list[str] = Field(default_factory=list)  # read with a caveat: Project.notices()
    blockers: list[ColdStartNote] = Field(default_factory=list)  # what `continue` would refuse
    self_repairs: list[ColdStartNote] = Field(default_factory=list)  # what the next run repairs itself
    notes: list[ColdStartNote] = Field(default_factory=list)  # what to know first (an import not extracted yet)
    cache: CacheShare = Field(default_factory=CacheShare)
    prompts_pinned: bool = True
    prompt_updates: list[PromptVersionNote] = Field(default_factory=list)


# ---------------------------------------------------------------------------------------------- caches


def _unreadable(path: Path, exc: OSError) -> Problem:
    """A file that exists but cannot be read, in both languages (`studio.project`'s wording)."""
    error = exc.strerror or exc
    return Problem(path, tr(PROJECT_MESSAGES, "unreadable", "en", error=error),
                   zh=tr(PROJECT_MESSAGES, "unreadable", "zh", error=error))


def _stat(path: Path, problems: list[Problem] | None) -> os.stat_result | None:
    try:
        return os.stat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if problems is not None:
            problems.append(_unreadable(path, exc))
        return None


def total_word_count(project: Project, problems: list[Problem] | None = None) -> tuple[int, dict[int, int]]:
    """字数 of every committed chapter (total, per chapter), using and refreshing the stat-keyed cache
    `cache_file(root, WORDCOUNT_CACHE)` (`studio.status_words.count_words`). A chapter file that is not UTF-8
    counts as 0 and is reported."""

    def report(path: Path, exc: OSError | FormatError) -> None:
        if problems is None:
            return
        if isinstance(exc, FormatError):
            problems.extend(exc.problems)
        else:
            problems.append(_unreadable(path, exc))

    chapters = {n: project.chapter_file(n) for n in project.committed_chapters()}
    per_chapter = count_words(chapters, cache_file(project.root, WORDCOUNT_CACHE), report, project.chapter_text)
    return sum(per_chapter.values()), per_chapter


# ---------------------------------------------------------------------------------------------- report parts

_PARTS_VERSION = 1
_PARTS_CODE = tuple(Path(__file__).resolve().parent / name
                    for name in ("outline.py", "status.py", "project.py", "coldstart.py", "state_engine.py"))


class ReportParts:
    """Parts of the report taken from files a chapter's commit does not change (storylines and schedule, the
    outline's chapter range, the blacklist's category-only words), kept in the user cache (`PARTS_CACHE`)
    under the full stat of each file they come from (size, mtime_ns, ctime_ns, inode; or its absence) and the
    models' and this code's stats (`studio.validated_files.code_key`). A part whose key is the same is taken
    from here, and the project's model of those files is then never loaded (`studio.project.Later`: recorded
    as validated); any other is computed from the model and kept, unless a file changed within `RACY_NS`
    (`studio.status_memo`'s rule). A missing or corrupt cache file is empty; one that cannot be written is
    skipped."""

    def __init__(self, root: Path) -> None:
        self.path = cache_file(root, PARTS_CACHE)
        self.code = self._code()
        self.old: dict[str, Any] = {}
        self.new: dict[str, Any] = {}
        if not self.code:
            return
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError):
            return
        if isinstance(data, dict) and data.get("version") == _PARTS_VERSION and data.get("code") == self.code:
            parts = data.get("parts")
            self.old = dict(parts) if isinstance(parts, dict) else {}

    @staticmethod
    def _code() -> str:
        key = code_key()
        try:
            stats = [os.stat(p) for p in _PARTS_CODE]
        except OSError:
            return ""
        return key and key + "".join(f":{st.st_size}.{st.st_mtime_ns}" for st in stats)

    def get(self, name: str, files: Sequence[Path], compute: Callable[[], object],
            shape: Callable[[Any], bool]) -> Any:
        """Part `name` of the report, from `files` (see the class rules); `compute` makes it from the models; a
        kept value that is not of its `shape` (a cache edited by hand) is not believed."""
        key: list[Any] = []
        newest = 0
        for path in files:
            try:
                st = os.stat(path)
            except FileNotFoundError:
                key.append([str(path)])
                continue
            except OSError:
                return compute()  # cannot tell: computed, not kept
            key.append([str(path), st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino])
            newest = max(newest, st.st_mtime_ns, st.st_ctime_ns)
        hit = self.old.get(name)
        if self.code and isinstance(hit, list) and len(hit) == 2 and hit[0] == key and shape(hit[1]):
            self.new[name] = hit
            return hit[1]
        value = compute()
        if self.code and newest <= time.time_ns() - RACY_NS:
            self.new[name] = [key, value]
        return value

    def save(self) -> None:
        if self.code and self.new != self.old:
            write_cache(self.path, {"version": _PARTS_VERSION, "code": self.code, "parts": self.new})


# ---------------------------------------------------------------------------------------------- building


def _enum_text(value: object) -> str | None:
    if value is None:
        return None
    return str(getattr(value, "value", value))


def _scores(project: Project, problems: list[Problem]) -> tuple[float | None, int, list[ChapterScore]]:
    """(average overall, evaluated chapters, the last RECENT_SCORES scores) from evaluations/
    (`studio.status_scores`, the light path's reader too)."""

    def report(path: Path, exc: OSError | FormatError) -> None:
        if isinstance(exc, FormatError):
            problems.extend(exc.problems)
        else:
            problems.append(_unreadable(path, exc))

    rows = score_rows(project.evaluation_files(), cache_file(project.root, EVALUATION_CACHE), report,
                      lambda n, path: project.evaluation(n))
    summary = score_summary(rows)
    return summary["average_score"], summary["evaluated_chapters"], [ChapterScore(**r) for r in summary["recent_scores"]]


def _costs(project: Project, problems: list[Problem]) -> tuple[float, int, int, int]:
    """(cost USD, input tokens, output tokens, logs without any cost) from logs/. Nulls count as 0."""
    cache = StatCache(cache_file(project.root, LOG_CACHE))
    cost = 0.0
    tokens_in = 0
    tokens_out = 0
    unknown = 0
    for n, path in sorted(project.log_files().items()):
        st = _stat(path, problems)
        if st is None:
            continue
        value = cache.get(path.name, st)
        if not isinstance(value, list) or len(value) != 3:
            try:
                log = project.log(n)
            except FormatError as exc:
                problems.extend(exc.problems)
                continue
            except OSError as exc:
                problems.append(_unreadable(path, exc))
                continue
            if log is None:
                continue
            t_in = sum(
                (s.input_tokens or 0) + (s.cache_creation_input_tokens or 0) + (s.cache_read_input_tokens or 0)
                for s in log.stages
            )
            t_out = sum(s.output_tokens or 0 for s in log.stages)
            value = [log.cost(), t_in, t_out]
            cache.put(path.name, st, value)
        c, t_in, t_out = value
        if c is None:
            unknown += 1
        else:
            cost += float(c)
        tokens_in += int(t_in)
        tokens_out += int(t_out)
    cache.save()
    return round(cost, 6), tokens_in, tokens_out, unknown


_LEDGER_FIELDS = {f.name: str(f.type) for f in dataclasses.fields(SpendTotals)}  # annotations as text


def _cached_field(kind: str, value: object) -> bool:
    """A cached `SpendTotals` field of the right type (`kind`: its annotation's text)."""
    if kind == "float":
        return type(value) is float
    if kind == "int":
        return type(value) is int
    return isinstance(value, list) and all(type(v) is int for v in value)  # tuple[int, ...], a list in JSON


def _ledger_totals(project: Project, problems: list[Problem]) -> SpendTotals:
    """The spend ledger's totals, from the stat-keyed cache while the ledger is unchanged: a new process would
    otherwise parse every line of it (thousands on a long book). A cached value of another shape is not
    believed: the ledger is read again."""
    path = project.paths.spend_ledger
    st = _stat(path, problems)
    if st is None:
        return SpendTotals()
    cache = StatCache(cache_file(project.root, LEDGER_CACHE))
    value = cache.get(path.name, st)
    totals: SpendTotals | None = None
    if isinstance(value, dict) and set(value) == set(_LEDGER_FIELDS) and all(
        _cached_field(_LEDGER_FIELDS[k], v) for k, v in value.items()
    ):
        totals = SpendTotals(**value)
        totals = dataclasses.replace(totals, unreadable_at=tuple(totals.unreadable_at))  # a list in JSON
    if totals is None:
        totals = spend_totals(path)
        cache.put(path.name, st, dataclasses.asdict(totals))
    cache.save()
    return totals


def _cache_stages(log: PipelineLog | None) -> list[StageLog]:
    """The stages whose vendor reported prompt-cache counts (offline calls and cache-blind vendors do not)."""
    return [
        s for s in (log.stages if log else [])
        if s.cache_read_input_tokens is not None or s.cache_creation_input_tokens is not None
    ]


def _log_cache_figures(
    project: Project, cache: StatCache, n: int, path: Path, problems: list[Problem] | None, *, report: bool = False
) -> list[int] | None:
    """[cache read tokens, input tokens, stages] over chapter `n`'s log stages that reported cache use, from
    the stat-keyed cache or the log itself (None: the log is gone or unreadable; `_costs` reports it, or this
    with `report`: a project with a ledger reads no other log)."""
    st = _stat(path, problems)
    if st is None:
        return None
    value = cache.get(path.name, st)
    if isinstance(value, list) and len(value) == 3 and all(isinstance(v, int) for v in value):
        return value
    try:
        log = project.log(n)
    except FormatError as exc:
        if report and problems is not None:
            problems.extend(exc.problems)
        return None
    except OSError as exc:
        if report and problems is not None:
            problems.append(_unreadable(path, exc))
        return None
    reported = _cache_stages(log)
    figures = [
        sum(s.cache_read_input_tokens or 0 for s in reported),
        sum((s.input_tokens or 0) + (s.cache_creation_input_tokens or 0) + (s.cache_read_input_tokens or 0)
            for s in reported),
        len(reported),
    ]
    cache.put(path.name, st, figures)
    return figures


def _cache_share(project: Project, problems: list[Problem], ledger_share: float | None, ledger_calls: int | None) -> CacheShare:
    share = CacheShare()
    logs = project.log_files()
    cache = StatCache(cache_file(project.root, LOG_CACHE_SHARE))
    if ledger_calls is not None:
        share.book, share.book_calls, share.source = ledger_share, ledger_calls, "ledger"
    else:
        # (cache read tokens, input tokens, stages) over the chapter logs' stages that reported cache use
        read = total = stages = 0
        for n, path in sorted(logs.items()):
            figures = _log_cache_figures(project, cache, n, path, problems)
            if figures is not None:
                read, total, stages = read + figures[0], total + figures[1], stages + figures[2]
        share.book = round(read / total, 3) if total else None
        share.book_calls, share.source = stages, "logs"
    if logs:
        last = max(logs)
        # the last chapter's share, from the same cache (a status run reads no log whose figures it holds)
        figures = _log_cache_figures(project, cache, last, logs[last], problems if ledger_calls is not None else None,
                                     report=True)
        if figures is not None:
            share.chapter = last
            share.chapter_share = round(figures[0] / figures[1], 3) if figures[1] else None
    cache.save()
    return share


def _prompt_updates(
    project: Project, installed: Mapping[str, list[int]] | None, problems: list[Problem]
) -> tuple[bool, list[PromptVersionNote]]:
    try:
        pins = read_pins(project.paths)
    except FormatError as exc:
        problems.extend(exc.problems)
        return True, []
    if pins is None:
        return False, []
    rows = pin_rows(pins, installed_versions() if installed is None else installed)
    return True, [
        PromptVersionNote(prompt_id=r.prompt_id, pinned=r.pinned, latest=r.latest, missing=r.missing)
        for r in rows
        if r.pinned is not None and (r.newer or r.missing)
    ]


def _blacklist_proposals(project: Project, problems: list[Problem]) -> int:
    """How many of the judge's blacklist proposals wait for the author. No file, no proposal ever made: a
    file-exists check and nothing else (the proposals' model is imported only to read a file that changed)."""
    path = project.paths.blacklist_proposals
    st = _stat(path, problems)
    if st is None:
        return 0
    cache = StatCache(cache_file(project.root, PROPOSALS_CACHE))
    count = cache.get(path.name, st)
    if not isinstance(count, int) or isinstance(count, bool):
        from studio.models.blacklist_proposals import BlacklistProposals

        try:
            count = len(BlacklistProposals.load(path).pending())
        except FormatError as exc:
            problems.extend(exc.problems)
            return 0
        except OSError as exc:
            problems.append(_unreadable(path, exc))
            return 0
        cache.put(path.name, st, count)
    cache.save()
    return count


def _recovery(project: Project) -> RecoverySummary | None:
    cp = project.checkpoint
    action = decide_recovery(cp, project.paths)
    if action.kind == RecoveryKind.NONE:
        return None
    return RecoverySummary(
        chapter=action.chapter,
        stage=_enum_text(cp.pipeline_stage),
        action=str(action.kind.value),
        description=action.describe("zh"),
        description_en=action.describe("en"),
    )


def cold_start_notes(
    project: Project, changelog: ChangelogFacts | None = None
) -> tuple[list[ColdStartNote], list[ColdStartNote], list[ColdStartNote]]:
    """(what `continue` would refuse, what the next run repairs itself, what to know first): the same check
    the orchestrator runs (studio.coldstart), plus the settings file `continue` loads first. `changelog`: the
    changelog's facts as validated before (`ReportParts`; None: the check validates it); the foreshadowing
    ledger the project validated at open is not read again."""
    blockers: list[ColdStartNote] = []
    repairs: list[ColdStartNote] = []
    notes: list[ColdStartNote] = []
    record = SettingsRecord(project.root)
    if record.lang() is None:  # not recorded as loading without a problem under these files and variables
        from studio.config import load_settings  # its models are built only here

        try:
            settings = load_settings(project.root)
        except StudioError as exc:
            blockers.append(
                ColdStartNote(
                    key="settings_invalid",
                    text=tr(MESSAGES, "settings_invalid", "zh", detail=exc.text("zh")),
                    text_en=tr(MESSAGES, "settings_invalid", "en", detail=exc.text("en")),
                )
            )
        else:
            record.note(settings.ui.lang)
    checkpoint = project.checkpoint if project.has_checkpoint else None
    for f in check_cold_start(project.paths, checkpoint, changelog=changelog, foreshadowing_valid=True,
                              chapter_files=project.committed_chapter_files()):
        note = ColdStartNote(key=f.key, text=f.describe("zh"), text_en=f.describe("en"))
        {"refuse": blockers, "repairable": repairs}.get(f.severity, notes).append(note)
    journals = _unreadable_journals(project)
    if journals:
        # the next run does not finish them: it refuses on the first it cannot read
        repairs = [r for r in repairs if r.key not in _JOURNAL_PENDING]
        blockers += [j for j in journals if j.key not in {b.key for b in blockers}]
    return blockers, repairs, notes


_JOURNAL_PENDING = ("tool_change_pending", "plan_apply_pending")  # studio.coldstart's keys for journals found


def _unreadable_journals(project: Project) -> list[ColdStartNote]:
    """Interrupted tool changes and plan applies whose journal cannot be read: `continue` refuses on them, so
    status says what is wrong and the way out (`repair`'s words). Told by file names first: the journals'
    models and `studio.repair` are imported only when such a file exists."""
    if not (pending_tool_changes(project.paths) or pending_plan_applies(project.paths)):
        return []
    from studio.repair import unreadable_journals

    return [ColdStartNote(key=i.key, text=i.text_zh, text_en=i.text_en) for i in unreadable_journals(project.paths)]


def _lock_summary(status: LockStatus) -> LockSummary:
    info = status.info
    return LockSummary(
        state=str(status.state.value),
        cause=status.cause,
        pid=info.pid if info else None,
        host=info.host if info else None,
        since=info.started.isoformat(timespec="seconds") if info else None,
        chapter=info.chapter if info else None,
        age_seconds=round(status.age_seconds, 1),
    )


def _is_range(value: object) -> bool:
    return value is None or (isinstance(value, list) and len(value) == 2
                             and all(type(v) is int for v in value))


def _are_storylines(value: object) -> bool:
    fields = {"id": (str,), "name": (str,), "status": (str,), "volume_role": (str, type(None))}
    return isinstance(value, list) and all(
        isinstance(line, dict) and set(line) == set(fields)
        and all(isinstance(line[k], kinds) for k, kinds in fields.items())
        for line in value
    )


def _are_pairs(value: object) -> bool:
    return isinstance(value, list) and all(
        isinstance(pair, list) and len(pair) == 2 and all(isinstance(v, str) for v in pair) for pair in value
    )


def _are_facts(value: object) -> bool:
    return value is None or ChangelogFacts.from_data(value) is not None


def _facts_data(paths: ProjectPaths) -> list[object] | None:
    """The changelog's facts in their kept form (None: it cannot be used: the check reads it and says why)."""
    facts = changelog_facts(paths)
    return None if facts is None else facts.to_data()


def _chapter_range(project: Project) -> list[int] | None:
    """The current volume's chapter range from its outline (None: no outline, or none given)."""
    outline = project.outline
    return list(outline.chapter_range) if outline is not None and outline.chapter_range is not None else None


def _storylines(project: Project) -> list[StorylineSummary]:
    schedule = project.schedule
    roles: dict[str, str] = {}
    if schedule is not None:
        roles = {s.storyline_id: s.volume_role for s in schedule.active_storylines}
    out: list[StorylineSummary] = []
    seen: set[str] = set()
    for line in project.storylines.storylines:
        if line.status == "active" or line.id in roles:
            out.append(StorylineSummary(id=line.id, name=line.name, status=line.status, volume_role=roles.get(line.id)))
            seen.add(line.id)
    for sid, role in roles.items():  # scheduled but missing from storylines.json: still show it
        if sid not in seen:
            out.append(StorylineSummary(id=sid, name="", status="active", volume_role=role))
    order = {"primary": 0, "secondary": 1, "seasoning": 2}
    out.sort(key=lambda s: order.get(s.volume_role or "", 3))
    return out


@dataclass(frozen=True)
class SpendFigures:
    """What the book cost and what the studio's header shows of it: a part of `StatusReport` that needs no
    chapter text, evaluation, cold-start check or changelog (`spend_figures`)."""

    cost_usd: float
    input_tokens: int
    output_tokens: int
    chapters_without_cost: int
    cache: CacheShare
    prompts_pinned: bool
    prompt_updates: list[PromptVersionNote]
    ledger_unreadable_lines: int = 0  # the ledger's lines not counted: the cost may be incomplete
    ledger_unreadable_at: tuple[int, ...] = ()


def spend_figures(
    project: Project,
    problems: list[Problem] | None = None,
    prompt_versions: Mapping[str, list[int]] | None = None,
) -> SpendFigures:
    """Cost, tokens, prompt-cache share and prompt updates: the same figures `build_status` reports, alone
    (the studio's header needs these and nothing else of the report before its first paint)."""
    problems = [] if problems is None else problems
    if project.paths.spend_ledger.exists():
        # The spend ledger: every call ever paid, failed and repair calls too; undo never lowers it.
        book = _ledger_totals(project, problems)
        cost, tokens_in, tokens_out, unknown_cost = book.cost_usd, book.tokens_in, book.tokens_out, book.unpriced_calls
        cache = _cache_share(project, problems, book.cache_read_share, book.cache_calls)
        unreadable, unreadable_at = book.unreadable_lines, book.unreadable_at
    else:
        # A project written before the ledger existed: its chapter logs are the only record of what it cost.
        cost, tokens_in, tokens_out, unknown_cost = _costs(project, problems)
        cache = _cache_share(project, problems, None, None)
        unreadable, unreadable_at = 0, ()
    prompts_pinned, prompt_updates = _prompt_updates(project, prompt_versions, problems)
    return SpendFigures(cost, tokens_in, tokens_out, unknown_cost, cache, prompts_pinned, prompt_updates, unreadable,
                        unreadable_at)


def build_status(
    project: Project,
    *,
    lock_status: LockStatus | None = None,
    lang: Lang | None = None,
    prompt_versions: Mapping[str, list[int]] | None = None,
) -> StatusReport:
    """Everything `status` shows, from the project's files (reads no chapter text whose count is cached).
    `prompt_versions`: prompt id -> installed versions (default: the file names of the `prompts` package)."""
    cp = project.checkpoint
    lang = lang or env_lang() or "zh"
    problems: list[Problem] = []
    committed = project.committed_chapters()
    # Without a checkpoint (a project written by another tool, or a fresh sample) the chapters on disk
    # are the best witness of progress.
    last = project.last_completed_chapter if project.has_checkpoint else max(committed, default=0)
    volume = project.current_volume
    parts = ReportParts(project.root)
    paths = project.paths
    volume_files = [paths.outline(volume)] if volume >= 1 else []
    chapter_range = parts.get("chapter_range", volume_files, lambda: _chapter_range(project), _is_range)
    start, end = chapter_range if chapter_range is not None else (None, None)

    recovery = _recovery(project)

    total, _ = total_word_count(project, problems)
    average, evaluated, recent = _scores(project, problems)
    spend = spend_figures(project, problems, prompt_versions)

    ledger = project.foreshadowing
    unresolved = [item for item in ledger.foreshadowing if item.status != "resolved"]
    overdue = [
        ForeshadowSummary(
            id=item.id,
            description=item.description,
            scope=item.scope,
            status=item.status,
            target_end=item.target_resolve_range[1] if item.target_resolve_range else None,
        )
        for item in overdue_items(ledger, last)
    ]

    if lock_status is None:
        lock_status = ProjectLock(project.paths).status()
    # the changelog validated only when it changed since its facts were kept (a long book's log: 13 ms)
    facts = ChangelogFacts.from_data(parts.get("changelog", [paths.changelog], lambda: _facts_data(paths),
                                               _are_facts))
    blockers, repairs, notes = cold_start_notes(project, facts)
    proposals = _blacklist_proposals(project, problems)
    storylines = parts.get("storylines", [paths.storylines, *([paths.schedule(volume)] if volume >= 1 else [])],
                           lambda: [line.model_dump() for line in _storylines(project)], _are_storylines)
    category_only = parts.get("category_only", [paths.ai_blacklist],
                              lambda: [list(pair) for pair in project.ai_blacklist.category_only_words()],
                              _are_pairs)
    parts.save()

    return StatusReport(
        project_name=project.name,
        root=str(project.root),
        current_volume=volume,
        last_completed_chapter=last,
        volume_start=start,
        volume_end=end,
        volume_over=end is not None and last > end,
        orchestrator_state=_enum_text(cp.orchestrator_state) or "INIT",
        pipeline_stage=_enum_text(cp.pipeline_stage),
        inflight_chapter=cp.inflight_chapter,
        recovery=recovery,
        chapters_committed=len(committed),
        total_chars=total,
        average_score=average,
        evaluated_chapters=evaluated,
        recent_scores=recent,
        foreshadowing_unresolved=len(unresolved),
        foreshadowing_overdue=overdue,
        active_storylines=[StorylineSummary(**line) for line in storylines],
        lock=_lock_summary(lock_status),
        cost_usd=spend.cost_usd,
        input_tokens=spend.input_tokens,
        output_tokens=spend.output_tokens,
        chapters_without_cost=spend.chapters_without_cost,
        ledger_unreadable_lines=spend.ledger_unreadable_lines,
        ledger_unreadable_at=list(spend.ledger_unreadable_at),
        skipped_ops_warnings=len(getattr(cp, "skipped_ops_chapters", []) or []),
        pending_actions=len(getattr(cp, "pending_actions", []) or []),
        blacklist_proposals=proposals,
        problems=[p.describe(lang) for p in problems],
        notices=[str(p) for p in project.notices(lang=lang, category_only=[(w, t) for w, t in category_only],
                                                 foreign_changelog=None if facts is None else facts.foreign)],
        blockers=blockers,
        self_repairs=repairs,
        notes=notes,
        cache=spend.cache,
        prompts_pinned=spend.prompts_pinned,
        prompt_updates=spend.prompt_updates,
    )


# ---------------------------------------------------------------------------------------------- rendering


def render_status(report: StatusReport, lang: Lang = "zh") -> str:
    """A compact text block: Chinese by default, English with lang="en" (`studio.status_text.render_data` of the
    report's JSON form, which a memoised report renders through as well)."""
    return render_data(report.model_dump(mode="json"), lang)
