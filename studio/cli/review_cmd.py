"""`novel-studio review [--volume N] [--yes] [--offline] [--json] [--max-cost USD]`: the volume review (卷末回顾;
issue 7 items 5 and 7). The flow is `pipeline.planning.review.review_volume`, the same one the studio runs.

- On the finished current volume: the estimate of the model call is printed first and `--max-cost` stops
  before a call that could pass it; the review is written (`volumes/vol-NN/review.md`,
  `state/history/vol-NN-final-state.json`), the author answers the state clean-up question (`--yes`: the
  recommended answer, remove), and the checkpoint goes to VOL_PLANNING: `novel-studio plan` plans the next volume.
- On a past volume: `review.md` again (no model call, nothing written).
- On an unfinished volume: an interim report that writes nothing.

Under the project lock (a live holder: exit 4), writes through `studio.fileio` (own-writes recorded); an
interrupted review (its journal `staging/review/vol-NN.json`) is finished first, without a new call. Without a
terminal, or with `--json`, the clean-up question stops the command with exit 3 (with `--json`, the question as
one JSON object); `review --yes` answers it later. With `--json` stdout carries one JSON object.
The provider comes from `studio.cli.provider_seam` (tests inject theirs there).
"""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

from pipeline.decisions import Decider, Question
from pipeline.planning.review import ReviewOutcome, ReviewStopped, outcome_data, review_volume
from pipeline.providers.base import Provider, ProviderError
from pipeline.providers.factory import is_offline
from studio.cli import provider_seam
from studio.cli.common import (
    ExitCode,
    JsonOut,
    PausedForAuthor,
    add_common_arguments,
    cold_start_refused,
    help_lang,
    is_interactive,
    require_project,
    resolve_lang,
    take_project_lock,
)
from studio.cli.terminal_decider import terminal_decider
from studio.config import load_settings
from studio.errors import StudioError
from studio.fileio import sweep_temp_files
from studio.i18n import Catalog, Lang, tr
from studio.lock import ProjectLock
from studio.models.settings import Settings
from studio.paths import ProjectPaths
from studio.planning.staged import resume_plan_applies
from studio.project import Project
from studio.signals import termination_handlers

MESSAGES: Catalog = {
    "help": ("卷末回顾：本卷报告、下一卷建议与状态清理", "volume review: the report, suggestions for the next volume, state clean-up"),
    "opt_volume": ("要回顾的卷号（默认：当前卷）", "the volume to review (default: the current one)"),
    "opt_yes": ("不提问：采用推荐选项（清理临时状态条目）", "ask nothing: take the recommended answer (remove the temporary entries)"),
    "opt_cost": ("费用上限（美元）：预计超出时不调用模型", "stop before a call whose estimate passes this cost (USD)"),
    "lock_question": ("接管项目锁并继续回顾吗？", "take over the project lock and go on with the review?"),
    "lock_cancelled": ("已取消，未做任何改动", "cancelled; nothing was changed"),
    "refused": ("项目状态不一致，未开始回顾：\n{findings}", "the project is inconsistent; nothing was reviewed:\n{findings}"),
    "offline": ("离线模式：建议由离线演示生成，不花钱", "offline mode: the suggestions come from the offline demo, no cost"),
    "estimate": ("卷末回顾：预计最多 ${cost:.2f}（{model}）", "volume review: at most ${cost:.2f} estimated ({model})"),
    "over_cost": (
        "预计费用 ${cost:.2f} 超过上限 ${limit:.2f}，未调用模型，未写入任何文件",
        "the estimate ${cost:.2f} passes the limit ${limit:.2f}; no model was called, nothing was written",
    ),
    "model_error": ("调用模型出错（未写入任何文件）：{message}", "the model call failed (nothing written): {message}"),
    "paused": (
        "回顾已保存，等待作者决定是否清理临时状态条目（当前不是交互终端）。清理：novel-studio review --yes；"
        "或在终端运行 novel-studio review 选择",
        "The review is saved and waits for the author's answer on the state clean-up (stdin is not a terminal). "
        "Remove: `novel-studio review --yes`; or run `novel-studio review` in a terminal and choose",
    ),
    "resumed": ("已完成上次被中断的第 {volume} 卷回顾（未再调用模型）", "finished the interrupted review of volume {volume} (no new call)"),
    "done": (
        "已保存第 {volume} 卷回顾：{path}。下一步：novel-studio plan 规划第 {next} 卷",
        "saved the review of volume {volume}: {path}. Next: novel-studio plan plans volume {next}",
    ),
    "interim": ("第 {volume} 卷还没写完：以上是中期报告，未保存任何文件", "volume {volume} is not finished: this is an interim report; nothing was saved"),
    "past": ("（第 {volume} 卷的回顾，未调用模型）", "(the review of volume {volume}; no model call)"),
    "spent": ("回顾花费 ${cost:.4f}（{calls} 次调用）", "review cost ${cost:.4f} ({calls} calls)"),
}


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    lang = help_lang()
    parser = subparsers.add_parser("review", help=tr(MESSAGES, "help", lang), description=tr(MESSAGES, "help", lang))
    parser.add_argument("--volume", type=int, default=None, metavar="N", help=tr(MESSAGES, "opt_volume", lang))
    parser.add_argument("--yes", "-y", action="store_true", help=tr(MESSAGES, "opt_yes", lang))
    parser.add_argument("--max-cost", type=float, default=None, metavar="USD", help=tr(MESSAGES, "opt_cost", lang))
    add_common_arguments(parser)
    parser.set_defaults(func=run)


_Out = JsonOut


def _decider(args: argparse.Namespace, out: _Out, lang: Lang) -> Decider:
    # looked up when asked (not bound at import), so a test can stand in for the terminal
    terminal = terminal_decider(lang, input_fn=lambda prompt: input(prompt), interactive=lambda: is_interactive())

    async def decide(question: Question) -> str:
        if args.yes:
            return question.recommended
        if out.json_mode:
            out.data.update(
                event="question",
                kind=question.kind.value,
                question=question.title_zh if lang == "zh" else question.title_en,
                facts=question.facts if lang == "zh" else question.data.get("facts_en", question.facts),
                options=[{"key": o.key, "label": o.label_zh if lang == "zh" else o.label_en} for o in question.options],
                recommended=question.recommended,
                data=question.data,
            )
            raise PausedForAuthor(question.title_zh)
        return await terminal(question)

    return decide


def run(args: argparse.Namespace) -> int:
    root = require_project(args)
    lang = resolve_lang(args, root)
    settings = load_settings(root)
    paths = ProjectPaths(root)
    out = _Out(bool(getattr(args, "json", False)))
    offline = is_offline(settings, bool(getattr(args, "offline", False)))
    lock = ProjectLock(paths)
    if not take_project_lock(args, lock, lang, tr(MESSAGES, "lock_question", lang), tr(MESSAGES, "lock_cancelled", lang)):
        return out.finish(int(ExitCode.LOCKED))
    try:
        with termination_handlers():
            sweep_temp_files(root)
            resume_plan_applies(paths)
            refused, findings = cold_start_refused(paths, lang, allowed=_REVIEW_RESOLVES)
            if refused:
                out.err(tr(MESSAGES, "refused", lang, findings=findings))
                return out.finish(int(ExitCode.ERROR), refused=refused)
            return _review(args, root, settings, offline, out, lang)
    except KeyboardInterrupt:
        return out.finish(int(ExitCode.INTERRUPTED))
    finally:
        lock.release()


# The cold-start findings a review is allowed to run on: planning not started yet (the review comes first).
_REVIEW_RESOLVES = frozenset({"planning_unfinished", "plan_staged", "plan_next", "review_pending"})


def _review(args: argparse.Namespace, root: Path, settings: Settings, offline: bool, out: _Out, lang: Lang) -> int:
    project = Project.open(root)
    needs_key = provider_seam.missing_key(settings, offline)

    def provider() -> Provider:
        if needs_key:
            raise _NoKey
        return provider_seam.build(root, settings, offline)

    async def confirm(cost: float, model: str) -> bool:
        if offline:
            out.say(tr(MESSAGES, "offline", lang))
        out.data["estimate_usd"] = cost
        out.say(tr(MESSAGES, "estimate", lang, cost=cost, model=model))
        limit = args.max_cost
        if limit is not None and cost > limit:
            out.say(tr(MESSAGES, "over_cost", lang, cost=cost, limit=limit))
            return False
        return True

    try:
        outcome = asyncio.run(review_volume(project, settings, provider, _decider(args, out, lang), volume=args.volume,
                                            lang=lang, offline=offline, confirm_cost=confirm))
    except _NoKey:
        out.err(provider_seam.no_key_text(settings, lang))
        return out.finish(int(ExitCode.ERROR), error="missing_api_key")
    except ReviewStopped:
        return out.finish(int(ExitCode.OK), stopped_by_cost=True)
    except PausedForAuthor:
        out.err(tr(MESSAGES, "paused", lang))
        return out.finish(int(ExitCode.PAUSED))
    except ProviderError as exc:
        out.err(tr(MESSAGES, "model_error", lang, message=str(exc)))
        return out.finish(int(ExitCode.ERROR), error=str(exc))
    except StudioError as exc:
        out.err(exc.text(lang))
        return out.finish(int(ExitCode.ERROR), error=exc.text(lang))
    return _report(outcome, root, out, lang)


class _NoKey(Exception):
    """The model is needed and no API key is set."""


def _report(outcome: ReviewOutcome, root: Path, out: _Out, lang: Lang) -> int:
    out.say(outcome.markdown.rstrip())
    out.say("")
    if outcome.kind == "unfinished":
        out.say(tr(MESSAGES, "interim", lang, volume=outcome.volume))
    elif outcome.kind == "past":
        out.say(tr(MESSAGES, "past", lang, volume=outcome.volume))
    else:
        if outcome.resumed:
            out.say(tr(MESSAGES, "resumed", lang, volume=outcome.volume))
        if outcome.calls:
            out.say(tr(MESSAGES, "spent", lang, cost=outcome.cost_usd, calls=len(outcome.calls)))
        path = (ProjectPaths(root).volume_dir(outcome.volume) / "review.md").relative_to(root).as_posix()
        out.say(tr(MESSAGES, "done", lang, volume=outcome.volume, path=path, next=outcome.next_volume))
    return out.finish(int(ExitCode.OK), **outcome_data(outcome))
