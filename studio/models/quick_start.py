"""`.novel-studio/quick-start.json`: what the author chose for the quick start (issue 7 item 2), kept so that a
killed quick start resumes with the same choices, and shared by `novel-studio start` and the studio's new-novel
path (both build a `QuickStartRequest`; the one quick-start flow in `pipeline.planning.quick_start` reads it).

Rules:
- The brief itself lives in `brief.md` (see `studio.author_brief.brief_from_answers` for answers typed in a
  form or on the command line); this file holds only the choices the brief does not.
- `style_source` picks one of the four style paths of seed 000 §7 L1:
  `samples` (1-3 of the author's own chapters, `sample_paths`), `reference` (a reference author's name:
  directives only, never stored third-party prose), `preset` (one of `TONE_PRESETS`) or `write_then_extract`
  (the profile is taken from the trial chapters).
- `volume_length` is the number of chapters planned for volume 1 (the trial chapters 1-3 included).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from studio.i18n import Catalog
from studio.models.base import FileModel
from studio.models.validation_text import value_error

StyleSource = Literal["samples", "reference", "preset", "write_then_extract"]

TONE_PRESETS: tuple[str, ...] = ("轻松幽默", "热血少年", "细腻言情", "冷峻悬疑", "古典雅致", "现实质朴")
DEFAULT_VOLUME_LENGTH = 30
MAX_STYLE_SAMPLES = 3

MESSAGES: Catalog = {
    "samples": (
        "风格来源为 samples（自己的样本章节）时需要 1-{n} 个样本文件，现在是 {given} 个",
        "style_source 'samples' needs 1-{n} sample_paths, got {given}",
    ),
    "reference": (
        "风格来源为 reference（参考作者）时需要填写参考作者（reference_author）",
        "style_source 'reference' needs reference_author",
    ),
    "preset": (
        "风格来源为 preset（预置基调）时基调应为以下之一：{presets}（现在是“{given}”）",
        "style_source 'preset' needs one of {presets} (got {given!r})",
    ),
}


class QuickStartRequest(FileModel):
    """The author's quick-start choices (see the module rules)."""

    style_source: StyleSource = "write_then_extract"
    sample_paths: list[str] = Field(default_factory=list)
    reference_author: str = ""
    preset: str = ""
    volume_length: int = Field(default=DEFAULT_VOLUME_LENGTH, ge=3, le=500)

    @model_validator(mode="after")
    def _source_has_its_input(self) -> QuickStartRequest:
        if self.style_source == "samples" and not 1 <= len(self.sample_paths) <= MAX_STYLE_SAMPLES:
            raise value_error(MESSAGES, "samples", n=MAX_STYLE_SAMPLES, given=len(self.sample_paths))
        if self.style_source == "reference" and not self.reference_author.strip():
            raise value_error(MESSAGES, "reference")
        if self.style_source == "preset" and self.preset not in TONE_PRESETS:
            raise value_error(MESSAGES, "preset", presets="、".join(TONE_PRESETS), given=self.preset)
        return self
