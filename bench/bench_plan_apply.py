"""Speed of the volume-plan path after the model's reply (issue 7 item 3): parse + checks by code, staging, and
the journaled apply, on the sample novel, for plans of several lengths.

`python bench/bench_plan_apply.py [--lengths 5,30,60] [--repeat 3]` prints figures only (median ms and the
apply's write points). The replies are the offline PlotArchitect's (the outline, then the contracts in batches
of `CONTRACT_BATCH`), built directly (the offline provider's simulated streaming is left out: it is not part of
the path being measured); "check ms" is every check of the whole plan (`final_check`, chaining included).
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pipeline.planning.offline_replies import contracts_reply, plot_reply  # noqa: E402
from pipeline.planning.plan_volume import CONTRACT_BATCH, final_check, plan_request  # noqa: E402
from pipeline.planning.prompt_context import PlanTarget, contracts_data  # noqa: E402
from studio import fileio  # noqa: E402
from studio.config import load_settings  # noqa: E402
from studio.init_project import init_project  # noqa: E402
from studio.models.contract import ChapterContract  # noqa: E402
from studio.models.volume_plan import VolumePlanReply  # noqa: E402
from studio.planning.staged import apply_staged_plan, stage_plan  # noqa: E402
from studio.project import Project  # noqa: E402


def one(work: Path, length: int) -> tuple[float, float, float, int]:
    root = init_project(work / "novel", sample=True)
    project = Project.open(root)
    target = PlanTarget(2, 11, 10 + length)
    text = json.dumps(plot_reply(plan_request(project, load_settings(root), target).context), ensure_ascii=False)
    plan = VolumePlanReply.parse_data(json.loads(text)).to_plan(target.volume, target.first, target.last)
    rules = [r.id for r in project.world_rules.rules]
    numbers = list(plan.chapters())
    contracts = [
        ChapterContract.parse_data(c)
        for i in range(0, len(numbers), CONTRACT_BATCH)
        for c in contracts_reply(contracts_data(plan, numbers[i : i + CONTRACT_BATCH], rules))["chapter_contracts"]
    ]
    t0 = time.perf_counter()
    checked, report = final_check(project, plan.model_copy(update={"contracts": contracts}))
    t1 = time.perf_counter()
    if not report.ok:
        raise SystemExit(f"the offline plan failed its checks: {report.error_lines('en')}")
    stage_plan(project.paths, checked)
    t2 = time.perf_counter()
    before = fileio.write_count()
    apply_staged_plan(project.paths, 2)
    t3 = time.perf_counter()
    shutil.rmtree(work / "novel")
    return (t1 - t0) * 1000, (t2 - t1) * 1000, (t3 - t2) * 1000, fileio.write_count() - before


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lengths", default="5,30,60")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    print(f"{'chapters':>8} {'check ms':>9} {'stage ms':>9} {'apply ms':>9} {'writes':>7}")
    with tempfile.TemporaryDirectory() as tmp:
        for length in (int(x) for x in args.lengths.split(",")):
            runs = [one(Path(tmp), length) for _ in range(max(1, args.repeat))]
            med = [statistics.median(r[i] for r in runs) for i in range(3)]
            print(f"{length:>8} {med[0]:>9.1f} {med[1]:>9.1f} {med[2]:>9.1f} {runs[0][3]:>7}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
