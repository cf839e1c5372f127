"""The Summarizer's structure tags of a chapter (issue 8 item 11): names and vocabularies, dependency-free so the
reply model in `pipeline.replies` and the structure check (`studio.checks.structure`) share them.

A tag outside its vocabulary is kept as written (the model may find a better word); `normalise_tag` is the one
way both sides read a tag.
"""

from __future__ import annotations

from typing import Any

FUNCTIONS: tuple[str, ...] = ("setup", "escalation", "payoff", "reversal", "transition", "breather", "climax")
HOOKS: tuple[str, ...] = ("cliffhanger", "mystery", "threat", "reveal", "promise", "emotional", "none")
BEATS: tuple[str, ...] = (
    "tension", "relief", "triumph", "loss", "warmth", "fear", "anger", "suspense", "humor",
)
GOAL_PROGRESS: tuple[str, ...] = ("advanced", "setback", "none")
TAGS: tuple[str, ...] = ("chapter_function", "hook_type", "emotional_beat", "goal_progress")


def normalise_tag(value: Any) -> str | None:
    """A tag as the checks compare it: stripped, lower-case for the vocabularies' ASCII words; None when empty
    or not text."""
    if not isinstance(value, str) or not value.strip():
        return None
    text = value.strip()
    return text.lower() if text.isascii() else text
