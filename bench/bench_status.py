"""How long `status` takes on a 500-chapter project, cold (no cache) and warm, and how much memory.

    python bench/bench_status.py [--chapters 500] [--runs 5] [--keep DIR]

Prints figures only (no asserts): generation time, median wall time of in-process Project.open +
build_status + render_status cold and warm, median wall time of `python -m studio.cli.main status` as a
subprocess (warm), and the peak resident memory of this process.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from synth import generate_project  # noqa: E402

from studio.project import Project  # noqa: E402
from studio.status import build_status, cache_folder, render_status  # noqa: E402


def _status_once(root: Path) -> float:
    start = time.perf_counter()
    render_status(build_status(Project.open(root)), "zh")
    return time.perf_counter() - start


def _peak_mb(who: int = resource.RUSAGE_SELF) -> float:
    peak = resource.getrusage(who).ru_maxrss
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024  # bytes on macOS, KiB on Linux


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chapters", type=int, default=500)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--keep", type=Path, help="generate into this folder and keep it")
    args = parser.parse_args(argv)

    tmp = None if args.keep else tempfile.mkdtemp(prefix="novel-studio-bench-")
    root = args.keep or Path(tmp or ".") / "novel"
    try:
        start = time.perf_counter()
        generate_project(root, args.chapters)
        gen = time.perf_counter() - start
        size = sum(f.stat().st_size for f in root.rglob("*") if f.is_file())
        print(f"project: {args.chapters} chapters, {size / 1e6:.1f} MB, generated in {gen:.2f} s")

        cold: list[float] = []
        for _ in range(args.runs):
            shutil.rmtree(cache_folder(root), ignore_errors=True)
            cold.append(_status_once(root))
        warm = [_status_once(root) for _ in range(args.runs)]
        print(f"status in-process, cold (no cache): median {statistics.median(cold) * 1000:.0f} ms "
              f"(min {min(cold) * 1000:.0f}, max {max(cold) * 1000:.0f}, {args.runs} runs)")
        print(f"status in-process, warm (cache):    median {statistics.median(warm) * 1000:.0f} ms "
              f"(min {min(warm) * 1000:.0f}, max {max(warm) * 1000:.0f}, {args.runs} runs)")

        if (ROOT / "studio" / "cli" / "main.py").is_file():
            env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
            cmd = [sys.executable, "-m", "studio.cli.main", "status", "--project", str(root)]
            times: list[float] = []
            code = 0
            for _ in range(args.runs):
                start = time.perf_counter()
                code = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
                times.append(time.perf_counter() - start)
            print(f"status subprocess (python -m studio.cli.main status, warm): median "
                  f"{statistics.median(times) * 1000:.0f} ms (exit {code}, {args.runs} runs)")
            print(f"peak memory of a status subprocess (ru_maxrss, children): {_peak_mb(resource.RUSAGE_CHILDREN):.1f} MB")
        else:
            print("status subprocess: studio/cli/main.py not there, skipped")
        print(f"peak memory of this process (generation included, ru_maxrss): {_peak_mb():.1f} MB")
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
