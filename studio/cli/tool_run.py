"""What `character ...` and `world rule ...` share: the lock, finishing an interrupted change, refusing while
the project is mid-run, the model call (estimate, `--max-cost`, spend), showing the change and asking, and
applying it in one journaled step (`studio.tools.txn`).

Output: text lines, or with `--json` one JSON object on stdout at the end: `{"event": "result", ...}` with the
change's report (files, affected chapters, changelog lines) and `applied`; or `{"event": "question", ...}` with
the diff and exit 3 when the change waits for the author (no terminal, or `--json` without `--yes`). Nothing
is written before the author says yes (`--yes` says it ahead).
The provider comes from `studio.cli.provider_seam` (tests inject theirs there).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from pipeline.providers.base import Provider
from pipeline.providers.factory import is_offline
from studio.cli import provider_seam
from studio.cli.common import (
    ExitCode,
    JsonOut,
    is_interactive,
    require_project,
    resolve_lang,
    take_project_lock,
)
from studio.coldstart import check_cold_start, refusals
from studio.errors import FormatError, StudioError
from studio.fileio import sweep_temp_files
from studio.i18n import Catalog, Lang, tr
from studio.lock import ProjectLock
from studio.models.settings import Settings
from studio.paths import ProjectPaths
from studio.signals import termination_handlers
from studio.tools.characters import RetireBlocked
from studio.tools.plan import ToolPlan
from studio.tools.txn import apply_changes, resume_tool_changes

MESSAGES: Catalog = {
    "opt_yes": ("不提问，直接应用改动", "ask nothing: apply the change"),
    "opt_cost": ("费用上限（美元）：预计超出时不调用模型", "stop before a call whose estimate passes this cost (USD)"),
    "lock_q": ("接管这个锁并继续吗？", "Take the lock over and go on?"),
    "lock_no": ("未接管锁，没有改动任何文件", "the lock was not taken over; nothing was changed"),
    "resumed": ("已完成上次被中断的改动：{summary}", "finished the interrupted change: {summary}"),
    "refused": ("项目正在进行中的步骤需要先处理，未做任何改动：\n{findings}", "the project has a step in progress to "
                "settle first; nothing was changed:\n{findings}"),
    "no_key": ("没有找到 API 密钥：环境变量 {env} 未设置。请先 export {env}=你的密钥，或使用 --offline 或 --manual",
               "No API key: {env} is not set. Run `export {env}=<your key>`, or use --offline or --manual"),
    "offline": ("离线模式：角色由离线演示生成，不花钱", "offline mode: the character comes from the offline demo, no cost"),
    "estimate": ("调用模型（{model}）：预计最多 ${cost:.4f}", "calling the model ({model}): at most ${cost:.4f} estimated"),
    "over_cost": ("预计费用 ${cost:.4f} 超过上限 ${limit:.4f}，未调用模型，未做任何改动", "the estimate ${cost:.4f} "
                  "passes the limit ${limit:.4f}; no model was called and nothing was changed"),
    "spent": ("模型花费 ${cost:.4f}（{calls} 次调用，已记入 logs/spend.jsonl）", "model cost ${cost:.4f} ({calls} calls, "
              "booked in logs/spend.jsonl)"),
    "affects_unwritten": ("受影响的未写章节（大纲/契约需要复查）：", "unwritten chapters affected (outline/contracts "
                          "to re-check):"),
    "affects_written": ("可能受影响的已写章节：", "written chapters that may be affected:"),
    "affects_chars": ("相关角色：", "characters:"),
    "ch": ("第{n}章：{why}", "ch {n}: {why}"),
    "diff": ("将要做的改动：", "the change:"),
    "question": ("应用这些改动吗？", "Apply this change?"),
    "o_y": ("y 应用", "y apply"),
    "o_n": ("n 取消", "n cancel"),
    "paused": ("改动未应用，等待确认（当前不是交互终端）；确认后用 --yes 重新运行", "not applied: this waits for "
               "confirmation (stdin is not a terminal); run again with --yes"),
    "cancelled": ("已取消，没有改动任何文件", "cancelled; nothing was changed"),
    "applied": ("已应用：{title}；记录在 {log}，原文件备份在 {backup}", "applied: {title}; logged in {log}, the files "
                "as they were are in {backup}"),
    "blocked_hint": ("先处理以上引用（结束伏笔、调整故事线或交汇事件），再退场", "settle these first (resolve the "
                     "thread, change the storyline or the convergence event), then retire"),
}


Out = JsonOut


def add_tool_flags(parser: argparse.ArgumentParser, lang: Lang, *, model: bool = False) -> None:
    parser.add_argument("--yes", "-y", action="store_true", help=tr(MESSAGES, "opt_yes", lang))
    if model:
        parser.add_argument("--max-cost", type=float, default=None, metavar="USD", help=tr(MESSAGES, "opt_cost", lang))


class ToolRun:
    """One tool command: project, language, output, settings and (when a model is called) the provider."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.root = require_project(args)
        self.lang: Lang = resolve_lang(args, self.root)
        self.paths = ProjectPaths(self.root)
        self.out = Out(bool(getattr(args, "json", False)))
        self.spent = 0.0
        self.calls = 0
        self._settings: Settings | None = None
        self._on_done: list[Callable[[], None]] = []

    def after_done(self, action: Callable[[], None]) -> None:
        """Run `action` once the change is applied or cancelled (not when it pauses for the author)."""
        self._on_done.append(action)

    @property
    def settings(self) -> Settings:
        if self._settings is None:
            from studio.config import load_settings

            self._settings = load_settings(self.root)
        return self._settings

    @property
    def offline(self) -> bool:
        return is_offline(self.settings, bool(getattr(self.args, "offline", False)))

    def provider(self) -> Provider:
        """The provider (booking every call in the spend ledger); a missing key is a clear error."""
        if provider_seam.missing_key(self.settings, self.offline):
            raise StudioError(tr(MESSAGES, "no_key", self.lang, env=self.settings.provider.api_key_env))
        return provider_seam.build(self.root, self.settings, self.offline)

    def estimate(self, cost: float, model: str) -> bool:
        """Print the estimate; False (and say so) when `--max-cost` stops the call."""
        if self.offline:
            self.out.say(tr(MESSAGES, "offline", self.lang))
        self.out.say(tr(MESSAGES, "estimate", self.lang, cost=cost, model=model))
        self.out.data["estimate_usd"] = cost
        limit = getattr(self.args, "max_cost", None)
        if limit is not None and self.spent + cost > limit:
            self.out.say(tr(MESSAGES, "over_cost", self.lang, cost=cost, limit=limit))
            return False
        return True

    def booked(self, cost: float, calls: int) -> None:
        self.spent += cost
        self.calls += calls
        self.out.data["cost_usd"] = round(self.spent, 6)
        self.out.say(tr(MESSAGES, "spent", self.lang, cost=cost, calls=calls))

    def run(self, build: Callable[[ToolRun], ToolPlan | int]) -> int:
        """Lock, resume, refuse mid-run projects, `build` the change (or an exit code), show, ask, apply."""
        lock = ProjectLock(self.paths)
        if not take_project_lock(self.args, lock, self.lang, tr(MESSAGES, "lock_q", self.lang),
                                 tr(MESSAGES, "lock_no", self.lang)):
            return self.out.finish(int(ExitCode.LOCKED))
        try:
            with termination_handlers():
                sweep_temp_files(self.root)
                for journal in resume_tool_changes(self.paths):
                    self.out.say(tr(MESSAGES, "resumed", self.lang, summary=journal.summary or journal.command))
                refused = refusals(check_cold_start(self.paths))
                if refused:
                    findings = "\n".join(f"- {f.describe(self.lang)}" for f in refused)
                    self.out.err(tr(MESSAGES, "refused", self.lang, findings=findings))
                    return self.out.finish(int(ExitCode.ERROR), refused=[f.key for f in refused])
                try:
                    built = build(self)
                except RetireBlocked as exc:
                    self.out.err(str(exc))
                    self.out.err(tr(MESSAGES, "blocked_hint", self.lang))
                    return self.out.finish(int(ExitCode.ERROR), error=str(exc), blockers=exc.blockers)
                except StudioError as exc:
                    problems = [p.describe(self.lang) for p in exc.problems] if isinstance(exc, FormatError) else []
                    self.out.err(exc.text(self.lang))
                    return self.out.finish(int(ExitCode.ERROR), error=exc.text(self.lang), problems=problems)
                if isinstance(built, int):
                    return self.out.finish(built)
                return self._confirm_and_apply(built)
        except KeyboardInterrupt:
            return self.out.finish(int(ExitCode.INTERRUPTED))
        finally:
            lock.release()

    def _show(self, plan: ToolPlan) -> list[str]:
        lang = self.lang
        self.out.say(plan.title)
        for line in plan.lines:
            self.out.say(f"  - {line}")
        impact = plan.impact
        for key, table in (("affects_unwritten", impact.unwritten), ("affects_written", impact.written)):
            if table:
                self.out.say(tr(MESSAGES, key, lang))
                sep = "；" if lang == "zh" else "; "
                for n, reasons in sorted(table.items()):
                    self.out.say("  " + tr(MESSAGES, "ch", lang, n=n, why=sep.join(reasons)))
        if impact.characters:
            self.out.say(tr(MESSAGES, "affects_chars", lang) + " " + "；".join(impact.characters))
        diff = plan.changes.diff_lines()
        self.out.say(tr(MESSAGES, "diff", lang))
        for line in diff:
            self.out.say(line)
        self.out.data.update(plan.report())
        return diff

    def _done(self) -> None:
        for action in self._on_done:
            action()

    def _confirm_and_apply(self, plan: ToolPlan) -> int:
        diff = self._show(plan)
        lang = self.lang
        if not getattr(self.args, "yes", False):
            question = tr(MESSAGES, "question", lang)
            if self.out.json_mode or not is_interactive():
                print(tr(MESSAGES, "paused", lang), file=sys.stderr)
                self.out.data.update(event="question", question=question, diff=diff, recommended="y",
                                     options=[{"key": k, "label": tr(MESSAGES, f"o_{k}", lang)} for k in ("y", "n")])
                return self.out.finish(int(ExitCode.PAUSED), applied=False)
            answer = input(f"{question} [y/n] (n) ").strip().lower()
            if answer != "y":
                self._done()
                self.out.say(tr(MESSAGES, "cancelled", lang))
                return self.out.finish(int(ExitCode.OK), applied=False, cancelled=True)
        journal = apply_changes(plan.changes, command=plan.command, summary=plan.title)
        self._done()
        backup = journal.backup if journal is not None else "-"
        log = next((c.path for c in plan.changes.changes() if c.path.endswith("changelog.md")), "-")
        self.out.say(tr(MESSAGES, "applied", lang, title=plan.title, log=log, backup=backup))
        return self.out.finish(int(ExitCode.OK), applied=True, backup=backup)
