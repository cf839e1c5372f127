"""One provider seam for the CLI commands that call the model (`studio.cli.provider_seam`): a test factory
replaces the real construction for every one of them, and without it a missing key is the usual clear error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipeline.providers.ledger import LedgerProvider
from studio.cli import provider_seam
from studio.cli.main import main
from studio.models.settings import Settings
from tests.conftest import ProviderSeam


@pytest.fixture(autouse=True)
def _no_key(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("ANTHROPIC_API_KEY", "NOVEL_STUDIO_API_KEY_ENV", "NOVEL_STUDIO_PROVIDER", "NOVEL_STUDIO_BASE_URL"):
        monkeypatch.delenv(name, raising=False)


def test_without_a_factory_the_real_provider_and_the_key_check(tmp_path: Path) -> None:
    settings = Settings()
    assert provider_seam.FACTORY is None
    assert provider_seam.missing_key(settings, offline=False)
    assert not provider_seam.missing_key(settings, offline=True)
    assert isinstance(provider_seam.build(tmp_path, settings, True), LedgerProvider)  # books every call


def test_a_factory_needs_no_key_and_builds_every_provider(tmp_path: Path, provider_factory: ProviderSeam) -> None:
    settings = Settings()
    assert not provider_seam.missing_key(settings, offline=False)
    provider_seam.build(tmp_path, settings, False)
    assert provider_factory.built == [(tmp_path, False)]


def _add_character(sample: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, object]]:
    code = main(["character", "add", "周衡", "--role", "反派", "--yes", "--json", "--project", str(sample)])
    return code, json.loads(capsys.readouterr().out)


def test_a_tool_command_takes_the_seams_provider(
    sample: Path, capsys: pytest.CaptureFixture[str], provider_factory: ProviderSeam
) -> None:
    code, data = _add_character(sample, capsys)
    assert code == 0 and data["applied"] is True
    assert provider_factory.built == [(sample, False)]  # not offline: the test's provider, no key asked for


def test_without_the_seam_a_missing_key_is_refused(sample: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, data = _add_character(sample, capsys)
    assert code == 1 and "ANTHROPIC_API_KEY" in str(data)


def test_continue_takes_the_seams_provider(
    sample: Path, capsys: pytest.CaptureFixture[str], provider_factory: ProviderSeam
) -> None:
    assert main(["continue", "1", "--yes", "--project", str(sample)]) == 0
    assert provider_factory.built == [(sample, False)]
    assert (sample / "chapters" / "chapter-003.md").is_file()
