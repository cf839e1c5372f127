"""Tool mode figures (issue 7 item 6): the cost of a CharacterWeaver call, and how long a rename takes.

`python bench/bench_tools.py [--chapters 50,300] [--repeat 3]` prints figures only:

- (a) `character add` on the sample novel: the model, the request's estimated input tokens, its output budget,
  the estimate shown before the call (an upper bound: the whole budget) and the cost of a reply the size of
  the offline one, at `pipeline.providers.cost.DEFAULT_PRICES`.
- (b) `character rename lin-feng 林风 --new-slug lin-feng-2` on synthetic projects (`bench/synth.py`) of each
  size: building the change (reading the project, the diff and the affected chapters), applying it (journaled),
  the files it changes, the write points, and the committed chapters that still use the old name. Medians.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from synth import generate_project  # noqa: E402

from pipeline.agents.runner import request_text  # noqa: E402
from pipeline.planning.character_tool import estimate_weaver_cost, weaver_request  # noqa: E402
from pipeline.planning.offline_replies import character_reply  # noqa: E402
from pipeline.providers.base import Usage  # noqa: E402
from pipeline.providers.cost import cost_usd, price_for, settings_prices  # noqa: E402
from pipeline.tokens import estimate_tokens  # noqa: E402
from studio import fileio  # noqa: E402
from studio.config import load_settings  # noqa: E402
from studio.init_project import init_project  # noqa: E402
from studio.paths import ProjectPaths  # noqa: E402
from studio.project import Project  # noqa: E402
from studio.tools.characters import rename_character  # noqa: E402
from studio.tools.txn import apply_changes  # noqa: E402


def weaver_figures(work: Path) -> None:
    import json

    root = init_project(work / "sample", sample=True)
    settings = load_settings(root)
    request = weaver_request(Project.open(root), settings, "add", name="周衡", role="反派", brief="守灯司的叛徒")
    tokens_in = estimate_tokens(request_text(request))
    reply = json.dumps(character_reply(request.context), ensure_ascii=False)
    tokens_out = estimate_tokens(reply)
    price = price_for(request.model, settings_prices(settings))
    typical = cost_usd(Usage(input_tokens=tokens_in, output_tokens=tokens_out), price) or 0.0
    print("(a) character add: one CharacterWeaver call")
    print(f"  model {request.model}  input ~{tokens_in} tokens  output budget {request.max_tokens}")
    print(f"  estimate shown first (upper bound) ${estimate_weaver_cost(request, settings, offline=False):.4f}")
    print(f"  with a reply the size of the offline one (~{tokens_out} tokens) ${typical:.4f}")


def rename_once(work: Path, chapters: int) -> tuple[float, float, int, int, int]:
    root = work / f"synth-{chapters}"
    paths = ProjectPaths(root)
    started = time.perf_counter()
    plan = rename_character(paths, "lin-feng", "林风", new_slug="lin-feng-2")
    built = (time.perf_counter() - started) * 1000
    files = len(plan.changes.changes())
    mentions = len(plan.data["old_name_in_committed_chapters"])
    before = fileio.write_count()
    started = time.perf_counter()
    apply_changes(plan.changes, command=plan.command, summary=plan.title)
    applied = (time.perf_counter() - started) * 1000
    return built, applied, files, fileio.write_count() - before, mentions


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--chapters", default="50,300")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-tools-") as tmp:
        work = Path(tmp)
        weaver_figures(work)
        print("(b) character rename with a new id, on synthetic projects")
        print(f"  {'chapters':>8} {'build ms':>9} {'apply ms':>9} {'files':>6} {'writes':>7} {'old-name chapters':>18}")
        for chapters in (int(x) for x in args.chapters.split(",")):
            pristine = work / f"pristine-{chapters}"
            generate_project(pristine, chapters)
            runs = []
            for _ in range(max(1, args.repeat)):
                target = work / f"synth-{chapters}"
                shutil.rmtree(target, ignore_errors=True)
                shutil.copytree(pristine, target)
                runs.append(rename_once(work, chapters))
            built = statistics.median(r[0] for r in runs)
            applied = statistics.median(r[1] for r in runs)
            _, _, files, writes, mentions = runs[0]
            print(f"  {chapters:>8} {built:>9.1f} {applied:>9.1f} {files:>6} {writes:>7} {mentions:>18}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
