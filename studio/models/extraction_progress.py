"""`.novel-studio/extraction.json`: the steps of an import's full depth that are done once per book, and how the
last extraction run ended (issue 10 items 3-4). Written by `pipeline.importing.extract`; read by the cold-start
check and `status`.

Rules:
- The chapters themselves are tracked by `ImportRecord.extracted_through` (`.novel-studio/import.json`); this
  file holds only the once-per-book passes: the cast pass (`survey_done`, `survey_chapters`: the chapters the
  model read for it) and the style pass (`style_done`, `style_chapters`); `late_cast_through` is the chapter
  through which the late cast pass (characters the Summarizer met after the opening chapters) last looked.
- `status` is the last run's end: `running` while a run works (a kill leaves it so: the next run resumes),
  `stopped` (the cost cap or the author stopped it between chapters; the progress is kept), `done` (the run
  reached its `target`), `failed` (a model or file error; the progress is kept, a rerun resumes).
- `target` is the last chapter the latest run was asked for (`extract --to M`); a later `extract` goes on
  from `extracted_through + 1`.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from studio.models.base import FileModel

# The path is defined with the other pending-work paths (studio.pending).
from studio.pending import extraction_progress_path as extraction_progress_path

EXTRACTION_PROGRESS_VERSION = 1

ExtractionStatus = Literal["running", "stopped", "done", "failed"]


class ExtractionProgress(FileModel):
    version: int = EXTRACTION_PROGRESS_VERSION
    status: ExtractionStatus = "running"
    target: int = Field(default=0, ge=0)
    survey_done: bool = False
    survey_chapters: list[int] = Field(default_factory=list)
    style_done: bool = False
    style_chapters: list[int] = Field(default_factory=list)
    late_cast_through: int = Field(default=0, ge=0)  # the chapter through which the late cast pass last looked
    updated_at: str = ""
