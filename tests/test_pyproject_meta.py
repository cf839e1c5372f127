"""pyproject's [project] metadata in the forms setuptools keeps supporting (issue 11 item 20)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

PYPROJECT = Path(__file__).resolve().parent.parent / "pyproject.toml"


def test_license_is_an_spdx_string_with_a_setuptools_that_reads_it() -> None:
    data = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))
    assert data["project"]["license"] == "MIT"  # the table form is deprecated (deadline 2027-02-18)
    requires = data["build-system"]["requires"]
    setuptools = next(r for r in requires if r.startswith("setuptools"))
    m = re.match(r"setuptools>=(\d+)", setuptools)
    assert m is not None and int(m.group(1)) >= 77  # PEP 639 license expressions need setuptools 77
