"""The staging area of one chapter (seed 003 section 10.4): every artifact lands here before the commit.

`studio.paths.ProjectPaths` names the files the seed lists (the staged chapter, its `.partial`, summary,
delta, storyline memory, evaluation, refine edits). This module adds the files the orchestrator keeps
besides them, all under `staging/`, and the small readers and writers around them:

- `chapters/chapter-NNN.draft.md`, `.rev1.md`, `.rev2.md` — the writer's text of each pass, never
  overwritten once its pass is consumed; `.hints.md` next to each holds the writer's state hints.
- `chapters/chapter-NNN.md` — the *current* text: the writer's text of the current pass, replaced by the
  refined text once the refine record is written (the record is the source of truth either way; a missing
  current text is rebuilt from the records, `restore_current`).
- `refine/chapter-NNN-refine.json` — the refine record of the current pass (source pass, edits, decisions,
  result); `-refine.passK.json` the records of earlier passes; `-polish.json` the polish pass.
- `evaluations/chapter-NNN-eval.passK.json` — the evaluations of earlier passes.
- `summaries/chapter-NNN-summary.json` — Summarizer metadata (storyline, cross references, leak risk,
  warnings); the delta file is written last, so its presence means the whole summary set is there. A
  patch whose ops were skipped is staged as an empty patch marked `"skipped": true`.
- `revise/chapter-NNN-input.json` — what the current revision works from (kind, previous text, fixes).
- `logs/chapter-NNN-calls.jsonl` — one line per model call and per gate decision, for the chapter log.
- `commit-chapter-NNN.json` — the commit journal (see `pipeline.commit`).
"""

from __future__ import annotations

import json
import shutil
from dataclasses import asdict
from pathlib import Path
from typing import Any

from pipeline.agents.protocol import CallRecord, RevisionInput
from pipeline.providers.base import Usage
from pipeline.refine_edits import RefineResult
from studio.errors import FormatError
from studio.fileio import (
    append_line,
    atomic_write_json,
    atomic_write_text,
    read_json,
    read_text,
    replace_file,
)
from studio.ids import chapter_id
from studio.models.patch import StatePatch
from studio.paths import ProjectPaths


class ChapterStaging:
    """The staging files of chapter `n`."""

    def __init__(self, paths: ProjectPaths, n: int) -> None:
        self.paths = paths
        self.n = n
        self.cid = chapter_id(n)

    # ------------------------------------------------------------------ paths

    @property
    def root(self) -> Path:
        return self.paths.staging

    @property
    def partial(self) -> Path:
        return self.paths.staged_draft_partial(self.n)

    @property
    def current(self) -> Path:
        return self.paths.staged_chapter(self.n)

    def pass_text(self, k: int) -> Path:
        """The writer's text of pass `k` (0: the draft, k: revision k)."""
        suffix = "draft" if k == 0 else f"rev{k}"
        return self.root / "chapters" / f"{self.cid}.{suffix}.md"

    def pass_hints(self, k: int) -> Path:
        suffix = "draft" if k == 0 else f"rev{k}"
        return self.root / "chapters" / f"{self.cid}.{suffix}.hints.md"

    @property
    def note(self) -> Path:
        """The author's note for this chapter (本章要求), kept so a resumed run or a revision reuses it."""
        return self.root / "chapters" / f"{self.cid}.note.md"

    def load_note(self) -> str | None:
        return read_text(self.note) if self.note.is_file() else None

    @property
    def summary(self) -> Path:
        return self.paths.staged_summary(self.n)

    @property
    def summary_meta(self) -> Path:
        return self.paths.staged_summary_meta(self.n)

    @property
    def delta(self) -> Path:
        return self.paths.staged_delta(self.n)

    def memory(self, storyline: str) -> Path:
        return self.paths.staged_memory(storyline)

    @property
    def refine(self) -> Path:
        return self.paths.staged_refine(self.n)

    def refine_archive(self, k: int) -> Path:
        return self.root / "refine" / f"{self.cid}-refine.pass{k}.json"

    @property
    def polish(self) -> Path:
        return self.root / "refine" / f"{self.cid}-polish.json"

    @property
    def evaluation(self) -> Path:
        return self.paths.staged_evaluation(self.n)

    def evaluation_archive(self, k: int) -> Path:
        return self.root / "evaluations" / f"{self.cid}-eval.pass{k}.json"

    @property
    def revision_input(self) -> Path:
        return self.root / "revise" / f"{self.cid}-input.json"

    @property
    def calls(self) -> Path:
        return self.root / "logs" / f"{self.cid}-calls.jsonl"

    @property
    def staged_log(self) -> Path:
        return self.paths.staged_log(self.n)

    @property
    def journal(self) -> Path:
        return self.paths.commit_journal(self.n)

    def own_files(self) -> list[Path]:
        """Every staging file of this chapter except storyline memories (those are named by storyline)."""
        out: list[Path] = []
        for folder in ("chapters", "summaries", "state", "evaluations", "refine", "revise", "logs"):
            base = self.root / folder
            if base.is_dir():
                prefixes = (self.cid + ".", self.cid + "-")
                out.extend(p for p in base.iterdir() if p.is_file() and p.name.startswith(prefixes))
        if self.journal.exists():
            out.append(self.journal)
        return sorted(out)

    # ------------------------------------------------------------------ draft stream

    def open_partial(self) -> Any:
        self.partial.parent.mkdir(parents=True, exist_ok=True)
        return open(self.partial, "w", encoding="utf-8")

    def finish_draft(self, k: int, text: str, hints: str) -> None:
        """Archive pass `k`'s text and hints, then turn the `.partial` into the current staged text by a
        rename. Until the rename no finished draft exists for recovery."""
        atomic_write_text(self.pass_text(k), text)
        atomic_write_text(self.pass_hints(k), hints)
        atomic_write_text(self.partial, text)
        replace_file(self.partial, self.current)

    def pass_source(self, k: int) -> tuple[str, str]:
        """The writer's text and hints of pass `k` (the input of the Summarizer and the StyleRefiner)."""
        path = self.pass_text(k)
        if not path.is_file():  # staging from before the archive files existed: the current text
            path = self.current
        hints = self.pass_hints(k)
        return read_text(path), read_text(hints) if hints.is_file() else ""

    # ------------------------------------------------------------------ summary

    def write_summary(
        self,
        *,
        summary: str,
        patch: StatePatch | None,
        storyline_id: str,
        memory: str,
        meta: dict[str, Any],
        base_state_version: int,
    ) -> None:
        """Memory, metadata and summary first, the delta last: the delta's presence completes the set."""
        atomic_write_text(self.memory(storyline_id), memory.rstrip("\n") + "\n")
        atomic_write_json(self.summary_meta, {"storyline_id": storyline_id, **meta})
        atomic_write_text(self.summary, summary.rstrip("\n") + "\n")
        if patch is None:
            data: dict[str, Any] = StatePatch(
                chapter=self.n, base_state_version=base_state_version, storyline_id=storyline_id, ops=[]
            ).to_data()
            data["skipped"] = True
        else:
            data = patch.to_data()
        atomic_write_json(self.delta, data)

    def summary_storyline(self) -> str | None:
        if self.summary_meta.is_file():
            value = read_json(self.summary_meta).get("storyline_id")
            return value if isinstance(value, str) else None
        if self.delta.is_file():
            value = read_json(self.delta).get("storyline_id")
            return value if isinstance(value, str) else None
        return None

    def load_delta(self) -> tuple[StatePatch | None, str | None]:
        """(patch, storyline id); the patch is None when its ops were skipped."""
        data = read_json(self.delta)
        storyline = data.get("storyline_id") if isinstance(data, dict) else None
        if isinstance(data, dict) and data.get("skipped"):
            return None, storyline
        patch = StatePatch.parse_data(data, self.delta)
        return patch, patch.storyline_id

    def clear_summary(self) -> None:
        storyline = self.summary_storyline()
        for path in (self.delta, self.summary, self.summary_meta):
            path.unlink(missing_ok=True)
        if storyline:
            self.memory(storyline).unlink(missing_ok=True)

    # ------------------------------------------------------------------ refine

    def write_refine(self, record: dict[str, Any], refined_text: str) -> None:
        """The record first (the source of truth for the refined text), then the current text."""
        atomic_write_json(self.refine, record)
        atomic_write_text(self.current, refined_text)

    def write_polish(self, record: dict[str, Any], polished_text: str) -> None:
        atomic_write_json(self.polish, record)
        atomic_write_text(self.current, polished_text)

    def refined_text(self) -> str:
        """The text the judge reads: the refine record's result (the current file as a fallback)."""
        text = record_text(self.refine)
        return read_text(self.current) if text is None else text

    def polished_text(self) -> str | None:
        return record_text(self.polish)

    def sync_current(self, text: str) -> None:
        """Make the current staged text exactly `text` (after a crash between a record and the text)."""
        if not self.current.is_file() or read_text(self.current) != text:
            atomic_write_text(self.current, text)

    def restore_current(self) -> bool:
        """A missing current text rebuilt from the record that made it: the polish record's result when one is
        there, else the refine record's (`repair` set a broken text aside; see `studio.commit_rollback`). No
        model call, nothing paid twice. False (nothing written) when the text is there or no record holds it."""
        if self.current.is_file():
            return False
        for record in (self.polish, self.refine):
            try:
                text = record_text(record)
            except FormatError:  # a broken record: `repair` sets it aside; the next one may hold the text
                continue
            if text is not None and text.strip():
                atomic_write_text(self.current, text)
                return True
        return False

    def final_text(self) -> str:
        """What the commit writes: the current staged text. The orchestrator keeps it equal to the judged
        (or polished) text; while a chapter is paused the author may edit it by hand, and that is kept."""
        return read_text(self.current)

    # ------------------------------------------------------------------ passes

    def archive_pass(self, k: int) -> None:
        """Move pass `k`'s refine record and evaluation to numbered names and drop its summary set, so the
        next pass starts clean. Idempotent (a missing file is already moved)."""
        if self.refine.is_file():
            replace_file(self.refine, self.refine_archive(k))
        if self.evaluation.is_file():
            replace_file(self.evaluation, self.evaluation_archive(k))
        self.polish.unlink(missing_ok=True)
        self.clear_summary()

    def write_revision_input(self, revision: RevisionInput) -> None:
        atomic_write_json(self.revision_input, asdict(revision))

    def load_revision_input(self) -> RevisionInput | None:
        if not self.revision_input.is_file():
            return None
        data = read_json(self.revision_input)
        return RevisionInput(
            kind=str(data.get("kind", "revision")),
            previous_text=str(data.get("previous_text", "")),
            required_fixes=[str(x) for x in data.get("required_fixes", [])],
            issues=[str(x) for x in data.get("issues", [])],
            violations=[str(x) for x in data.get("violations", [])],
        )

    # ------------------------------------------------------------------ calls log

    def record_calls(self, calls: list[CallRecord]) -> None:
        for call in calls:
            append_line(self.calls, json.dumps({"type": "call", **call_to_data(call)}, ensure_ascii=False))

    def record_event(self, data: dict[str, Any]) -> None:
        append_line(self.calls, json.dumps(data, ensure_ascii=False))

    def record_gate(self, action: str, overall: float, revision_count: int, reason: str) -> None:
        line = {"type": "gate", "action": action, "overall": overall, "revision_count": revision_count,
                "reason": reason}
        append_line(self.calls, json.dumps(line, ensure_ascii=False))

    def read_calls_log(self) -> list[dict[str, Any]]:
        if not self.calls.is_file():
            return []
        out: list[dict[str, Any]] = []
        for line in read_text(self.calls).splitlines():
            if not line.strip():
                continue
            try:
                data = json.loads(line)
            except json.JSONDecodeError:
                continue  # a torn last line from a crash
            if isinstance(data, dict):
                out.append(data)
        return out

    # ------------------------------------------------------------------ discard

    def discard(self) -> None:
        """Remove every staging file of this chapter (the author chose to throw the work away)."""
        storyline = self.summary_storyline()
        if storyline:
            self.memory(storyline).unlink(missing_ok=True)
        self.partial.unlink(missing_ok=True)
        for path in self.own_files():
            path.unlink(missing_ok=True)
        prune_empty_dirs(self.root)


def call_to_data(call: CallRecord) -> dict[str, Any]:
    data = asdict(call)
    return data


def call_from_data(data: dict[str, Any]) -> CallRecord:
    usage_data = data.get("usage")
    usage = Usage(**usage_data) if isinstance(usage_data, dict) else None
    return CallRecord(
        stage=str(data.get("stage", "?")),
        model=str(data.get("model", "")),
        duration_ms=int(data.get("duration_ms") or 0),
        usage=usage,
        cost_usd=data.get("cost_usd"),
        prompt_id=data.get("prompt_id"),
        prompt_version=data.get("prompt_version"),
        estimated_prompt_tokens=data.get("estimated_prompt_tokens"),
        ttft_ms=data.get("ttft_ms"),
        offline=bool(data.get("offline", False)),
        prefix_hash=data.get("prefix_hash"),
        section_hashes=data.get("section_hashes") if isinstance(data.get("section_hashes"), dict) else None,
    )


def record_text(record: Path) -> str | None:
    """The result text of a refine or polish record (`refine_record`'s `result.text`); None when there is no
    record or it holds no text. A record that is not JSON raises FormatError."""
    if not record.is_file():
        return None
    data = read_json(record)
    result = data.get("result") if isinstance(data, dict) else None
    text = result.get("text") if isinstance(result, dict) else None
    return text if isinstance(text, str) else None


def refine_record(pass_index: int, source: str, text: str, result: RefineResult, edits: list[Any]) -> dict[str, Any]:
    return {
        "pass": pass_index,
        "source": source,
        "draft": text,
        "edits": [e.model_dump(mode="json") for e in edits],
        "decisions": [d.model_dump(mode="json") for d in result.decisions],
        "result": result.model_dump(mode="json"),
    }


def prune_empty_dirs(root: Path) -> None:
    """Remove empty folders under `root` (not `root` itself)."""
    if not root.is_dir():
        return
    for folder in sorted((p for p in root.rglob("*") if p.is_dir()), key=lambda p: len(p.parts), reverse=True):
        try:
            folder.rmdir()
        except OSError:
            pass


def staged_chapters(paths: ProjectPaths) -> set[int]:
    """Chapter numbers that have any file in staging (for leftover cleanup)."""
    import re

    found: set[int] = set()
    pattern = re.compile(r"chapter-(\d+)")
    if not paths.staging.is_dir():
        return found
    for path in paths.staging.rglob("*"):
        if path.is_file():
            m = pattern.search(path.name)
            if m:
                found.add(int(m.group(1)))
    return found


def remove_tree(path: Path) -> None:
    shutil.rmtree(path, ignore_errors=True)
