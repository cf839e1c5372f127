"""Reading a TOML file with a clear message: a syntax error names the file, line and column (`FormatError`).

One home for it, importing no pydantic model: `studio.config` (the settings), `studio.project` (the title) and
`studio.prompt_pins` (the pins) read TOML through it, so that a `status` whose settings are recorded as valid
(`studio.validated_files.SettingsRecord`) never builds the settings' models.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

from studio.errors import FormatError, Problem
from studio.fileio import read_text

_TOML_POS = re.compile(r"\s*\(at line (\d+), column (\d+)\)\s*$")
_TOML_END = re.compile(r"\s*\(at end of document\)\s*$")

# What `tomllib` says about a broken file (Python 3.11-3.13), for the Chinese UI (`Problem.zh`); another message
# shows as it is. Keys and characters it quotes are kept.
_TOML_ZH: tuple[tuple[re.Pattern[str], str], ...] = tuple((re.compile(pattern), zh) for pattern, zh in (
    (r"^Invalid value$", "这里的值无效（字符串要加引号，布尔值写 true/false）"),
    (r"^Invalid statement$", "这一行无法解读（应为 键 = 值 或 [表名]）"),
    (r"^Expected '=' after a key in a key/value pair$", "键后面缺少等号 ="),
    (r"^Expected newline or end of document after a statement$", "一行只能写一项，这里多了内容"),
    (r"^Expected '\]' at the end of a table declaration$", "表名缺少结束的 ]"),
    (r"^Expected '\]\]' at the end of an array declaration$", "表数组名缺少结束的 ]]"),
    (r"^Expected (.+)$", r"这里应为 \1"),
    (r"^Cannot overwrite a value$", "同一个键写了两次"),
    (r"^Cannot declare (.+) twice$", r"表 \1 声明了两次"),
    (r"^Cannot mutate immutable namespace (.+)$", r"不能再修改 \1（它已整体写定）"),
    (r"^Cannot redefine namespace (.+)$", r"不能重新定义 \1"),
    (r"^Duplicate inline table key (.+)$", r"内联表里的键 \1 重复"),
    (r"^Unclosed array$", "数组缺少结束的 ]"),
    (r"^Unclosed inline table$", "内联表缺少结束的 }"),
    (r"^Unterminated string$", "字符串缺少结束的引号"),
    (r"^Unescaped '\\' in a string$", r"字符串里的 \\ 没有转义（写成 \\\\，或改用单引号）"),  # a template: \\ is one backslash
    (r"^Illegal character (.+)$", r"字符串里有不允许的字符 \1"),
    (r"^Found invalid character (.+)$", r"这里有无效的字符 \1"),
    (r"^Invalid initial character for a key part$", "键的开头字符无效（键名含其他字符时要加引号）"),
    (r"^Invalid date or datetime$", "日期或时间无效"),
    (r"^Invalid hex value$", "十六进制值无效"),
    (r"^Escaped character is not a Unicode scalar value$", "转义的字符不是有效的 Unicode 字符"),
))


def toml_message_zh(message: str) -> str:
    """A `tomllib` error message (its position removed) in Chinese; an unknown one as it is."""
    for pattern, zh in _TOML_ZH:
        if pattern.search(message):
            return pattern.sub(zh, message)
    return message


def read_toml(path: Path) -> dict[str, Any]:
    """Parse a TOML file; a syntax error is reported with the file, line and column."""
    path = Path(path)
    try:
        text = read_text(path)
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise FormatError([Problem(path, f"cannot read: {reason}", zh=f"无法读取（{reason}）")]) from None
    return parse_toml(text, path)


def parse_toml(text: str, path: Path) -> dict[str, Any]:
    """Parse the TOML `text` of `path`; a syntax error is a FormatError with the file, line and column."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        m = _TOML_POS.search(message)
        line = col = None
        if m:
            line, col = int(m.group(1)), int(m.group(2))
            message = message[: m.start()]
        elif end := _TOML_END.search(message):  # the file's last line: where the author has to look
            lines = text.split("\n")
            line, col = len(lines), len(lines[-1]) + 1
            message = message[: end.start()]
        message = message.strip()
        raise FormatError([Problem(path, f"invalid TOML: {message}", line=line, column=col,
                                   zh=f"不是有效的 TOML：{toml_message_zh(message)}")]) from None
