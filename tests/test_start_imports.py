"""What the studio imports before its first frame (issue 12, "Fast start"): structural guards, not timed tests.

The studio is started as the author starts it (`novel-studio --project DIR`, with and without `--offline`) on a
real pseudo-terminal; a child (tests/start_imports_child.py) lists `sys.modules` when the main screen's first
frame with the outline is written, and ends there. A module-level import that brings back a module the first
frame does not need (the provider's SDK, a dialog, a flow run on a key) fails here by name.

Also: a standard input that gives no keys is refused before Textual (or the App) is imported.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from pipeline.providers.offline import OfflineProvider
from studio.models.settings import Settings
from studio.tui.app import OFFLINE_PROVIDER_NAME, NovelStudioApp
from tests.pty_term import PtyTerm
from tests.serve_client import serve_env

ROOT = Path(__file__).resolve().parent.parent

# Never loaded before the first paint, offline or not: what a run, a dialog, a key's flow or a check needs.
NOT_BEFORE_FIRST_PAINT = (
    # the provider: built at its first use (a run, a rebuild), not to name it in the header; nor its package
    # (`pipeline.providers.base`, the prices, the presets, the retry): the events and the planning runner name
    # its types in annotations only (stop 15: `pipeline.events` and `screens.plan_runner` loaded it)
    "anthropic", "httpx", "httpx2", "pipeline.providers", "pipeline.tokens", "pipeline.refine_edits",
    "studio.checks.matcher", "ahocorasick", "jieba", "rapidfuzz",
    # the pipeline's agents, orchestrator and estimates
    "pipeline.agents", "pipeline.orchestrator", "pipeline.estimate",
    # the dialogs and the flows started by a key
    "screens.decision_dialog", "screens.prompt_dialogs", "screens.help_screen", "studio.tui.hunks",
    "studio.tui.startup", "pipeline.prompts_registry", "studio.tui.review_flow", "studio.tui.editor",
    "studio.tui.volume_review_flow", "studio.search", "studio.models.quick_start",
)


def first_paint(root: Path, work: Path, *extra: str) -> dict[str, Any]:
    """What the child saw at the first paint: `modules` (sorted names) and `listings` (project folder -> count)."""
    out = work / "modules.json"
    env = serve_env(work, 0.0)
    term = PtyTerm.spawn([sys.executable, str(ROOT / "tests" / "start_imports_child.py"), str(out), str(root), *extra],
                         size=(160, 48), env=env)
    try:
        assert term.wait_until(out.is_file, timeout=120), term.text()
    finally:
        term.close()
    seen: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    return seen


def first_paint_modules(root: Path, work: Path, *extra: str) -> set[str]:
    return set(first_paint(root, work, *extra)["modules"])


@pytest.mark.parametrize("offline", [False, True], ids=["real provider, no key", "--offline"])
def test_the_first_paint_imports_no_provider_dialog_nor_flow(sample: Path, tmp_path: Path, offline: bool) -> None:
    """Before: the App built its provider to name it in the header, so a start without `--offline` imported the
    Anthropic SDK and httpx (about 3,000 modules) and `--offline` the offline provider (the tokenizer, the
    refine edits' matcher); the main screen imported every dialog and flow it opens on a key."""
    loaded = first_paint_modules(sample, tmp_path, *(["--offline"] if offline else []))
    assert "screens.main_screen" in loaded  # the child did reach the first paint of the main screen
    assert sorted(m for m in loaded if m.split(".")[0] in NOT_BEFORE_FIRST_PAINT or m in NOT_BEFORE_FIRST_PAINT
                  or any(m.startswith(f"{heavy}.") for heavy in NOT_BEFORE_FIRST_PAINT)) == []


def test_the_first_paint_lists_each_project_folder_once(sample: Path, tmp_path: Path) -> None:
    """Before: the chapters folder was listed twice before the first paint (the project's committed chapters,
    the outline's fresh listing) and a volume's contracts folder twice (its two name patterns); on a full
    `status` more. Every folder whose stamp is older than the racy window is listed once per process
    (`studio.paths.numbered_files`)."""
    for chapter in range(4, 30):  # more chapters than the sample's: more places that list them
        (sample / "chapters" / f"chapter-{chapter:03d}.md").write_text(f"# 第{chapter}章 章\n\n正文。\n", encoding="utf-8")
    contracts = sample / "volumes" / "vol-01" / "chapter-contracts"
    contracts.mkdir(parents=True, exist_ok=True)
    (contracts / "chapter-099.md").write_text("# 契约\n", encoding="utf-8")
    past = time.time() - 3600  # older than `LISTING_RACY_NS`: a folder changed just now is listed again, rightly
    for folder in [sample, *(p for p in sample.rglob("*") if p.is_dir())]:
        os.utime(folder, (past, past))
    listings = first_paint(sample, tmp_path, "--offline")["listings"]
    assert "chapters" in listings and any(folder.endswith("chapter-contracts") for folder in listings), listings
    assert {folder: n for folder, n in listings.items() if n > 1} == {}


def test_a_stdin_without_keys_is_refused_before_textual_is_imported(sample: Path) -> None:
    """Before: the CLI imported the App (Textual, the screens, the models) and only then refused /dev/null."""
    code = (
        "import json, sys\n"
        "from studio.cli.main import main\n"
        f"status = main(['--project', {str(sample)!r}, '--offline', '--lang', 'en'])\n"
        "print(json.dumps([status, sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'screens'))]))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "TEXTUAL_DRIVER"}
    done = subprocess.run([sys.executable, "-c", code], stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          cwd=ROOT, env=env, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    status, textual = json.loads(done.stdout.strip().splitlines()[-1])
    assert status == 1
    assert "needs a terminal" in done.stderr and "null device" in done.stderr, done.stderr
    assert textual == []


def test_the_offline_name_matches_the_provider() -> None:
    """The App names the offline provider without importing it: the same name as `OfflineProvider.name`. (The
    offline rule itself has one home, `studio.models.settings.is_offline`, that the App and the factory share.)"""
    assert OFFLINE_PROVIDER_NAME == OfflineProvider.name


@pytest.mark.parametrize("offline", [False, True])
def test_the_provider_name_is_the_same_before_and_after_the_provider_is_built(tmp_path: Path, offline: bool) -> None:
    app = NovelStudioApp(tmp_path, offline=offline)
    app.settings = Settings()
    before = app.provider_name
    _ = app.provider  # built now (the SDK's client is created, no call made)
    assert app.provider_name == before
