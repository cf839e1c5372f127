"""Anthropic-compatible endpoints the author can pick by name: a view of the one preset registry.

The registry itself is `studio.models.settings.PRESETS` (the settings validate `provider.preset` against it);
this module only re-exports it with the lookups the provider code uses.
"""

from __future__ import annotations

from studio.models.settings import PRESETS, Preset

__all__ = ["PRESETS", "Preset", "preset_base_url"]


def preset_base_url(name: str) -> str | None:
    """The base URL of a preset (None: the SDK default); KeyError names the known presets."""
    try:
        return PRESETS[name].base_url
    except KeyError:
        raise KeyError(f"unknown provider preset {name!r}; known: {', '.join(PRESETS)}") from None
