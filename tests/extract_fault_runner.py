"""Kill an offline extraction of an imported book at every write point and resume it (tests/test_import_extract_kill.py).

Usage: python tests/extract_fault_runner.py PRISTINE WORKDIR [FIRST_WRITE [LAST_WRITE]] [--shard=K/N]
(`--shard`: only the write points equal to K modulo N, as in tests/fault_runner.py's `selected`)

Imports once, then forks a child per run (`tests.fault_runner.forked`): a warm-up run fills the caches outside
the project; a reference run extracts PRISTINE's copy whole and records its write points (the kept replies and
staged passes among them); then for every write point N a child runs a fresh copy with
`NOVEL_STUDIO_FAULT_WRITE=N` (SIGKILL there), another child resumes it without a fault, and the project is
compared with the reference: the same bytes in every compared file, the author's chapters untouched, nothing left
in staging, no temp file, no lock, and in the spend ledger no chapter's Summarizer (nor a once-per-book pass)
paid twice, except when the kill hit the one write that keeps that paid result (module rules of
`pipeline.importing.extract`). Prints one JSON line: {"writes": W, "checked": [...], "failures": [...]}.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import signal
import sys
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pipeline.decisions import take_recommended  # noqa: E402
from pipeline.importing import extract  # noqa: E402
from pipeline.providers.cost import settings_prices  # noqa: E402
from pipeline.providers.ledger import LedgerProvider  # noqa: E402
from pipeline.providers.offline import OfflineProvider  # noqa: E402
from studio import fileio, state_engine  # noqa: E402
from studio.config import load_settings  # noqa: E402
from studio.models.import_record import ImportRecord  # noqa: E402
from studio.paths import ProjectPaths  # noqa: E402
from studio.spend_ledger import read_spend  # noqa: E402
from tests.fault_runner import FROZEN, forked, leftovers, selected, tree_bytes  # noqa: E402

COMPARED = ("chapters", "summaries", "storylines", "foreshadowing", "state", "characters", "world",
            "style-profile.json", "volumes", "import")
KEEPS = "keeps.json"  # the reference run's write points that keep a paid result: {write: "stage:chapter"}


def run_extraction(root: Path, keeps: dict[int, str] | None = None) -> int:
    """One extraction run of the whole book (offline replies with no streaming delay, booked in the ledger)."""
    state_engine._now = lambda: FROZEN  # the only clock in the compared files
    if keeps is not None:
        original = extract.atomic_write_json

        def recording(path: Path, data: Any, **kwargs: Any) -> None:
            name = Path(path).name
            if name.endswith("-reply.json"):
                keeps[fileio.write_count() + 1] = f"{extract.SUMMARY_STAGE}:{int(name[8:11])}"
            elif Path(path).parent.name == "import" and name in ("survey.json", "style.json"):
                keeps[fileio.write_count() + 1] = {"survey.json": "import-cast", "style.json": "style"}[name] + ":"
            original(path, data, **kwargs)

        extract.atomic_write_json = recording
    settings = load_settings(root)
    provider = LedgerProvider(OfflineProvider(delay_s=0), ProjectPaths(root).spend_ledger, settings_prices(settings))
    result = asyncio.run(extract.run_extraction(root, settings, provider, take_recommended, offline=True,
                                                confirmed=True))
    return result.exit_code


def paid(root: Path) -> Counter[str]:
    entries, _ = read_spend(ProjectPaths(root).spend_ledger)
    return Counter(f"{e.stage}:{e.chapter if e.stage == extract.SUMMARY_STAGE else ''}" for e in entries
                   if e.ok and e.stage in (extract.SUMMARY_STAGE, "import-cast", "style"))


def check_one(pristine: Path, work: Path, n: int, expected: dict[str, bytes], keeps: dict[int, str]) -> str | None:
    root = work / f"kill-{n}"
    shutil.copytree(pristine, root)
    killed = forked(lambda: run_extraction(root), n)
    if killed != -signal.SIGKILL:
        return f"write {n}: the faulty run ended with {killed}, not SIGKILL"
    resumed = forked(lambda: run_extraction(root), None)
    if resumed != 0:
        return f"write {n}: the resumed run exited {resumed}"
    got = tree_bytes(root, COMPARED)
    differ = sorted(k for k in expected.keys() | got.keys() if expected.get(k) != got.get(k))
    if differ:
        return f"write {n}: files differ from the uninterrupted run: {differ}"
    record = ImportRecord.load(ProjectPaths(root).import_record)
    if record.extracted_through != record.last_chapter:
        return f"write {n}: extracted through {record.extracted_through} of {record.last_chapter}"
    twice = {key: count for key, count in paid(root).items() if count > 1 and keeps.get(n) != key}
    if twice:
        return f"write {n}: paid twice: {twice}"
    left = leftovers(root)
    if left:
        return f"write {n}: left behind {left}"
    shutil.rmtree(root)
    return None


def main() -> int:
    pristine, work = Path(sys.argv[1]), Path(sys.argv[2])
    warmup = work / "warmup"
    shutil.copytree(pristine, warmup)
    forked(lambda: run_extraction(warmup), None)
    shutil.rmtree(warmup)
    reference = work / "reference"
    shutil.copytree(pristine, reference)
    count_file = work / "writes.txt"
    keeps_file = work / KEEPS

    def recorded() -> int:
        keeps: dict[int, str] = {}
        code = run_extraction(reference, keeps)
        keeps_file.write_text(json.dumps(keeps), encoding="utf-8")
        return code

    if forked(recorded, None, count_file) != 0:
        print(json.dumps({"writes": 0, "checked": [], "failures": ["the uninterrupted run failed"]}))
        return 1
    writes = int(count_file.read_text())
    keeps = {int(k): str(v) for k, v in json.loads(keeps_file.read_text("utf-8")).items()}
    if sorted(set(paid(reference).values())) != [1]:
        print(json.dumps({"writes": writes, "checked": [], "failures": ["the reference run paid twice"]}))
        return 1
    expected = tree_bytes(reference, COMPARED)
    checked: list[int] = []
    failures: list[str] = []
    for n in selected(writes, sys.argv[3:]):
        problem = check_one(pristine, work, n, expected, keeps)
        checked.append(n)
        if problem:
            failures.append(problem)
    print(json.dumps({"writes": writes, "checked": checked, "failures": failures, "keeps": sorted(keeps)},
                     ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
