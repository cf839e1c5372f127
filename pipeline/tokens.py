"""A tokenizer-free estimate of prompt size, for budgets and the offline provider's usage figures.

Heuristic (documented, deliberately conservative): seed 002 section 8.4 counts a chapter of ~3,000 Chinese
characters as ~4.5K tokens, so every CJK character (Han ideographs, CJK and full-width punctuation, kana,
hangul) counts 1.5 tokens; any other run of text counts one token per 4 characters (English-like BPE),
whitespace excluded. The result is rounded up. It is an estimate, never billed: usage built from it is
marked `estimated=True`.
"""

from __future__ import annotations

import math
import re

CJK_TOKENS_PER_CHAR = 1.5
OTHER_CHARS_PER_TOKEN = 4.0

_CJK = re.compile(
    "[\u2e80-\u2fff\u3000-\u303f\u3040-\u30ff\u3100-\u31ff\u3400-\u4dbf\u4e00-\u9fff"
    "\uac00-\ud7af\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef\U00020000-\U0003ffff]"
)
_SPACE = re.compile(r"\s+")


def estimate_tokens(text: str) -> int:
    """Estimated token count of `text` (0 for the empty string)."""
    if not text:
        return 0
    visible = _SPACE.sub("", text)
    cjk = len(_CJK.findall(visible))
    other = len(visible) - cjk
    return math.ceil(cjk * CJK_TOKENS_PER_CHAR + other / OTHER_CHARS_PER_TOKEN)
