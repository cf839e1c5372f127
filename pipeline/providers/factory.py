"""The one place a provider is built from the settings: for the studio, `continue`, `rebuild` and any caller.

`build_provider(settings, project_root, offline=...)`:
- offline when asked (`--offline`) or when the preset is an offline one (`[provider] preset = "offline"`);
- else the Anthropic(-compatible) provider: base URL from the settings, else from the preset;
- always wrapped in `LedgerProvider`, so every call is booked in the project's spend ledger.
`is_offline(settings, offline)` answers the first question alone (the CLI asks it before building).
The offline provider's pace, seconds between its text deltas: `NOVEL_STUDIO_OFFLINE_DELAY` when set (the
real-pty tests and benches set it per process), else `[provider] offline_delay_s` of the settings (default 0.01; a
realistic demo: 0.03-0.05).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from pipeline.providers.base import Provider, SdkRetryListener
from pipeline.providers.cost import settings_prices
from pipeline.providers.ledger import LedgerProvider
from pipeline.providers.presets import PRESETS
from studio.models.settings import Settings
from studio.models.settings import is_offline as is_offline  # its home; the CLI imports it from here
from studio.paths import ProjectPaths

OFFLINE_DELAY_ENV = "NOVEL_STUDIO_OFFLINE_DELAY"


def offline_delay(env: Mapping[str, str], setting: float = 0.01) -> float:
    """Seconds between the offline provider's deltas: `NOVEL_STUDIO_OFFLINE_DELAY` when set to a number in
    0..10, else the `[provider] offline_delay_s` setting (default 0.01)."""
    fallback = setting
    try:
        value = float(env.get(OFFLINE_DELAY_ENV, "") or fallback)
    except ValueError:
        return fallback
    return value if 0 <= value <= 10 else fallback


def base_provider(
    settings: Settings,
    *,
    offline: bool = False,
    env: Mapping[str, str] | None = None,
    on_sdk_retry: SdkRetryListener | None = None,
) -> Provider:
    """The provider without the ledger (tests and tools that must not book anything). `on_sdk_retry` is told
    of each wait the SDK makes before retrying inside one call (a 429's `retry-after`)."""
    if is_offline(settings, offline):
        from pipeline.providers.offline import OfflineProvider

        return OfflineProvider(
            delay_s=offline_delay(os.environ if env is None else env, settings.provider.offline_delay_s)
        )
    from pipeline.providers.anthropic_provider import AnthropicProvider, ProviderConfig

    p = settings.provider
    preset = PRESETS.get(p.preset)
    return AnthropicProvider(
        ProviderConfig(
            base_url=p.base_url or (preset.base_url if preset is not None else None),
            api_key_env=p.api_key_env,
            timeout_s=p.timeout_s,
            max_retries=p.max_retries,
            proxy=p.proxy,
            env=os.environ if env is None else env,
            name=p.preset,
        ),
        on_sdk_retry=on_sdk_retry,
    )


def build_provider(
    settings: Settings,
    project_root: Path,
    *,
    offline: bool = False,
    env: Mapping[str, str] | None = None,
    on_sdk_retry: SdkRetryListener | None = None,
) -> LedgerProvider:
    """The provider for a project: offline or real per `is_offline`, booking every call in its ledger."""
    inner = base_provider(settings, offline=offline, env=env, on_sdk_retry=on_sdk_retry)
    return LedgerProvider(inner, ProjectPaths(Path(project_root)).spend_ledger, settings_prices(settings))
