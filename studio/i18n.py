"""Chinese by default, English on request.

Each area keeps its own catalog next to its code: `MESSAGES = {"key": ("中文 {x}", "English {x}")}`,
and renders with `tr(MESSAGES, "key", lang, x=...)`. One function, no global registry to collide on. A text
about a number of things has an English singular beside it, `"key_one"`, that `tr_count` picks when the number is 1.

Character counts (字数) follow one rule per language, through `format_count` (the number) or `chars_text` (the
number with its unit), everywhere a count is shown:
- Chinese as Chinese web-novel sites show them: no thousands separator below 10,000 (`2747字`, as a chapter's
  字数), 万 with at most two decimals from 10,000 (`1.29万字`, `12.5万字`, `100万字`, as a book's); the unit
  follows the number without a space, so `2747字` and `1.29万字` read alike;
- English with a comma every three digits (`2,747 characters`, `12,918 characters`, `1 character`).

Token counts are abbreviated by `format_tokens` wherever a total is shown (the studio's header, `status`), and
the unit is the word `tokens` in both languages (`本次 12.3万 tokens`, `run 123.4k tokens`): Chinese 万/亿, English
k/M; below 10,000 the number as it is.
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


def format_count(n: int, lang: Lang, /) -> str:
    """A character count's number in `lang`: Chinese `2747` / `1.29万` (万 from 10,000, at most two decimals,
    trailing zeros dropped), English `2,747`."""
    if lang == "en":
        return f"{n:,}"
    if abs(n) < 10_000:
        return str(n)
    # Rounded down, never up: 99,999 字 is 9.99万, not 10万, so a count never shows more than was written.
    hundredths = int(n / 100)
    whole, frac = divmod(abs(hundredths), 100)
    sign = "-" if n < 0 else ""
    return f"{sign}{whole}.{frac:02d}".rstrip("0").rstrip(".") + "万" if frac else f"{sign}{whole}万"


def chars_text(n: int, lang: Lang, /) -> str:
    """A character count with its unit: `2747字`, `1.29万字`; `2,747 characters`, `1 character`."""
    if lang == "en":
        return f"{format_count(n, lang)} {'character' if n == 1 else 'characters'}"
    return f"{format_count(n, lang)}字"


def format_tokens(n: int, lang: Lang, /) -> str:
    """A token total, abbreviated: Chinese `9999`, `12.3万`, `1.23亿`; English `9999`, `123.4k`, `1.23M`."""
    if n < 10_000:
        return str(n)
    if lang == "zh":
        return f"{n / 10_000:.1f}万" if n < 100_000_000 else f"{n / 100_000_000:.2f}亿"
    return f"{n / 1000:.1f}k" if n < 1_000_000 else f"{n / 1_000_000:.2f}M"
