"""The layers hold: the headless modules load no Textual, and every domain module is under a contract.

`lint-imports` (in `make test`) checks the import-linter contracts of pyproject.toml; these tests check what
it cannot: that the CLI's headless commands really run without Textual in the process, and that a new domain
module cannot slip past the domain contract by not being listed.
"""

from __future__ import annotations

import json
import pkgutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pipeline
import studio

ROOT = Path(__file__).resolve().parent.parent
UI_PARTS = {"tui", "cli"}


def _modules(package: object) -> list[str]:
    path = package.__path__  # type: ignore[attr-defined]
    prefix = package.__name__ + "."  # type: ignore[attr-defined]
    return sorted(info.name for info in pkgutil.walk_packages(path, prefix))


def headless_modules() -> list[str]:
    """The domain, the pipeline and the CLI's commands except the two that open the studio (main, serve)."""
    out = []
    for name in _modules(studio) + _modules(pipeline):
        parts = name.split(".")
        if parts[0] == "studio" and len(parts) > 1 and parts[1] == "tui":
            continue
        if name in {"studio.cli.serve_cmd"}:
            continue
        out.append(name)
    return out


def test_headless_modules_load_no_textual() -> None:
    modules = headless_modules()
    assert "studio.cli.main" in modules and "pipeline.orchestrator" in modules
    code = (
        "import importlib, json, sys\n"
        f"for name in {modules!r}:\n"
        "    importlib.import_module(name)\n"
        "print(json.dumps(sorted(m for m in sys.modules if m == 'textual' or m.startswith('textual.'))))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == [], "Textual was imported by a headless module"


def test_every_domain_module_is_under_the_domain_contract() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    domain = next(c for c in contracts if c["name"].startswith("The domain"))
    listed = set(domain["source_modules"])
    top_level = {
        f"studio.{info.name}"
        for info in pkgutil.iter_modules(studio.__path__)
        if info.name not in UI_PARTS
    }
    assert top_level - listed == set(), "add the new domain module to the domain contract in pyproject.toml"
