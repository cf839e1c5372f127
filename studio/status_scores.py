"""The scores part of `status` (average, evaluated chapters, the last few scores), from the stat-keyed
evaluation cache (`StatCache`, file `EVALUATION_CACHE`), without importing pydantic unless an evaluation
must be read.

Rules:
- the evaluations are the files of `evaluations/` named `EVALUATION_FILE` (`chapter-NNN-eval.json`), by chapter;
- a file whose (size, mtime_ns) the cache holds gives its cached score: {"overall": float, "recommendation":
  str | None, "force_passed": bool} (`score_value` checks the shape: a value of another shape is not believed
  and the file is read again);
- any other file is validated with the `Evaluation` model (imported then, and only then), and its score kept:
  the judge's own `overall` is recorded but not trusted, the weighted mean (`computed_overall`) counts;
- a file that cannot be stat'ed, read or validated gives no score and is reported through `on_problem`;
- the commit keeps the score of the evaluation it has just moved into place (`record_score`, same rules: the
  final file's stat taken before it is validated), so a re-judged chapter costs `status` no model.
`studio.status.build_status` (the full report) and `rescore` (`status`'s light path, when only chapter text and
evaluations changed since the last full run: `studio.status_memo`'s layout key) share `score_rows`.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from studio.errors import FormatError
from studio.paths import EVALUATION_FILE, numbered_files
from studio.stat_cache import StatCache, stat_files
from studio.status_memo import cache_file

EVALUATION_CACHE = "evaluations.json"  # in `cache_file(root, name)`
RECENT_SCORES = 5

ScoreSink = Callable[[Path, OSError | FormatError], None]
ScoreReader = Callable[[int, Path], Any]  # chapter n's Evaluation (None: no file), e.g. `Project.evaluation`


def evaluation_files(root: Path) -> dict[int, Path]:
    """The evaluation files of the project at `root`, by chapter (a listing: nothing is opened)."""
    return numbered_files(Path(root) / "evaluations", EVALUATION_FILE)


def load_evaluation(n: int, path: Path) -> Any:
    """Chapter `n`'s evaluation at `path`, validated (None: not a regular file). Imports the model here: a run
    whose scores are all cached never builds it."""
    from studio.models.evaluation import Evaluation

    return Evaluation.load(path) if path.is_file() else None


def _enum_text(value: object) -> str | None:
    if value is None:
        return None
    return str(getattr(value, "value", value))


def score_value(value: object) -> dict[str, Any] | None:
    """A cached score in its one shape (see the module rules), or None when `value` is not one."""
    if not isinstance(value, dict) or set(value) != {"overall", "recommendation", "force_passed"}:
        return None
    overall, recommendation, forced = value["overall"], value["recommendation"], value["force_passed"]
    if isinstance(overall, bool) or not isinstance(overall, (int, float)):
        return None
    if recommendation is not None and not isinstance(recommendation, str):
        return None
    if not isinstance(forced, bool):
        return None
    return {"overall": float(overall), "recommendation": recommendation, "force_passed": forced}


def score_of(evaluation: Any) -> dict[str, Any]:
    """The cached score of a validated `Evaluation` (see the module rules)."""
    return {
        "overall": float(evaluation.computed_overall()),
        "recommendation": _enum_text(evaluation.recommendation),
        "force_passed": bool(evaluation.force_passed),
    }


def record_score(root: Path, path: Path) -> bool:
    """Validate the evaluation file at `path` (of the project at `root`) and keep its score in the cache under
    the stat it had before it was read, as `score_rows` would: the commit calls this right after it moved a
    chapter's evaluation into place, so the next `status` (and the scores pane) reads no evaluation and builds
    no model for it. Nothing is kept when the file changes while it is read; a file that cannot be read or
    validated is left to `score_rows` to report. True: kept."""
    try:
        st = os.stat(path)
        value = score_of(load_evaluation(0, path))
        after = os.stat(path)
    except (OSError, FormatError):
        return False
    if (after.st_size, after.st_mtime_ns, after.st_ino) != (st.st_size, st.st_mtime_ns, st.st_ino):
        return False
    cache = StatCache(cache_file(root, EVALUATION_CACHE))
    cache.new.update(cache.old)  # a record, not a walk: every other chapter's entry stays
    cache.put(path.name, st, value)
    cache.save()
    return True


def score_rows(
    files: Mapping[int, Path], cache_path: Path, on_problem: ScoreSink, read: ScoreReader = load_evaluation
) -> list[dict[str, Any]]:
    """Every scored chapter's {"chapter", "overall", "recommendation", "force_passed"}, by chapter (see the
    module rules), refreshing the cache at `cache_path`."""
    cache = StatCache(cache_path)
    rows: list[dict[str, Any]] = []
    for n, path, st in stat_files(files, on_problem):
        value = score_value(cache.get(path.name, st))
        if value is None:
            try:
                ev = read(n, path)
            except (FormatError, OSError) as exc:
                on_problem(path, exc)
                continue
            if ev is None:
                continue
            value = score_of(ev)
            cache.put(path.name, st, value)
        rows.append({"chapter": n, **value})
    cache.save()
    return rows


def score_summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The report's fields of the scores: `average_score` (None without any), `evaluated_chapters`,
    `recent_scores` (the last `RECENT_SCORES`)."""
    if not rows:
        return {"average_score": None, "evaluated_chapters": 0, "recent_scores": []}
    average = round(sum(r["overall"] for r in rows) / len(rows), 2)
    return {"average_score": average, "evaluated_chapters": len(rows), "recent_scores": rows[-RECENT_SCORES:]}


def rescore(root: Path) -> dict[str, Any] | None:
    """The scores fields of the project at `root` (`score_summary`); None when any evaluation has a problem
    (the full report says what it is)."""
    problems: list[Path] = []
    rows = score_rows(evaluation_files(root), cache_file(root, EVALUATION_CACHE),
                      lambda path, exc: problems.append(path))
    return None if problems else score_summary(rows)
