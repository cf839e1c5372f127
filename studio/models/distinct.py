"""One check shared by the models of the model's replies (import survey, quick start, CharacterWeaver): the
values of one field must be distinct.

Raised as `ValueError` inside a pydantic validator, so it becomes a validation error that the repair loop
(`pipeline.structured.call_structured`) sends back to the model; the text names the field and lists its
values: `"<what> must be distinct: [...]"` (English, like every reply-validation message the model reads).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence


def require_distinct(what: str, values: Sequence[Hashable]) -> None:
    """Raise ValueError when a value of `values` repeats; `what` names them ("character ids")."""
    if len(values) != len(set(values)):
        raise ValueError(f"{what} must be distinct: {list(values)}")


__all__ = ["require_distinct"]
