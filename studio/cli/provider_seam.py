"""The one place a CLI command that calls the model gets its provider, and the one test seam for it.

`review`, `plan`, `extract`, `start`, the tool commands (`studio.cli.tool_run`) and the agents of `continue` and
`rebuild` (`continue_cmd.default_agents`; their tests may inject whole agents there instead) call `build(root, settings,
offline)`: the provider `pipeline.providers.factory.build_provider` makes (offline or real, booking every call in
the spend ledger), or what `FACTORY` returns when a test set it (`(root, settings, offline) -> Provider`; the
`provider_factory` fixture of tests/conftest.py). `missing_key` says whether a real call would lack its API key,
never with a test factory (it needs no key); `no_key_text` is what the commands then say (one wording for all).

The pipeline is imported only when a provider is built, so importing this module loads no pipeline code
(`status` must not load it: tests/test_cli_lazy.py).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from studio.i18n import Catalog, Lang, tr

if TYPE_CHECKING:
    from pipeline.providers.base import Provider, SdkRetryListener
    from studio.models.settings import Settings

ProviderFactory = Callable[[Path, "Settings", bool], "Provider"]

FACTORY: ProviderFactory | None = None  # tests only: replaces the real construction for every command

MESSAGES: Catalog = {
    "no_key": (
        "没有找到 API 密钥：环境变量 {env} 未设置。请先执行 export {env}=你的密钥，或使用 --offline 离线演示",
        "No API key: the environment variable {env} is not set. Run `export {env}=<your key>` first, "
        "or use --offline for the demo",
    ),
}


def missing_key(settings: Settings, offline: bool) -> bool:
    """True when a real (not offline, not test-injected) provider would need a key the environment lacks."""
    return not offline and FACTORY is None and settings.api_key(os.environ) is None


def no_key_text(settings: Settings, lang: Lang) -> str:
    """What a command says when `missing_key` is true: the variable to set, or `--offline`."""
    return tr(MESSAGES, "no_key", lang, env=settings.provider.api_key_env)


def build(root: Path, settings: Settings, offline: bool, *, on_sdk_retry: SdkRetryListener | None = None) -> Provider:
    """The provider of a command run on `root` (the test factory when one is set; `on_sdk_retry` hears the
    SDK's own retries of a real provider, as `continue` prints them)."""
    if FACTORY is not None:
        return FACTORY(root, settings, offline)
    from pipeline.providers.factory import build_provider

    return build_provider(settings, root, offline=offline, on_sdk_retry=on_sdk_retry)


__all__ = ["FACTORY", "MESSAGES", "ProviderFactory", "build", "missing_key", "no_key_text"]
