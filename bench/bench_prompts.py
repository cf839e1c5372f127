"""What each writing agent sends: prompt size per agent against seed 002's budgets, and the cache-read share.

    python bench/bench_prompts.py [--at 10,500] [--keep DIR]

Prints figures only (no asserts):
(a) each agent's request (writer, reviser, summarizer, refiner, judge; built by `pipeline.agents.requests`, the
    code `ModelAgents` and `novel-studio prompt` use) at the `--at` chapters of a synthetic project
    (`bench/synth.py`) enriched to look like a real one: 12 world rules, three L2 contracts per character, an L3
    contract for the measured chapter, 250-character summaries; estimated tokens (`pipeline.tokens`) by cache
    tier, against the seed 002 section 8.4 budget of the agent;
(b) the cache-read share per agent on the bundled sample novel, chapters 3 to 10 in order: the tokens of the
    request's cached prefix (every block up to the last breakpoint) that are byte-identical to the previous
    chapter's request, over the request's tokens. This is the share a steady run would be served from the
    cache (within the cache's lifetime), with the chapter text standing in for what each agent reads.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import run_in_workdir  # noqa: E402
from synth import CHARACTERS, generate_project  # noqa: E402

from pipeline.agents.protocol import RevisionInput  # noqa: E402
from pipeline.agents.requests import AgentRequests  # noqa: E402
from pipeline.context import default_registry  # noqa: E402
from pipeline.providers.base import ModelRequest  # noqa: E402
from pipeline.tokens import estimate_tokens  # noqa: E402
from studio.config import load_settings  # noqa: E402
from studio.ids import chapter_id, volume_id  # noqa: E402
from studio.init_project import init_project  # noqa: E402
from studio.project import Project  # noqa: E402

Out = Callable[[str], None]
# seed 002 section 8.4 ("非硬上限"): the upper end of each agent's estimate; the reviser is the writer's budget
BUDGETS = {"writer": 24_000, "reviser": 24_000, "summarizer": 12_000, "refiner": 8_000, "judge": 16_000}
AGENTS = tuple(BUDGETS)
SUMMARY = (
    "林枫在{place}与赵明对峙，陈老暗中出手替他挡下一剑。宗门大比的名单公布，林枫排在末位，引来一片哄笑。"
    "夜里他独自练剑到天明，发现剑鞘上的旧纹在月光下会亮，像是某种阵法的残片。苏晚晴送来一封没有署名的信，"
    "信里只写了三个字：别回头。林枫把信烧了，灰烬却在桌上拼出一个“青”字。第二天一早，外门执事宣布封山三日，"
    "理由语焉不详。赵明在山门口拦住林枫，说大长老要见他。林枫答应了，却在半路拐进了后山的竹林。"
)


def _blocks(request: ModelRequest) -> list[tuple[str, bool]]:
    blocks = [(b.text, b.cache) for b in request.system]
    for message in request.messages:
        for block in message["content"]:
            blocks.append((block["text"], "cache_control" in block))
    return blocks


def tiers(request: ModelRequest) -> tuple[int, int]:
    """(estimated tokens of the cached prefix, of the whole request)."""
    blocks = _blocks(request)
    last = max((i for i, (_, cached) in enumerate(blocks) if cached), default=-1)
    cached = sum(estimate_tokens(text) for text, _ in blocks[: last + 1])
    return cached, sum(estimate_tokens(text) for text, _ in blocks)


def shared_prefix(previous: ModelRequest, current: ModelRequest) -> int:
    """Estimated tokens of `current`'s cached prefix that a cache written by `previous` serves: the breakpoints
    of `current` up to the last one whose whole prefix is byte-identical."""
    a, b = _blocks(previous), _blocks(current)
    served = 0
    running = 0
    for i, (text, cached) in enumerate(b):
        if i >= len(a) or a[i][0] != text:
            break
        running += estimate_tokens(text)
        if cached:
            served = running
    return served


def requests_at(project: Project, chapter: int) -> dict[str, ModelRequest]:
    settings = load_settings(project.root)
    built = AgentRequests(project, settings, default_registry())
    # the latest written chapter stands in for this chapter's draft (a real chapter's size and shape)
    source = next((n for n in range(chapter - 1, 0, -1) if project.chapter_text(n)), None)
    text = (project.chapter_text(source) or "") if source is not None else ""
    if source is not None:
        text = text.replace(f"第{source}章", f"第{chapter}章", 1)
    revision = RevisionInput("revision", text, ["第 3 段：把心理独白改成动作"], ["节奏偏慢"], [])
    return {
        "writer": built.writer(chapter, note=None, revision=None).request,
        "reviser": built.writer(chapter, note=None, revision=revision).request,
        "summarizer": built.summarizer(chapter, text, "- 林枫到后山竹林")[0],
        "refiner": built.refiner(chapter, text, polish=False),
        "judge": built.judge(chapter, text, cross_references=["赵明（character，传闻）"], revision=0),
    }


def _write_json(path: Path, data: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, ensure_ascii=False, indent=2), encoding="utf-8")


def enrich(root: Path, chapter: int) -> None:
    """Rules, contracts and real-length summaries on a synthetic project (what a planned book has)."""
    _write_json(
        root / "world" / "rules.json",
        {
            "rules": [
                {
                    "id": f"W-{i:03d}",
                    "category": "magic_system",
                    "rule": f"第{i}条：修炼者突破境界需要对应浓度的天地灵气，强行突破必遭反噬，三日内无法运转真元",
                    "constraint_type": "hard" if i % 3 else "soft",
                    "exceptions": [] if i % 3 else ["宗门禁地灵脉附近可例外，但正文须交代"],
                }
                for i in range(1, 13)
            ]
        },
    )
    for slug, name, _ in CHARACTERS:
        path = root / "characters" / "active" / f"{slug}.json"
        data = json.loads(path.read_text(encoding="utf-8"))
        data["contracts"] = [
            {"id": f"C-{slug.upper()}-00{k}", "type": kind, "rule": f"{name}{rule}"}
            for k, (kind, rule) in enumerate(
                [
                    ("capability", "当前修为筑基后期，无法使用金丹期以上的剑诀"),
                    ("personality", "面对强敌倾向智取而非硬碰，除非保护身边人"),
                    ("relationship", "不信任宗门大长老一系，任何人替大长老传话都会当面追问"),
                ],
                1,
            )
        ]
        _write_json(path, data)
    volume = (chapter - 1) // 50 + 1
    names = [name for _, name, _ in CHARACTERS]
    _write_json(
        root / "volumes" / volume_id(volume) / "chapter-contracts" / f"{chapter_id(chapter)}.json",
        {
            "chapter": chapter,
            "preconditions": {
                "character_states": {names[0]: {"location": "后山竹林", "emotional_state": "警觉"}},
                "required_world_rules": ["W-001", "W-002"],
            },
            "objectives": [
                {"id": f"OBJ-{chapter:03d}-1", "type": "plot", "required": True, "description": "林枫在竹林里发现封山的真正原因"},
                {"id": f"OBJ-{chapter:03d}-2", "type": "character", "required": True, "description": "赵明第一次向林枫示弱"},
            ],
            "postconditions": {"state_changes": {names[0]: {"location": "外门", "emotional_state": "疑虑"}}},
            "acceptance_criteria": [f"OBJ-{chapter:03d}-1 在正文中明确体现", "不违反 W-001, W-002"],
        },
    )
    for n in range(max(1, chapter - 3), chapter):
        path = root / "summaries" / f"{chapter_id(n)}-summary.md"
        path.write_text(f"第{n}章：" + SUMMARY.format(place=f"第{n}峰"), encoding="utf-8")


def prompt_sizes(work: Path, at: tuple[int, ...], out: Out) -> dict[int, dict[str, int]]:
    figures: dict[int, dict[str, int]] = {}
    for chapter in at:
        root = work / f"synth-{chapter}"
        generate_project(root, chapter - 1)
        enrich(root, chapter)
        project = Project.open(root)
        figures[chapter] = {}
        out(f"  ch {chapter} ({chapter - 1} chapters written):")
        for agent, request in requests_at(project, chapter).items():
            cached, total = tiers(request)
            figures[chapter][agent] = total
            verdict = "within" if total <= BUDGETS[agent] else "OVER"
            out(f"    {agent:<11} {total:>7,} tokens, cached prefix {cached:>6,} "
                f"({verdict} seed 002 budget {BUDGETS[agent]:,})")
    return figures


def cache_share(work: Path, out: Out) -> dict[str, float]:
    root = init_project(work / "sample", sample=True)
    project = Project.open(root)
    chapters = range(3, 11)
    served = dict.fromkeys(AGENTS, 0)
    sent = dict.fromkeys(AGENTS, 0)
    previous: dict[str, ModelRequest] | None = None
    for chapter in chapters:
        current = requests_at(project, chapter)
        for agent in AGENTS:
            total = tiers(current[agent])[1]
            sent[agent] += total
            if previous is not None:
                served[agent] += shared_prefix(previous[agent], current[agent])
        previous = current
    shares = {}
    for agent in AGENTS:
        shares[agent] = served[agent] / sent[agent] if sent[agent] else 0.0
        out(f"    {agent:<11} {shares[agent]:6.1%} of {sent[agent]:,} input tokens over chapters 3-10")
    return shares


def run_benchmark(work: Path, at: tuple[int, ...], out: Out = print) -> dict[str, object]:
    out("(a) prompt size per agent, estimated tokens (synthetic project with rules, contracts, real summaries)")
    sizes = prompt_sizes(work, at, out)
    out("")
    out("(b) cache-read share per agent on the sample novel (cached prefix identical to the previous chapter's)")
    shares = cache_share(work, out)
    return {"sizes": sizes, "shares": shares}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--at", default="10,500", help="chapters to measure, e.g. 10,500")
    parser.add_argument("--keep", type=Path, help="work in this folder and keep it")
    args = parser.parse_args(argv)
    at = tuple(int(x) for x in args.at.split(",") if x.strip())
    run_in_workdir(args.keep, "bench-prompts-", lambda work: run_benchmark(work, at))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
