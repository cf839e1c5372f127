"""What the studio checks right after the cold start, and the dialogs it asks (issue 4, sections 1 and 4).

`run_startup_checks(host)` runs in a worker of the main screen once it is up (`host`: the `StudioHost` protocol
of `studio.tui.host`, never the concrete App or screen), in this order:

1. the project lock: held by another live process -> a notification naming who and since when
   (`LockStatus.describe`); writing stays disabled until it is free (`writing_blocked`), browsing works.
   A stale lock -> STALE_LOCK (take over / cancel).
2. the API key: not offline and the key's environment variable unset -> MISSING_KEY (how to set it, or continue
   offline: the app switches to the offline provider and the header says so). An AuthError / MissingApiKeyError
   during a run asks the same question (`ask_key_problem`).
3. recovery (`decide_recovery`): an interrupted chapter -> INTERRUPTED (resume now / later / discard the staged
   work: asked once more, default keep, and backed up first by `studio.tui.discard`); a pause waiting for the author (pending actions) -> shown, with "answer now" (starts the run, which
   asks it again) / later.
4. prompt pins (when the project can be written): a project without `[prompts]` pins in novel-studio.toml is
   pinned to the versions it has been using, and a notification says so once (`pipeline.prompts_registry`).

Resume starts the run with the orchestrator's own INTERRUPTED question answered "resume" as data
(`RunRequest.preanswered`), so the author is not asked twice, and nothing of that answer outlives that run. Discard goes through the orchestrator's own `_ask_interrupted` with a decider that
answers "discard", under the project lock: the staging and checkpoint are cleared exactly as a run would.
Nothing here raises into the app: a failure is logged to `.novel-studio/logs/studio.log` and notified.
"""

from __future__ import annotations

import os
import socket
import traceback
from pathlib import Path
from typing import Any

from pipeline.decisions import Option, Question, QuestionKind
from pipeline.prompts_registry import ensure_pins, pin_notice
from studio.errors import LockHeldError, StudioError
from studio.i18n import Catalog, Lang, tr
from studio.lock import LockState, LockStatus, ProjectLock
from studio.paths import ProjectPaths
from studio.recovery import RecoveryKind, decide_recovery
from studio.studio_log import log_line
from studio.tui.discard import backed_up_message, backup_staged, confirm_discard_dialog
from studio.tui.host import RunRequest, StudioHost

MESSAGES: Catalog = {
    "lock_held": (
        "{describe}。在它释放之前不能写作（仍可浏览）。",
        "{describe}. Writing is disabled until it is free (you can still browse).",
    ),
    "own_busy": ("正在重建或写作，请稍候", "A rebuild or run is in progress; please wait"),
    "q_stale": ("项目锁的持有进程已不在：接管吗？", "The project lock's holder is gone: take it over?"),
    "o_take_over": ("接管", "take over"),
    "o_cancel": ("取消", "cancel"),
    "taken_over": ("已接管项目锁", "Took over the project lock"),
    "take_over_failed": ("接管失败：{message}", "Taking over failed: {message}"),
    "q_missing_key": ("没有找到 API key", "No API key found"),
    "q_rejected_key": ("API key 被拒绝", "The API key was rejected"),
    "f_missing_key": ("环境变量 {env} 没有设置。", "The environment variable {env} is not set."),
    "f_rejected_key": ("服务端拒绝了 {env} 中的 key：{message}", "The API rejected the key in {env}: {message}"),
    "f_how": (
        "设置方法：退出后在终端执行  export {env}=你的key  再重新打开 novel-studio",
        "To set it: quit, run  export {env}=your-key  in the terminal, and open novel-studio again",
    ),
    "f_offline": (
        "也可以先用离线模型继续：不联网、不花钱，写出的是示例文本",
        "Or continue with the offline provider: no network, no cost, sample text only",
    ),
    "o_offline": ("离线继续", "continue offline"),
    "o_later_key": ("稍后设置（先浏览）", "set it later (browse for now)"),
    "now_offline": ("已切换到离线模型（页眉显示“离线模式”）", "Switched to the offline provider (OFFLINE in the header)"),
    "q_interrupted": (
        "第 {chapter} 章上次被中断：继续、丢弃暂存内容，还是稍后再说？",
        "Chapter {chapter} was interrupted: resume, discard the staged work, or later?",
    ),
    "o_resume": ("现在继续", "resume now"),
    "o_discard": ("丢弃暂存内容", "discard the staged work"),
    "o_later": ("稍后", "later"),
    "discarded": ("已丢弃第 {chapter} 章的暂存内容", "Discarded the staged work of chapter {chapter}"),
    "discard_failed": ("丢弃失败：{message}", "Discarding failed: {message}"),
    "q_pending": ("第 {chapter} 章在等你决定", "Chapter {chapter} waits for your decision"),
    "f_pending": ("待决定：{question}", "Waiting: {question}"),
    "f_pending_again": ("现在回答会继续运行流水线，并重新提出这个问题", "Answering now resumes the run, which asks it again"),
    "o_answer_now": ("现在回答", "answer now"),
    "failed": ("启动检查出错：{message}（详情见日志）", "The start-up checks failed: {message} (see the log)"),
}

KEY_ERROR_KINDS = frozenset({"auth", "missing_api_key"})


def _option(key: str, label_key: str, lang: Lang) -> Option:
    return Option(key, tr(MESSAGES, label_key, "zh"), tr(MESSAGES, label_key, "en"))


def _question(
    kind: QuestionKind,
    chapter: int | None,
    title_key: str,
    options: list[tuple[str, str]],
    recommended: str,
    *,
    facts: list[str] | None = None,
    escape: str | None = None,
    lang: Lang = "zh",
    **fmt: Any,
) -> Question:
    return Question(
        kind=kind,
        chapter=chapter,
        title_zh=tr(MESSAGES, title_key, "zh", chapter=chapter, **fmt),
        title_en=tr(MESSAGES, title_key, "en", chapter=chapter, **fmt),
        facts=list(facts or []),
        options=[_option(key, label, lang) for key, label in options],
        recommended=recommended,
        data={"escape": escape} if escape else {},
    )


# --------------------------------------------------------------------------------------------- the lock


def _is_own(status: LockStatus) -> bool:
    info = status.info
    return info is not None and info.pid == os.getpid() and info.host == socket.gethostname()


def lock_status(root: Path) -> LockStatus:
    return ProjectLock(ProjectPaths(Path(root))).status()


def writing_blocked(root: Path, lang: Lang = "zh") -> str | None:
    """Why writing cannot start now (the lock is held by a live process), or None. Never raises."""
    try:
        status = lock_status(root)
    except (OSError, StudioError):
        return None
    if status.state is not LockState.HELD_ALIVE:
        return None
    if _is_own(status):
        return tr(MESSAGES, "own_busy", lang)
    return tr(MESSAGES, "lock_held", lang, describe=status.describe(lang))


# --------------------------------------------------------------------------------------------- key


async def ask_key_problem(host: StudioHost, rejected: str | None = None) -> None:
    """MISSING_KEY: how to set the key, or continue offline. `rejected`: the provider's message (AuthError)."""
    lang = host.lang
    settings = host.services.settings
    env = settings.provider.api_key_env if settings is not None else "ANTHROPIC_API_KEY"
    first = (
        tr(MESSAGES, "f_rejected_key", lang, env=env, message=rejected)
        if rejected is not None
        else tr(MESSAGES, "f_missing_key", lang, env=env)
    )
    question = _question(
        QuestionKind.MISSING_KEY,
        None,
        "q_rejected_key" if rejected is not None else "q_missing_key",
        [("offline", "o_offline"), ("cancel", "o_later_key")],
        "offline",
        facts=[first, tr(MESSAGES, "f_how", lang, env=env), tr(MESSAGES, "f_offline", lang)],
        escape="cancel",
        lang=lang,
    )
    if await host.ask(question) == "offline":
        host.services.use_offline()
        host.notify(tr(MESSAGES, "now_offline", lang))


# --------------------------------------------------------------------------------------------- recovery


async def discard_staged(host: StudioHost, chapter: int, described: str) -> bool:
    """Discard chapter `chapter`'s staged work the way the orchestrator does (under the project lock)."""
    from pipeline.orchestrator import Orchestrator

    async def discard(question: Question) -> str:
        return "discard"

    root = host.project.root
    services = host.services
    paths = ProjectPaths(root)
    lock = ProjectLock(paths, chapter=chapter)
    try:
        lock.acquire()
    except LockHeldError as exc:
        host.notify(tr(MESSAGES, "discard_failed", host.lang, message=exc), severity="error", timeout=10)
        return False
    try:
        backup = backup_staged(paths, chapter)
        orchestrator = Orchestrator(
            root,
            services.make_agents(),
            decider=discard,
            emit=lambda event: None,
            settings=services.settings,
            lock=lock,
            lang=host.lang,
            offline=services.offline,
        )
        orchestrator._load()
        await orchestrator._ask_interrupted(chapter, described)
    except (StudioError, OSError) as exc:
        log_line(root, "discard failed:\n" + traceback.format_exc())
        host.notify(tr(MESSAGES, "discard_failed", host.lang, message=exc), severity="error", timeout=10)
        return False
    finally:
        lock.release()
    log_line(root, f"startup: discarded the staged work of chapter {chapter} (backup: {backup})")
    host.notify(tr(MESSAGES, "discarded", host.lang, chapter=chapter))
    if backup is not None:
        host.notify(backed_up_message(chapter, backup, host.lang), timeout=15, markup=False)
    return True


async def _check_recovery(host: StudioHost) -> None:
    from studio.models.checkpoint import Checkpoint

    lang = host.lang
    paths = ProjectPaths(host.project.root)
    checkpoint = Checkpoint.load_or_default(paths.checkpoint)
    rec = decide_recovery(checkpoint, paths)
    if rec.kind is RecoveryKind.NONE or host.running:
        return
    if rec.kind is RecoveryKind.ASK_AUTHOR:
        pending = checkpoint.pending_actions[0]
        facts = [tr(MESSAGES, "f_pending", lang, question=pending.question or pending.kind)]
        if pending.rationale:
            facts.append(pending.rationale)
        facts.append(tr(MESSAGES, "f_pending_again", lang))
        try:
            kind = QuestionKind(pending.kind)
        except ValueError:
            kind = QuestionKind.GATE_LOW
        question = _question(
            kind, rec.chapter, "q_pending", [("answer_now", "o_answer_now"), ("later", "o_later")], "answer_now",
            facts=facts, escape="later", lang=lang,
        )
        if await host.ask(question) == "answer_now" and not host.running:
            host.start_run(RunRequest(1))
        return
    described = rec.describe(lang)
    question = _question(
        QuestionKind.INTERRUPTED,
        rec.chapter,
        "q_interrupted",
        [("resume", "o_resume"), ("later", "o_later"), ("discard", "o_discard")],
        "resume",
        facts=[described],
        escape="later",
        lang=lang,
    )
    answer = await host.ask(question)
    if host.running:
        return
    if answer == "resume":
        host.start_run(RunRequest(1, preanswered={QuestionKind.INTERRUPTED: "resume"}))
    elif answer == "discard" and await host.show_modal(confirm_discard_dialog(rec.chapter, lang)):
        if await discard_staged(host, rec.chapter, described):
            host.reload()
            if host.selected is not None:
                host.show_chapter(host.selected)


async def _check_lock(host: StudioHost) -> bool:
    """True when writing is possible (the lock is free, or was stale and taken over)."""
    lang = host.lang
    root = host.project.root
    status = lock_status(root)
    if status.state is LockState.FREE or _is_own(status):
        return True
    if status.state is LockState.HELD_ALIVE:
        message = tr(MESSAGES, "lock_held", lang, describe=status.describe(lang))
        log_line(root, f"startup: {status.reason}")
        host.notify(message, severity="warning", timeout=30, markup=False)
        return False
    question = _question(
        QuestionKind.STALE_LOCK, None, "q_stale", [("take_over", "o_take_over"), ("cancel", "o_cancel")],
        "take_over", facts=[status.describe(lang)], escape="cancel", lang=lang,
    )
    if await host.ask(question) != "take_over":
        return False
    lock = ProjectLock(ProjectPaths(root))
    try:
        lock.acquire(take_over_stale=True)
    except LockHeldError as exc:
        host.notify(tr(MESSAGES, "take_over_failed", lang, message=exc), severity="error", timeout=10)
        return False
    lock.release()
    log_line(root, f"startup: took over a stale lock ({status.reason})")
    host.notify(tr(MESSAGES, "taken_over", lang))
    return True


def _pin_prompts(host: StudioHost) -> None:
    """A project without prompt pins is pinned to what it has been using, and the author told once."""
    notice = pin_notice(ensure_pins(host.project.root), host.lang)
    if notice:
        host.notify(notice, timeout=15, markup=False)


async def run_startup_checks(host: StudioHost) -> None:
    """The checks of the module docstring; meant to run in a worker (the dialogs are awaited)."""
    try:
        can_write = await _check_lock(host)
        if host.services.key_missing():
            await ask_key_problem(host)
        if can_write:
            await _check_recovery(host)
            _pin_prompts(host)
    except Exception as exc:  # never crash the studio over a start-up check
        log_line(host.project.root, "startup checks failed:\n" + traceback.format_exc())
        host.notify(tr(MESSAGES, "failed", host.lang, message=exc), severity="error", timeout=10, markup=False)


__all__ = [
    "KEY_ERROR_KINDS",
    "MESSAGES",
    "ask_key_problem",
    "discard_staged",
    "lock_status",
    "run_startup_checks",
    "writing_blocked",
]
