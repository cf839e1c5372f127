"""Shared fixtures. Nothing here touches the network or needs an API key.

Parallel runs (`pytest -n 2 --dist loadgroup`, as `make test` does): tests that kill processes or race for the
project lock (every test in SERIAL_FILES, and any test marked `serial`) go to one xdist group, so they run one
after another on one worker and stay deterministic on a loaded machine. A fault-injection sweep whose forked
children kill themselves at a write point (`NOVEL_STUDIO_FAULT_WRITE`), each in its own folder, neither races nor
times anything: it is not `serial`, and a long one is split into shards that spread over the workers.

`no_offline_delay`: the offline provider streams without its 10 ms pause per 20 characters, for tests whose
subject is not the streaming pace (`pytestmark = pytest.mark.usefixtures("no_offline_delay")`).
"""

from __future__ import annotations

import os
import signal
import tempfile
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import pytest

from pipeline.agents.runner import ModelAgents
from pipeline.providers.anthropic_provider import AnthropicProvider, ProviderConfig
from pipeline.providers.base import Provider
from studio.init_project import init_project
from studio.models.settings import Settings
from studio.project import Project
from tests.fakeapi import FakeMessagesAPI
from tests.worker_exit import pytest_sessionfinish  # noqa: F401  (a hook: xdist workers ignore execnet's late SIGINT)

SERIAL_FILES = frozenset({"test_crash_safety.py", "test_lock.py"})


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not config.pluginmanager.hasplugin("xdist"):
        return  # a plain run is serial anyway
    for item in items:
        if item.path.name in SERIAL_FILES or item.get_closest_marker("serial") is not None:
            item.add_marker(pytest.mark.xdist_group("serial"))


@pytest.fixture(autouse=True, scope="session")
def _temp_under_basetemp(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Temp folders made by code under test (mkdtemp in the demo, the snapshot apps, subprocesses) land in
    pytest's own base temp folder, which pytest rotates, instead of piling up in the system temp folder."""
    folder = tmp_path_factory.mktemp("systemp", numbered=False)
    saved_env, saved_dir = os.environ.get("TMPDIR"), tempfile.tempdir
    os.environ["TMPDIR"] = str(folder)
    tempfile.tempdir = str(folder)
    yield
    tempfile.tempdir = saved_dir
    if saved_env is None:
        os.environ.pop("TMPDIR", None)
    else:
        os.environ["TMPDIR"] = saved_env


@pytest.fixture(autouse=True)
def _isolated_env(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """No test reads the developer's own settings or key."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / ".cache"))
    for name in list(os.environ):
        if name.startswith("NOVEL_STUDIO_") or name == "ANTHROPIC_API_KEY":
            monkeypatch.delenv(name, raising=False)
    yield


@pytest.fixture(autouse=True)
def _sigint_restored() -> Iterator[None]:
    """Code under test may change the process's SIGINT handler for good (`launch_studio` ignores SIGINT once
    the app has quit, for the rest of the process): each test leaves the handler as it found it."""
    saved = signal.getsignal(signal.SIGINT)
    yield
    signal.signal(signal.SIGINT, saved)


@pytest.fixture
def no_offline_delay(monkeypatch: pytest.MonkeyPatch) -> None:
    """The offline provider built by `build_provider` (every CLI command, and any subprocess that inherits the
    environment) streams with no pause between its deltas."""
    from pipeline.providers.factory import OFFLINE_DELAY_ENV

    monkeypatch.setenv(OFFLINE_DELAY_ENV, "0")


@pytest.fixture
def project_dir(tmp_path: Path) -> Path:
    return tmp_path / "novel"


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    """A fresh copy of the sample novel (modules that need another kind of sample define their own)."""
    root = tmp_path / "novel"
    init_project(root, sample=True)
    return root


@pytest.fixture
async def api_agents(project: Project) -> AsyncIterator[tuple[FakeMessagesAPI, ModelAgents]]:
    """The real agents over the real SDK against the loopback fake Messages API, on the requesting module's
    `project` fixture, with default settings."""
    with FakeMessagesAPI() as api:
        provider = AnthropicProvider(
            ProviderConfig(base_url=api.base_url, env={"ANTHROPIC_API_KEY": "test-key"}, max_retries=0)
        )
        try:
            yield api, ModelAgents(project, Settings(), provider)
        finally:
            await provider.aclose()


class ProviderSeam:
    """What the `provider_factory` fixture put in `studio.cli.provider_seam`: `make` builds each provider
    (an `OfflineProvider` unless a test sets another), `built` records `(root, offline)` per provider."""

    def __init__(self) -> None:
        from pipeline.providers.offline import OfflineProvider

        self.make: Callable[[], Provider] = OfflineProvider
        self.built: list[tuple[Path, bool]] = []

    def __call__(self, root: Path, settings: Settings, offline: bool) -> Provider:
        self.built.append((root, offline))
        return self.make()


@pytest.fixture
def provider_factory(monkeypatch: pytest.MonkeyPatch) -> ProviderSeam:
    """Every CLI command that calls the model gets its provider from this seam (no key needed)."""
    from studio.cli import provider_seam

    seam = ProviderSeam()
    monkeypatch.setattr(provider_seam, "FACTORY", seam)
    return seam
