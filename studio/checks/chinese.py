"""Character-level Chinese helpers for the checks: homophones (pypinyin), look-alike characters, and the jieba
dictionary (no download: jieba ships it).

- Homophones are toneless (an IME typo ignores tone); every reading of the name's character counts, a
  candidate character only under its main reading; candidates are limited to the 6,763
  GB2312 characters (what an IME offers first). A surname at the start of a person's name reads as the surname
  (`SURNAME_READINGS`: 曾 zeng, 单 shan, ...), not as its other readings.
- `LOOKALIKES` is a hand-made table of characters often confused by shape.
- `is_word` asks jieba's bundled dictionary; `crosses_word(text, start, end)` tells whether a dictionary word of
  the surrounding text straddles `start` or `end` (so 林峰 inside 树林峰顶 is not a name), segmenting without the
  HMM so only real dictionary words can straddle.

jieba and pypinyin are imported on first use, not with this module: together they take about half a second to
import, and the checks after a commit need them only for text they have not seen (see `studio.checks.variants`).
"""

from __future__ import annotations

import logging
import unicodedata
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

import platformdirs

if TYPE_CHECKING:
    import jieba


def _jieba() -> jieba.Tokenizer:
    """jieba's tokenizer, its dictionary loaded; the parsed dictionary is cached in novel-studio's user cache
    (never in the author's folder)."""
    import jieba

    if not jieba.dt.initialized:
        jieba.setLogLevel(logging.WARNING)
        cache = Path(platformdirs.user_cache_dir("novel-studio"))
        try:
            cache.mkdir(parents=True, exist_ok=True)
            jieba.dt.tmp_dir = str(cache)
        except OSError:
            pass  # no cache folder: jieba falls back to the system temp folder
        jieba.dt.check_initialized()
    return jieba.dt


SURNAME_READINGS: dict[str, str] = {
    "曾": "zeng",
    "单": "shan",
    "解": "xie",
    "仇": "qiu",
    "朴": "piao",
    "覃": "qin",
    "区": "ou",
    "查": "zha",
    "盖": "ge",
    "乐": "yue",
    "尉": "yu",
    "员": "yun",
    "缪": "miao",
    "种": "chong",
    "翟": "zhai",
    "任": "ren",
}

_LOOKALIKE_GROUPS = (
    "己已巳",
    "未末",
    "戊戌戍",
    "士土",
    "日曰",
    "人入八",
    "大太犬",
    "王玉主",
    "白百自",
    "千干于",
    "天夭夫",
    "今令",
    "苍仓",
    "折拆析",
    "竞竟",
    "候侯",
    "拔拨",
    "佳隹",
    "晴睛清情请",
    "秒妙",
    "栗粟",
    "莱菜",
    "刺剌",
    "瑜愉榆",
    "婉惋腕碗",
    "峰锋烽蜂",
    "枫讽",
    "明朋",
    "宛苑",
    "辨辩瓣",
    "鸟乌",
    "兔免",
    "凤风",
    "雪雷",
    "薇微徽",
    "萧肃",
    "林材",
    "霖森",
    "云去",
    "冰水",
    "羽习",
    "宸辰",
    "瑶摇遥谣",
    "琪棋旗淇",
    "璃离漓",
    "婷亭停",
    "轩杆",
    "哲晢",
    "浩皓",
    "瀚翰",
    "逸免",
    "凌陵菱",
    "柳抑",
    "晨是",
    "莹萤荧营",
    "锦绵",
)
LOOKALIKES: dict[str, frozenset[str]] = {}
for _group in _LOOKALIKE_GROUPS:
    for _ch in _group:
        LOOKALIKES[_ch] = LOOKALIKES.get(_ch, frozenset()) | frozenset(c for c in _group if c != _ch)


def _toneless(reading: str) -> str:
    base = "".join(c for c in unicodedata.normalize("NFD", reading) if not unicodedata.combining(c))
    return base.replace("ü", "v")


@lru_cache(maxsize=1)
def _by_reading() -> dict[str, frozenset[str]]:
    from pypinyin.pinyin_dict import pinyin_dict

    out: dict[str, set[str]] = {}
    for codepoint, readings in pinyin_dict.items():
        ch = chr(codepoint)
        try:
            ch.encode("gb2312")
        except UnicodeEncodeError:
            continue
        # a candidate is offered under its main reading only (方 is fang, not its rare feng)
        out.setdefault(_toneless(readings.split(",")[0].strip()), set()).add(ch)
    return {k: frozenset(v) for k, v in out.items()}


@lru_cache(maxsize=4096)
def readings(ch: str, *, surname: bool = False) -> tuple[str, ...]:
    if surname and ch in SURNAME_READINGS:
        return (SURNAME_READINGS[ch],)
    from pypinyin import Style, pinyin

    found = pinyin(ch, style=Style.NORMAL, heteronym=True, errors="ignore")
    return tuple(dict.fromkeys(found[0])) if found else ()


@lru_cache(maxsize=4096)
def homophones(ch: str, *, surname: bool = False) -> frozenset[str]:
    """Common characters read like `ch` (tone ignored), `ch` itself excluded."""
    table = _by_reading()
    out: set[str] = set()
    for reading in readings(ch, surname=surname):
        out |= table.get(reading, frozenset())
    out.discard(ch)
    return frozenset(out)


def lookalikes(ch: str) -> frozenset[str]:
    return LOOKALIKES.get(ch, frozenset())


def word_freq(text: str) -> int:
    """The frequency jieba's bundled dictionary gives `text` (0: not listed)."""
    return int(_jieba().FREQ.get(text) or 0)


def is_word(text: str) -> bool:
    """Whether jieba's bundled dictionary lists `text` as a word."""
    return bool(_jieba().FREQ.get(text))  # get_FREQ alone answers None until the dictionary is loaded


def crosses_word(text: str, start: int, end: int, window: int = 6) -> bool:
    """Whether a dictionary word of `text` around [start, end) straddles `start` or `end`."""
    lo = max(0, start - window)
    hi = min(len(text), end + window)
    pos = lo
    for token in _jieba().cut(text[lo:hi], HMM=False):
        t_start, t_end = pos, pos + len(token)
        pos = t_end
        if t_start < start < t_end or t_start < end < t_end:
            return True
    return False
