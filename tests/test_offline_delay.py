"""The offline provider's pace is a setting: `NOVEL_STUDIO_OFFLINE_DELAY` (for demos, pty tests, benches)."""

from __future__ import annotations

import pytest

from pipeline.providers.factory import base_provider, offline_delay
from pipeline.providers.offline import OfflineProvider
from studio.models.settings import Settings


@pytest.mark.parametrize(("value", "delay"), [(None, 0.01), ("0", 0.0), ("0.2", 0.2), ("fast", 0.01), ("-1", 0.01)])
def test_offline_delay(value: str | None, delay: float) -> None:
    env = {} if value is None else {"NOVEL_STUDIO_OFFLINE_DELAY": value}
    assert offline_delay(env) == delay
    provider = base_provider(Settings(), offline=True, env=env)
    assert isinstance(provider, OfflineProvider) and provider.delay_s == delay
