"""Chapter numbers as authors write them: `123`, `１２３`, `一百二十三`, `一千零一`, `两百`, `一〇一`, `壹佰`.

Rules:
- Arabic digits, ASCII or full-width (any Unicode decimal digit), are read as they stand.
- Chinese numerals are read in two forms: with units (十 百 千 万, also 拾 佰 仟 and 两 for 二) where 零/〇 only
  mark a skipped place (`一千零一` = 1001, `十二` = 12, `两百` = 200), and digit by digit without units
  (`一〇一` = 101, `二零二三` = 2023).
- Anything else (empty, a unit before nothing it can multiply such as `百百`, digits mixed with units such as
  `1百`) is not a number: `parse_number` answers None and the caller does not take the line for a heading.
"""

from __future__ import annotations

DIGITS: dict[str, int] = {
    "零": 0, "〇": 0, "○": 0, "０": 0,
    "一": 1, "壹": 1, "二": 2, "贰": 2, "貳": 2, "两": 2, "兩": 2, "三": 3, "叁": 3, "參": 3,
    "四": 4, "肆": 4, "五": 5, "伍": 5, "六": 6, "陆": 6, "陸": 6, "七": 7, "柒": 7,
    "八": 8, "捌": 8, "九": 9, "玖": 9,
}
UNITS: dict[str, int] = {"十": 10, "拾": 10, "百": 100, "佰": 100, "千": 1000, "仟": 1000}
BIG_UNITS: dict[str, int] = {"万": 10_000, "萬": 10_000}

# Every character a Chinese numeral may use (for the heading patterns).
CHINESE_NUMERAL_CHARS = "".join(DIGITS) + "".join(UNITS) + "".join(BIG_UNITS)


def parse_number(text: str) -> int | None:
    """The value of a chapter number written in digits or Chinese numerals; None when it is not one."""
    text = text.strip()
    if not text:
        return None
    if all(ch.isdecimal() for ch in text):
        return int(text)  # int() reads every Unicode decimal digit, full-width ones included
    if any(ch not in DIGITS and ch not in UNITS and ch not in BIG_UNITS for ch in text):
        return None
    if not any(ch in UNITS or ch in BIG_UNITS for ch in text):
        return int("".join(str(DIGITS[ch]) for ch in text))  # 一〇一 = 101
    return _with_units(text)


def _with_units(text: str) -> int | None:
    total = 0  # the value of the finished 万 groups
    section = 0  # the value below 万 so far
    digit: int | None = None  # a digit waiting for its unit
    last_unit = 10 ** 9  # units within a section must fall: 千 > 百 > 十
    for ch in text:
        if ch in DIGITS:
            if digit is not None and digit != 0 and DIGITS[ch] != 0:
                return None  # two digits in a row without a unit: 一二百
            digit = DIGITS[ch]
        elif ch in UNITS:
            unit = UNITS[ch]
            if unit >= last_unit:
                return None
            if digit is None:
                digit = 1  # 十二 = 12, 一百十 = 110
            if digit == 0:
                return None  # 零百
            section += digit * unit
            last_unit = unit
            digit = None
        else:  # 万
            if digit:
                section += digit
            if section == 0:
                return None
            total += section * BIG_UNITS[ch]
            section, digit, last_unit = 0, None, 10 ** 9
    if digit:
        section += digit
    value = total + section
    return value if value > 0 else None
