"""Run the orchestrator with fake agents in a subprocess that SIGKILLs itself at a named step.

Usage: python tests/crash_runner.py PROJECT CHAPTERS
Environment: NOVEL_STUDIO_TEST_KILL_AT   a step name (draft, summary, refine, judge, polish, revise-start,
                                         commit:prepared, commit:<step>); empty: never kill itself
             NOVEL_STUDIO_TEST_KILL_CHAPTER  only kill while on this chapter (default: any)
             NOVEL_STUDIO_TEST_DELAY     seconds the fake agents sleep between pieces (for random kills)
             NOVEL_STUDIO_TEST_SCORES    "3:3.2,4.2;4:3.7" judge scores per chapter
Prints "ready" once imports are done, so a parent can time a kill from the start of the real work.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pipeline.decisions import take_recommended  # noqa: E402
from pipeline.orchestrator import Orchestrator  # noqa: E402
from studio.models.settings import Settings  # noqa: E402
from studio.paths import ProjectPaths  # noqa: E402
from tests.fake_agents import FakeAgents  # noqa: E402


def parse_scores(text: str) -> dict[int, list[float]]:
    out: dict[int, list[float]] = {}
    for part in filter(None, text.split(";")):
        chapter, values = part.split(":")
        out[int(chapter)] = [float(v) for v in values.split(",")]
    return out


def main() -> int:
    root = Path(sys.argv[1])
    chapters = int(sys.argv[2])
    kill_at = os.environ.get("NOVEL_STUDIO_TEST_KILL_AT", "")
    kill_chapter = os.environ.get("NOVEL_STUDIO_TEST_KILL_CHAPTER", "")
    delay = float(os.environ.get("NOVEL_STUDIO_TEST_DELAY", "0") or 0)
    scores = parse_scores(os.environ.get("NOVEL_STUDIO_TEST_SCORES", ""))
    agents = FakeAgents(ProjectPaths(root), scores=scores, delay=delay)

    def hook(step: str) -> None:
        if step != kill_at:
            return
        if kill_chapter:
            current = agents.log[-1][1] if agents.log else None
            from studio.models.checkpoint import Checkpoint

            cp = Checkpoint.load_or_default(ProjectPaths(root).checkpoint)
            chapter = cp.inflight_chapter or current
            if str(chapter) != kill_chapter:
                return
        os.kill(os.getpid(), signal.SIGKILL)

    orch = Orchestrator(root, agents, decider=take_recommended, emit=lambda e: None, settings=Settings(),
                        step_hook=hook)
    print("ready", flush=True)
    result = asyncio.run(orch.run(chapters))
    return result.exit_code


if __name__ == "__main__":
    sys.exit(main())
