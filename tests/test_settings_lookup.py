"""Per-agent settings (`Settings.model_for`, `.max_tokens_for`: one lookup) and the one TOML parser of the settings
files (`studio.config.parse_toml`, used by `read_toml` and by the watcher when the author saves settings)."""

from __future__ import annotations

from pathlib import Path

import pytest

from studio.config import parse_toml
from studio.errors import FormatError
from studio.models.settings import HAIKU, Settings


def test_an_agents_model_and_budget_and_an_unknown_agent() -> None:
    settings = Settings.model_validate({"models": {"summarizer": HAIKU, "note": 3}, "max_tokens": {"summarizer": 900}})
    assert settings.model_for("summarizer") == HAIKU and settings.max_tokens_for("summarizer") == 900
    for lookup in (settings.model_for, settings.max_tokens_for):
        with pytest.raises(KeyError, match="unknown agent 'nobody'"):
            lookup("nobody")
    with pytest.raises(KeyError):
        settings.model_for("note")  # an extra key of another kind is no agent


def test_a_toml_syntax_error_names_the_file_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "novel-studio.toml"
    assert parse_toml("[writing]\nchapter_min_chars = 3000\n", path) == {"writing": {"chapter_min_chars": 3000}}
    with pytest.raises(FormatError) as caught:
        parse_toml("[writing]\nchapter_min_chars = = 3\n", path)
    problem = caught.value.problems[0]
    assert problem.path == path and problem.line == 2 and problem.column is not None
    assert problem.reason.startswith("invalid TOML: ") and "(at line" not in problem.reason
