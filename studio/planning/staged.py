"""A staged volume plan and its crash-safe apply (seed 004 plan -> validate -> apply; issue 7 item 3).

Staged plan, `staging/plan/vol-NN/` (written by `stage_plan`, the author approves it before anything moves):

    outline.md                      the project's outline convention (`studio.outline.render_outline`); when
                                    the rest of a volume is re-planned, the written chapters' entries first
    storyline-schedule.json         StorylineSchedule
    foreshadowing.json              ForeshadowingLedger: the threads this volume plants
    chapter-contracts/chapter-NNN.json   ChapterContract, one per chapter
    characters/<id>.json, <id>.md   new characters the plan needs (CharacterFile and profile), applied into
                                    `characters/active/`
    plan.json                       StagedPlanMeta, written last: a folder without it is not a staged plan

Staging sets the checkpoint to VOL_PLANNING (the state it replaced is kept in plan.json, so that discarding
the plan puts it back); `continue` refuses to write while a staged plan waits (`studio.coldstart`).

Apply, one journaled step like the chapter commit (`pipeline.commit`): `prepare_apply` writes the journal
`staging/plan/apply-vol-NN.json`; that write is the commit point. From then on every start finishes the apply
first (`resume_plan_applies`). The steps, each safe to run again after a kill at any point:

1. `backup`        copies of every file the apply replaces or removes (`volumes/vol-NN/...`, a new
                   character's file if one appeared meanwhile, and `foreshadowing/global.json`) into `.novel-studio/plan-backup/vol-NN-<stamp>/`;
2. `files`         the staged files copied into `volumes/vol-NN/` (same bytes again change nothing); the
                   volume's contracts from the plan's first chapter on that the plan does not have are removed
                   (they were backed up; a re-plan may shorten the volume);
3. `manifest`      the sha256 of every file the apply wrote, in `.novel-studio/plan-files.json` (`PlanManifest`):
                   a later plan tells the author's edits from its own by it (`hand_edits`);
4. `foreshadowing` `foreshadowing/global.json` = the backed-up ledger, less the threads planted in the plan's
                   range (plans of chapters not written yet, which this plan replaces), plus the plan's threads,
                   so running it twice gives the same file;
5. `checkpoint`    when the plan's first chapter is the next one to write: `current_volume` = NN,
                   `orchestrator_state` WRITING, the volume-end pause cleared; otherwise (a volume planned
                   ahead) the state the plan replaced;
6. `cleanup`       the staged folder, then the journal itself, last.

Committed chapters are never touched: a plan whose range starts at or before the last committed chapter is
refused before the journal is written. A re-plan of the rest of a volume stages the written chapters' outline
entries unchanged, and the volume's threads planted in them are kept in its `foreshadowing.json`.

Hand edits: `hand_edits` lists the files of the volume the apply would replace or remove whose bytes are not
what the last apply wrote (or that no apply wrote), each with its unified diff; the approval shows them and asks.
"""

from __future__ import annotations

import difflib
import hashlib
import re
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from pydantic import Field

from studio.errors import StudioError
from studio.fileio import atomic_write_bytes, atomic_write_json, atomic_write_text
from studio.i18n import Catalog, Lang, tr
from studio.ids import check_slug, volume_id
from studio.models.base import FileModel
from studio.models.character import CharacterFile
from studio.models.checkpoint import Checkpoint, OrchestratorState, now_iso, save_checkpoint
from studio.models.foreshadowing import ForeshadowingLedger
from studio.models.volume_plan import VolumePlan, load_volume_plan
from studio.outline import VolumeOutline, render_outline
from studio.paths import ProjectPaths
from studio.pending import PLAN_META_NAME as META_NAME
from studio.pending import apply_journal_path, pending_plan_applies, staged_plan_dir, staged_plans

__all__ = [
    "APPLY_STEPS",
    "ApplyOutcome",
    "PlanApplyJournal",
    "PlanApplyRefused",
    "StagedPlanMeta",
    "PlanManifest",
    "apply_journal_path",
    "hand_edits",
    "staged_character_files",
    "staged_outline_edited",
    "staged_outline_path",
    "activate_volume",
    "apply_staged_plan",
    "discard_staged_plan",
    "load_staged_plan",
    "pending_plan_applies",
    "prepare_apply",
    "resume_plan_applies",
    "run_apply",
    "stage_plan",
    "staged_plan_dir",
    "staged_plans",
]

APPLY_STEPS: tuple[str, ...] = ("backup", "files", "manifest", "foreshadowing", "checkpoint", "cleanup")
GLOBAL_BACKUP = "global.json"
VOLUME_END_KIND = "volume_end"


StepHook = Callable[[str], None]

MESSAGES: Catalog = {
    "refused_committed": (
        "第 {volume} 卷的计划从第 {first} 章开始，但第 {last} 章已经提交；已提交的章节不会被改动",
        "the plan of volume {volume} starts at chapter {first}, but chapter {last} is committed; committed "
        "chapters are never changed",
    ),
    "no_staged": ("没有待批准的第 {volume} 卷计划", "no staged plan of volume {volume}"),
}


class PlanApplyRefused(StudioError):
    """The staged plan cannot be applied (nothing was changed)."""


class StagedPlanMeta(FileModel):
    """`staging/plan/vol-NN/plan.json`: what the staged plan is and what approval shows with it."""

    volume: int = Field(ge=1)
    first_chapter: int = Field(ge=1)
    last_chapter: int = Field(ge=1)
    previous_state: OrchestratorState = OrchestratorState.WRITING
    warnings: list[str] = Field(default_factory=list)  # the checks' warnings, in the author's language
    warnings_en: list[str] = Field(default_factory=list)
    note: str = ""
    estimated_cost_usd: float | None = None  # writing the volume, at staging time
    staged_outline: str = ""  # outline.md as staged, to tell which chapters the author changed by editing it
    new_characters: list[dict[str, object]] = Field(default_factory=list)  # characters the plan needs
    created_at: str = Field(default_factory=now_iso)


class PlanManifest(FileModel):
    """`.novel-studio/plan-files.json`: sha256 of every file a plan apply wrote, by path relative to the root."""

    files: dict[str, str] = Field(default_factory=dict)


class PlanApplyJournal(FileModel):
    """`staging/plan/apply-vol-NN.json`: the commit point of an apply, and its finished steps."""

    volume: int = Field(ge=1)
    first_chapter: int = Field(ge=1)
    last_chapter: int = Field(ge=1)
    activate: bool  # the plan's volume becomes the current one (its first chapter is the next to write)
    previous_state: OrchestratorState = OrchestratorState.WRITING
    backup: str  # relative to the project root
    files: list[str] = Field(default_factory=list)  # relative to the staged folder
    remove: list[str] = Field(default_factory=list)  # relative to volumes/vol-NN/
    global_existed: bool = False
    done: list[str] = Field(default_factory=list)


@dataclass
class ApplyOutcome:
    volume: int
    first_chapter: int
    last_chapter: int
    activated: bool
    backup: Path
    resumed: bool = False


def staged_outline_path(paths: ProjectPaths, volume: int) -> Path:
    """The staged outline file (what the author edits before approving)."""
    return staged_plan_dir(paths, volume) / "outline.md"


def manifest_path(paths: ProjectPaths) -> Path:
    return paths.root / ".novel-studio" / "plan-files.json"


CHARACTERS = "characters/"


def _dest(paths: ProjectPaths, volume: int, rel: str) -> Path:
    """Where a staged file goes: `characters/...` into `characters/active/`, the rest into `volumes/vol-NN/`."""
    if rel.startswith(CHARACTERS):
        return paths.characters_active / rel[len(CHARACTERS):]
    return paths.volume_dir(volume) / rel


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# --------------------------------------------------------------------------------------------- stage


def stage_plan(
    paths: ProjectPaths,
    plan: VolumePlan,
    *,
    warnings: Sequence[str] = (),
    warnings_en: Sequence[str] = (),
    note: str = "",
    estimated_cost_usd: float | None = None,
    fixed: VolumeOutline | None = None,
    new_characters: Sequence[dict[str, object]] = (),
    character_files: Sequence[tuple[str, dict[str, object], str]] = (),
) -> StagedPlanMeta:
    """Write `plan` into `staging/plan/vol-NN/` (replacing an earlier staged plan of that volume) and set the
    checkpoint to VOL_PLANNING. `fixed` holds the outline entries of the volume's written chapters (a re-plan
    of its rest): they go first in the staged outline, and the volume's threads planted before the plan's first
    chapter are kept. `character_files` are the new characters' (id, CharacterFile data, profile Markdown).
    plan.json is written last, so a kill leaves no half plan that looks whole."""
    folder = staged_plan_dir(paths, plan.volume)
    cp = Checkpoint.load_or_default(paths.checkpoint)
    previous = cp.orchestrator_state
    old_meta = folder / META_NAME
    if old_meta.is_file():  # re-planning: keep the state the first staging replaced
        previous = StagedPlanMeta.load(old_meta).previous_state
    if previous is OrchestratorState.VOL_PLANNING:  # its staged plan is gone (removed by hand): writing goes on
        previous = OrchestratorState.WRITING
    outline = plan.outline
    threads = [t for t in plan.foreshadowing if t.planted_chapter is None or t.planted_chapter >= plan.first_chapter]
    if fixed is not None and fixed.chapters:
        planned = [ch for ch in plan.outline.chapters if ch.number >= plan.first_chapter]
        outline = fixed.model_copy(update={"chapters": [*fixed.chapters, *planned]})
        old = ForeshadowingLedger.load_or_default(paths.volume_foreshadowing(plan.volume)).foreshadowing
        ids = {t.id for t in threads}
        kept = [t for t in old if t.planted_chapter is not None and t.planted_chapter < plan.first_chapter]
        threads = [*(t for t in kept if t.id not in ids), *threads]
    outline_text = render_outline(outline)
    if folder.exists():
        shutil.rmtree(folder)
    atomic_write_text(folder / "outline.md", outline_text)
    atomic_write_json(folder / "storyline-schedule.json", plan.schedule.to_data())
    ledger = ForeshadowingLedger(foreshadowing=threads)
    atomic_write_json(folder / "foreshadowing.json", ledger.to_data())
    for contract in plan.contracts:
        atomic_write_json(folder / "chapter-contracts" / f"chapter-{contract.chapter:03d}.json", contract.to_data())
    for slug, data, profile in character_files:
        atomic_write_json(folder / CHARACTERS / f"{check_slug(slug, 'character id')}.json", data)
        if profile.strip():
            atomic_write_text(folder / CHARACTERS / f"{slug}.md", profile.strip() + "\n")
    meta = StagedPlanMeta(
        volume=plan.volume,
        first_chapter=plan.first_chapter,
        last_chapter=plan.last_chapter,
        previous_state=previous,
        warnings=list(warnings),
        warnings_en=list(warnings_en),
        note=note,
        estimated_cost_usd=estimated_cost_usd,
        staged_outline=outline_text,
        new_characters=[dict(c) for c in new_characters],
    )
    meta.save(folder / META_NAME)
    if cp.orchestrator_state is not OrchestratorState.VOL_PLANNING:
        cp.orchestrator_state = OrchestratorState.VOL_PLANNING
        save_checkpoint(paths, cp)
    return meta


def load_staged_plan(paths: ProjectPaths, volume: int, *, as_checked: bool = False) -> tuple[VolumePlan, StagedPlanMeta]:
    """The staged plan of `volume` and its meta (FormatError when a file does not parse). The plan's range is
    the meta's: the outline may start with the written chapters' entries of a re-planned volume. With
    `as_checked` the outline is the one staging wrote (`StagedPlanMeta.staged_outline`), whatever the author
    has done to the file since."""
    folder = staged_plan_dir(paths, volume)
    meta_path = folder / META_NAME
    if not meta_path.is_file():
        raise PlanApplyRefused(tr(MESSAGES, "no_staged", "zh", volume=volume))
    meta = StagedPlanMeta.load(meta_path)
    outline_text = meta.staged_outline if as_checked and meta.staged_outline else None
    plan = load_volume_plan(paths, volume, root=folder.parent, outline_text=outline_text)
    return plan.model_copy(update={"first_chapter": meta.first_chapter, "last_chapter": meta.last_chapter}), meta


def staged_character_files(paths: ProjectPaths, volume: int) -> list[tuple[str, dict[str, object], str]]:
    """The new characters staged with the plan: (id, CharacterFile data, profile), as `stage_plan` takes them."""
    folder = staged_plan_dir(paths, volume) / CHARACTERS
    out: list[tuple[str, dict[str, object], str]] = []
    if folder.is_dir():
        for path in sorted(folder.glob("*.json")):
            profile = path.with_suffix(".md")
            data = CharacterFile.load(path).to_data()
            out.append((path.stem, data, profile.read_text("utf-8") if profile.is_file() else ""))
    return out


def staged_outline_edited(paths: ProjectPaths, volume: int) -> bool:
    """True when the staged outline file is no longer the one staging wrote (the author edited it)."""
    folder = staged_plan_dir(paths, volume)
    meta = StagedPlanMeta.load(folder / META_NAME)
    path = folder / "outline.md"
    return bool(meta.staged_outline) and (not path.is_file() or path.read_text("utf-8") != meta.staged_outline)


def _volume_files(paths: ProjectPaths, volume: int) -> tuple[list[str], list[str]]:
    """(files the staged plan writes, contracts of its range it removes), relative to `volumes/vol-NN/`."""
    folder = staged_plan_dir(paths, volume)
    meta = StagedPlanMeta.load(folder / META_NAME)
    files = sorted(
        p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file() and p.name != META_NAME
    )
    staged_contracts = {f for f in files if f.startswith("chapter-contracts/")}
    remove = []
    contracts = paths.volume_dir(volume) / "chapter-contracts"
    if contracts.is_dir():
        for path in sorted(contracts.glob("chapter-*.json")):
            rel = f"chapter-contracts/{path.name}"
            m = re.match(r"^chapter-(\d{3,})\.json$", path.name)
            if m and int(m.group(1)) >= meta.first_chapter and rel not in staged_contracts:
                remove.append(rel)
    return files, remove


def _text(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")


def hand_edits(paths: ProjectPaths, volume: int) -> list[tuple[str, str]]:
    """(path relative to the root, unified diff now -> staged) of every file of the volume the staged plan's
    apply would replace or remove that the author edited: its bytes are not the ones the last apply wrote."""
    folder = staged_plan_dir(paths, volume)
    if not (folder / META_NAME).is_file():
        return []
    manifest = PlanManifest.load_or_default(manifest_path(paths)).files
    files, remove = _volume_files(paths, volume)
    out = []
    for rel in [*files, *remove]:
        dest = _dest(paths, volume, rel)
        if not dest.is_file():
            continue
        now = dest.read_bytes()
        new = (folder / rel).read_bytes() if rel in files else b""
        key = dest.relative_to(paths.root).as_posix()
        if now == new or manifest.get(key) == _sha(now):
            continue
        diff = difflib.unified_diff(_text(now).splitlines(), _text(new).splitlines(), fromfile=f"{key}（现在）",
                                    tofile=f"{key}（计划）", lineterm="")
        out.append((key, "\n".join(diff)))
    return out


def discard_staged_plan(paths: ProjectPaths, volume: int) -> None:
    """Drop the staged plan and put back the orchestrator state staging replaced."""
    folder = staged_plan_dir(paths, volume)
    meta_path = folder / META_NAME
    previous = StagedPlanMeta.load(meta_path).previous_state if meta_path.is_file() else None
    cp = Checkpoint.load_or_default(paths.checkpoint)
    if cp.orchestrator_state is OrchestratorState.VOL_PLANNING:
        cp.orchestrator_state = previous or OrchestratorState.WRITING
        save_checkpoint(paths, cp)
    shutil.rmtree(folder, ignore_errors=True)
    _prune(paths)


# --------------------------------------------------------------------------------------------- apply


def _stamp() -> str:
    return datetime.now().strftime("%Y%m%d-%H%M%S")


def prepare_apply(paths: ProjectPaths, volume: int, lang: Lang = "zh") -> PlanApplyJournal:
    """Check the staged plan may be applied and write the journal (the commit point)."""
    folder = staged_plan_dir(paths, volume)
    meta_path = folder / META_NAME
    if not meta_path.is_file():
        raise PlanApplyRefused(tr(MESSAGES, "no_staged", lang, volume=volume))
    meta = StagedPlanMeta.load(meta_path)
    cp = Checkpoint.load_or_default(paths.checkpoint)
    if meta.first_chapter <= cp.last_completed_chapter:
        raise PlanApplyRefused(
            tr(MESSAGES, "refused_committed", lang, volume=volume, first=meta.first_chapter,
               last=cp.last_completed_chapter)
        )
    files, remove = _volume_files(paths, volume)
    journal = PlanApplyJournal(
        volume=volume,
        first_chapter=meta.first_chapter,
        last_chapter=meta.last_chapter,
        activate=meta.first_chapter == cp.last_completed_chapter + 1,
        previous_state=meta.previous_state,
        backup=(paths.root / ".novel-studio" / "plan-backup" / f"{volume_id(volume)}-{_stamp()}")
        .relative_to(paths.root)
        .as_posix(),
        files=files,
        remove=remove,
        global_existed=paths.global_foreshadowing.is_file(),
    )
    atomic_write_json(apply_journal_path(paths, volume), journal.to_data())
    return journal


def _backup(paths: ProjectPaths, j: PlanApplyJournal) -> None:
    backup = paths.root / j.backup
    for rel in [*j.files, *j.remove]:
        src = _dest(paths, j.volume, rel)
        if src.is_file():
            atomic_write_bytes(backup / "volume" / rel, src.read_bytes())
    if j.global_existed:
        atomic_write_bytes(backup / GLOBAL_BACKUP, paths.global_foreshadowing.read_bytes())


def _files(paths: ProjectPaths, j: PlanApplyJournal) -> None:
    folder = staged_plan_dir(paths, j.volume)
    for rel in j.files:
        data = (folder / rel).read_bytes()
        dest = _dest(paths, j.volume, rel)
        if not dest.is_file() or dest.read_bytes() != data:
            atomic_write_bytes(dest, data)
    for rel in j.remove:
        _dest(paths, j.volume, rel).unlink(missing_ok=True)


def _manifest(paths: ProjectPaths, j: PlanApplyJournal) -> None:
    manifest = PlanManifest.load_or_default(manifest_path(paths))
    files = dict(manifest.files)
    for rel in j.files:
        path = _dest(paths, j.volume, rel)
        if path.is_file():
            files[path.relative_to(paths.root).as_posix()] = _sha(path.read_bytes())
    for rel in j.remove:
        files.pop(_dest(paths, j.volume, rel).relative_to(paths.root).as_posix(), None)
    if files != manifest.files:
        atomic_write_json(manifest_path(paths), manifest.model_copy(update={"files": files}).to_data())


def _foreshadowing(paths: ProjectPaths, j: PlanApplyJournal) -> None:
    before_path = paths.root / j.backup / GLOBAL_BACKUP
    ledger = ForeshadowingLedger.load(before_path) if j.global_existed else ForeshadowingLedger()
    threads = ForeshadowingLedger.load_or_default(paths.volume_foreshadowing(j.volume)).foreshadowing
    # threads planted in the plan's range were planned, never written (the range is after the last commit)
    base = [
        item for item in ledger.foreshadowing
        if item.planted_chapter is None or not j.first_chapter <= item.planted_chapter <= j.last_chapter
    ]
    known = {item.id for item in base}
    added = [item for item in threads if item.id not in known]
    merged = ledger.model_copy(update={"foreshadowing": [*base, *added]})
    atomic_write_json(paths.global_foreshadowing, merged.to_data())


def _checkpoint(paths: ProjectPaths, j: PlanApplyJournal) -> None:
    cp = Checkpoint.load_or_default(paths.checkpoint)
    if j.activate:
        state, volume = OrchestratorState.WRITING, j.volume
        pending = [a for a in cp.pending_actions if a.kind != VOLUME_END_KIND]
    else:
        state, volume, pending = j.previous_state, cp.current_volume, cp.pending_actions
    if (cp.orchestrator_state, cp.current_volume, len(cp.pending_actions)) == (state, volume, len(pending)):
        return
    cp.orchestrator_state, cp.current_volume, cp.pending_actions = state, volume, pending
    save_checkpoint(paths, cp)


def activate_volume(paths: ProjectPaths, volume: int) -> None:
    """Make `volume` (planned ahead, its outline in place) the current one: WRITING, volume-end pause cleared."""
    cp = Checkpoint.load_or_default(paths.checkpoint)
    cp.current_volume = volume
    cp.orchestrator_state = OrchestratorState.WRITING
    cp.pending_actions = [a for a in cp.pending_actions if a.kind != VOLUME_END_KIND]
    save_checkpoint(paths, cp)


def _prune(paths: ProjectPaths) -> None:
    for folder in (paths.staging / "plan", paths.staging):
        try:
            folder.rmdir()
        except OSError:
            pass


def _cleanup(paths: ProjectPaths, j: PlanApplyJournal) -> None:
    shutil.rmtree(staged_plan_dir(paths, j.volume), ignore_errors=True)
    apply_journal_path(paths, j.volume).unlink(missing_ok=True)
    _prune(paths)


_RUNNERS: dict[str, Callable[[ProjectPaths, PlanApplyJournal], None]] = {
    "backup": _backup,
    "files": _files,
    "manifest": _manifest,
    "foreshadowing": _foreshadowing,
    "checkpoint": _checkpoint,
    "cleanup": _cleanup,
}


def run_apply(paths: ProjectPaths, volume: int, *, hook: StepHook | None = None) -> ApplyOutcome:
    """Run (or finish) the apply whose journal exists; each finished step is recorded in the journal."""
    path = apply_journal_path(paths, volume)
    journal = PlanApplyJournal.load(path)
    resumed = bool(journal.done)
    for step in APPLY_STEPS:
        if step in journal.done:
            continue
        if hook is not None:
            hook(step)
        _RUNNERS[step](paths, journal)
        if step != "cleanup":
            journal.done.append(step)
            atomic_write_json(path, journal.to_data())
    return ApplyOutcome(
        journal.volume, journal.first_chapter, journal.last_chapter, journal.activate, paths.root / journal.backup,
        resumed,
    )


def resume_plan_applies(paths: ProjectPaths, *, hook: StepHook | None = None) -> list[ApplyOutcome]:
    """Finish every apply whose journal exists (call under the project lock, before anything else)."""
    outcomes = []
    for volume in pending_plan_applies(paths):
        outcome = run_apply(paths, volume, hook=hook)
        outcome.resumed = True
        outcomes.append(outcome)
    return outcomes


def apply_staged_plan(paths: ProjectPaths, volume: int, *, lang: Lang = "zh", hook: StepHook | None = None) -> ApplyOutcome:
    """Prepare and run the apply of the staged plan of `volume`."""
    prepare_apply(paths, volume, lang)
    return run_apply(paths, volume, hook=hook)
