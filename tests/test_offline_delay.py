"""The offline provider's pace is a setting: `[provider] offline_delay_s` (a realistic demo) and
`NOVEL_STUDIO_OFFLINE_DELAY` (pty tests, benches; it wins)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.providers.factory import base_provider, offline_delay
from pipeline.providers.offline import OfflineProvider
from studio.config import load_settings
from studio.errors import StudioError
from studio.init_project import init_project
from studio.models.settings import Settings


@pytest.mark.parametrize(("value", "delay"), [(None, 0.01), ("0", 0.0), ("0.2", 0.2), ("fast", 0.01), ("-1", 0.01)])
def test_offline_delay(value: str | None, delay: float) -> None:
    env = {} if value is None else {"NOVEL_STUDIO_OFFLINE_DELAY": value}
    assert offline_delay(env) == delay
    provider = base_provider(Settings(), offline=True, env=env)
    assert isinstance(provider, OfflineProvider) and provider.delay_s == delay


def test_offline_delay_from_the_settings_file(tmp_path: Path) -> None:
    """`[provider] offline_delay_s` in novel-studio.toml sets the pace; the environment variable still wins."""
    root = init_project(tmp_path / "novel")
    toml = root / "novel-studio.toml"
    toml.write_text(toml.read_text(encoding="utf-8") + "\n[provider]\noffline_delay_s = 0.04\n", encoding="utf-8")
    settings = load_settings(root)
    assert settings.provider.offline_delay_s == 0.04
    provider = base_provider(settings, offline=True, env={})
    assert isinstance(provider, OfflineProvider) and provider.delay_s == 0.04
    assert offline_delay({"NOVEL_STUDIO_OFFLINE_DELAY": "0.2"}, 0.04) == 0.2
    assert offline_delay({"NOVEL_STUDIO_OFFLINE_DELAY": "fast"}, 0.04) == 0.04


def test_offline_delay_setting_out_of_range_is_a_clear_error(tmp_path: Path) -> None:
    root = init_project(tmp_path / "novel")
    (root / "novel-studio.toml").write_text("[provider]\noffline_delay_s = -1\n", encoding="utf-8")
    with pytest.raises(StudioError) as caught:
        load_settings(root)
    assert "offline_delay_s" in str(caught.value)


def test_the_template_documents_the_setting() -> None:
    template = Path(__file__).resolve().parents[1] / "templates" / "project" / "novel-studio.toml"
    assert "# offline_delay_s = " in template.read_text(encoding="utf-8")
