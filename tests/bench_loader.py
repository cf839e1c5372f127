"""Loads a script of bench/ as a module (bench/ is not a package), for the benchmark smoke tests."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

BENCH = Path(__file__).resolve().parent.parent / "bench"


def load_bench(name: str) -> ModuleType:
    """bench/`name`.py, imported as `novel_studio_bench_<name>` (registered in sys.modules)."""
    spec = importlib.util.spec_from_file_location(f"novel_studio_bench_{name}", BENCH / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module
