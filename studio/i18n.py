"""Chinese by default, English on request.

Each area keeps its own catalog next to its code: `MESSAGES = {"key": ("中文 {x}", "English {x}")}`,
and renders with `tr(MESSAGES, "key", lang, x=...)`. One function, no global registry to collide on. A text
about a number of things has an English singular beside it, `"key_one"`, that `tr_count` picks when the number is 1.
"""

from __future__ import annotations

import os
from typing import Literal

Lang = Literal["zh", "en"]
LANGS: tuple[Lang, ...] = ("zh", "en")
DEFAULT_LANG: Lang = "zh"

Catalog = dict[str, tuple[str, str]]


def normalize_lang(value: str | None) -> Lang | None:
    """'zh', 'zh_CN.UTF-8', 'en-US' ... -> 'zh' / 'en'; anything else -> None."""
    if not value:
        return None
    head = value.strip().lower().replace("-", "_").split("_")[0].split(".")[0]
    if head == "zh":
        return "zh"
    if head == "en":
        return "en"
    return None


def env_lang() -> Lang | None:
    return normalize_lang(os.environ.get("NOVEL_STUDIO_LANG"))


def tr(catalog: Catalog, key: str, lang: Lang, /, **kwargs: object) -> str:
    zh, en = catalog[key]
    template = zh if lang == "zh" else en
    return template.format(**kwargs) if kwargs else template


def tr_count(catalog: Catalog, key: str, lang: Lang, count: int, /, **kwargs: object) -> str:
    """`tr` for a text about `count` things: English has a singular, the catalog's `key + "_one"`, used when
    `count` is 1 (Chinese has no plural, so its text is the same in both entries). The template takes its
    numbers from `kwargs` (formatted as the caller wants, `12,918`), `count` only picks the form."""
    if lang == "en" and count == 1 and f"{key}_one" in catalog:
        key = f"{key}_one"
    return tr(catalog, key, lang, **kwargs)
