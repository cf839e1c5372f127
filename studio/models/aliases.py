"""The two ways a model reads another writer's names for its fields and values (the reference plugin's shapes, a
model's looser words), one definition each for the validators of `studio.models`.

- `renamed(data, field, aliases)`: a `mode="before"` model validator's step. When the input is a dict without
  `field`, the first key of `aliases` it holds is read as `field` (a copy is made, the input is never changed);
  with `only=str` an alias counts only when its value is a string. Anything else passes through unchanged, so
  pydantic reports it at its own path. The file is written back under `field`.
- `lowered(value, aliases)`: a `mode="before"` field validator's step for a closed set of words: a string is
  stripped and lower-cased, then mapped through `aliases` (a word that is no alias stays as it is, for the
  field's `Literal` to accept or refuse); anything that is not a string passes through.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["lowered", "renamed"]


def renamed(data: Any, field: str, aliases: Sequence[str], *, only: type | None = None) -> Any:
    """`data` with the first alias present read as `field` (see the module rules)."""
    if not isinstance(data, dict) or field in data:
        return data
    key = next((k for k in aliases if k in data and (only is None or isinstance(data[k], only))), None)
    if key is None:
        return data
    data = dict(data)
    data[field] = data.pop(key)
    return data


def lowered(value: Any, aliases: Mapping[str, str] | None = None) -> Any:
    """A string stripped, lower-cased and mapped through `aliases`; anything else as it is."""
    if not isinstance(value, str):
        return value
    value = value.strip().lower()
    return aliases.get(value, value) if aliases else value
