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


def read_toml(path: Path) -> dict[str, Any]:
    """Parse a TOML file; a syntax error is reported with the file, line and column."""
    path = Path(path)
    try:
        text = read_text(path)
    except OSError as exc:
        raise FormatError([Problem(path, f"cannot read: {exc.strerror or exc}")]) from None
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
        raise FormatError([Problem(path, f"invalid TOML: {message}", line=line, column=col,
                                   zh=f"不是有效的 TOML（tomllib：{message.strip()}）")]) from None
