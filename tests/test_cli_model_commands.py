"""What the commands that call the model share (`studio.cli.common.cold_start_refused`,
`studio.cli.provider_seam.no_key_text`): one wording and one refusal rule for `extract`, `review`, `plan`,
`start`, `continue` and `rebuild`."""

from __future__ import annotations

import asyncio
from pathlib import Path

from pipeline.decisions import take_recommended
from pipeline.importing.extract import run_extraction
from pipeline.providers.factory import build_provider
from studio.cli.common import cold_start_refused
from studio.cli.provider_seam import no_key_text
from studio.coldstart import EXTRACTION_KEYS
from studio.config import load_settings
from studio.models.settings import Settings
from studio.paths import ProjectPaths
from tests.import_extract_helpers import imported_project


def test_the_missing_key_text_names_the_variable_in_both_languages() -> None:
    settings = Settings.model_validate({"provider": {"api_key_env": "DEEPSEEK_API_KEY"}})
    assert "export DEEPSEEK_API_KEY=你的密钥" in no_key_text(settings, "zh") and "--offline" in no_key_text(settings, "zh")
    assert no_key_text(settings, "en").startswith("No API key: the environment variable DEEPSEEK_API_KEY is not set")


def test_a_refusal_the_command_resolves_itself_lets_it_go_on(tmp_path: Path) -> None:
    root = imported_project(tmp_path / "book", 3)
    paths = ProjectPaths(root)
    assert cold_start_refused(paths, "zh") == ([], "")  # imported, not extracted: a note, nothing refuses
    settings = load_settings(root)
    provider = build_provider(settings, root, offline=True)
    asyncio.run(run_extraction(root, settings, provider, take_recommended, lambda e: None, last=1, offline=True))
    keys, findings = cold_start_refused(paths, "en")
    assert keys == ["extraction_unfinished"] and findings.startswith("- ") and "\n" not in findings
    assert cold_start_refused(paths, "en", allowed=EXTRACTION_KEYS) == ([], "")  # what `extract` resolves
