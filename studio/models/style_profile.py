"""`style-profile.json`: the style fingerprint injected into ChapterWriter and StyleRefiner (seed 000 5.6 and
section 7, seed 001 9.2).

Every field is optional with an empty default, so a preset template (few fields filled) and a profile the
analyzer has not finished validate alike. `source_type` is None when the file does not say where the
profile came from (the seed 001 example omits it).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from studio.models.base import FileModel


class StyleProfile(FileModel):
    avg_sentence_length: float | None = Field(default=None, gt=0)  # characters per sentence
    # 字数 inside quotes / 字数 of the body, 0..1: the one definition, studio.checks.metrics.dialogue_ratio
    dialogue_ratio: float | None = Field(default=None, ge=0, le=1)
    rhetoric_preferences: list[str] = Field(default_factory=list)
    forbidden_words: list[str] = Field(default_factory=list)
    character_speech_patterns: dict[str, Any] = Field(
        default_factory=dict
    )  # character -> habit (text usually)
    writing_directives: list[str] = Field(default_factory=list)  # positive instructions injected verbatim
    source_type: Literal["original", "reference", "template"] | None = None
    reference_author: str | None = None  # reference mode: whose public chapters were analysed
