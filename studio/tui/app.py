"""`NovelStudioApp`: the Textual shell of novel-studio.

`NovelStudioApp(project_root, *, lang, offline, provider_factory=None)` opens the project like the PRD's cold
start (`Project.open`: checkpoint, state, last summaries, outline; no chapter text) and shows the main screen.
A project that cannot be opened shows `ProjectErrorScreen` (the problems, readable; never a traceback).

The App sits on top and wires: it loads the settings, builds the provider (one method, `build_provider`) and
the agents, and hands itself to the screens as their `studio.tui.host.StudioServices`. Nothing below imports
this module (import-linter keeps it so); only the CLI launcher does.

Providers: `provider_factory(settings)` when given (tests: `OfflineProvider(delay_s=0)`), else the offline
provider with `offline=True`, else the Anthropic(-compatible) provider from the settings. Without a factory the
provider is built at its first use (a run, a rebuild, a planning call), never to draw the first frame: the
header's "offline" and provider name come from the settings (`studio.models.settings.is_offline`, `provider_name`), as building
it imports the Anthropic SDK and httpx (tests/test_start_imports.py).

Planning (issue 7): `plan_session` / `quick_start` when given (tests pass fakes), else the pipeline's
`run_plan_session` / `run_quick_start`, imported lazily here only and bound to the settings and provider; both
run under the project lock the App takes for them (the quick start is handed it for its trial run), as
`novel-studio plan` / `start` run them. The welcome screen's new-novel
path ends in a `NewNovel`: the main screen opens on it and is asked to run the quick start
(`QuickStartRequested`). The import path (issue 10) ends in an `ImportedNovel`: the main screen opens on the
new project and is asked to offer the full extraction, its estimate first (`ExtractionRequested`).
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import os
import signal
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from textual import on
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding, BindingType
from textual.command import CommandPalette, DiscoveryHit, Hit, Hits, Provider
from textual.containers import Vertical, VerticalScroll
from textual.css.query import NoMatches
from textual.events import DeliveryComplete, DeliveryFailed
from textual.screen import Screen
from textual.widgets import Footer, Label

from screens.main_screen import MainScreen
from studio.errors import FormatError, StudioError
from studio.i18n import Catalog, Lang, tr
from studio.lock import ProjectLock
from studio.models.settings import Settings, is_offline
from studio.paths import ProjectPaths
from studio.project import Project
from studio.tui.hangup import HangupWatch, start_hangup_watch, stdin_refusal
from studio.tui.heap import settle_heap
from studio.tui.host import EventSink, PlanSession, QuickStart
from studio.tui.keymap import apply_keymap, binding_defaults
from studio.tui.messages import ExtractionRequested, QuickStartRequested
from widgets import compat
from widgets.instant_keys import JK_BINDINGS

if TYPE_CHECKING:
    # The pipeline loads when a run, a rebuild or a provider needs it, not before the first paint
    # (tests/test_app_startup.py holds the pipeline modules a start may import).
    from pipeline.agents.runner import ModelAgents, RetryHook
    from pipeline.decisions import Decider
    from pipeline.providers.base import Provider as ModelProvider

    # The welcome screen and the new-novel and import paths load when the studio opens on no project.
    from screens.welcome_screen import NewNovel
    from studio.models.quick_start import QuickStartRequest
    from studio.tui.import_flow import ImportedNovel

MESSAGES: Catalog = {
    "error_title": ("无法打开项目：{root}", "Cannot open the project: {root}"),
    "error_hint": ("修好上面的问题后重新打开。按 q 退出。", "Fix the problems above and open it again. Press q to quit."),
    "quit": ("退出", "Quit"),
    # the command palette (Textual's own words, localised)
    "palette": ("命令面板", "palette"),
    "palette_tip": ("打开命令面板", "Open the command palette"),
    "palette_placeholder": ("搜索命令…", "Search for commands…"),
    "theme_placeholder": ("搜索配色主题…", "Search for themes…"),
    "no_matches": ("没有匹配的结果", "No matches found"),
    "screenshot_title": ("截图", "Screenshot"),
    "screenshot_saved": ("截图已保存：{path}", "Screenshot saved to {path}"),
    "screenshot_delivered": ("截图已保存", "Screenshot saved"),
    "screenshot_failed": ("截图保存失败", "Failed to save the screenshot"),
    "cmd_Theme": ("主题|切换配色主题", "Theme|Change the current theme"),
    "cmd_Keys": ("按键|显示或隐藏当前控件的按键说明", "Keys|Show or hide the keys of the focused widget"),
    "cmd_Maximize": ("最大化|把当前窗格放大到全屏", "Maximize|Maximize the focused widget"),
    "cmd_Minimize": ("还原|把放大的窗格还原", "Minimize|Restore the maximized widget"),
    "cmd_Screenshot": ("截图|把当前画面保存为 SVG", "Screenshot|Save an SVG screenshot of the current screen"),
}

ProviderFactory = Callable[[Settings], "ModelProvider"]

# `pipeline.providers.offline.OfflineProvider.name`, named here without importing it (tests/test_start_imports.py
# holds the two equal).
OFFLINE_PROVIDER_NAME = "offline"

SCREENSHOT_DELIVERY = "studio-screenshot"
"""The delivery name of the studio's screenshots (not Textual's "screenshot": its toasts are English)."""


class ProjectErrorScreen(Screen[None]):
    """Why the project could not be opened, in plain words; q quits."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("q,escape", "app.quit", "退出", id="quit")]

    DEFAULT_CSS = """
    ProjectErrorScreen {
        align: center middle;
    }
    ProjectErrorScreen > #error-box {
        width: 90;
        max-width: 100%;
        height: auto;
        max-height: 100%;
        border: thick $error;
        padding: 0 1;
    }
    ProjectErrorScreen #error-title {
        text-style: bold;
        color: $text-error;
        margin-bottom: 1;
    }
    ProjectErrorScreen #error-body {
        height: auto;
        max-height: 16;
    }
    ProjectErrorScreen #error-hint {
        color: $text-muted;
        margin-top: 1;
    }
    """

    def __init__(self, root: Path, message: str, lang: Lang = "zh") -> None:
        super().__init__()
        self.root = root
        self.message = message
        self.lang: Lang = lang
        # the footer's quit key in the UI's language (the class declares it once, in Chinese)
        quit_text = tr(MESSAGES, "quit", lang)
        compat.rewrite_bindings(self, lambda b: replace(b, description=quit_text) if b.id == "quit" else b)

    def compose(self) -> ComposeResult:
        from screens.prompt_dialogs import FoldedText  # the dialogs' module loads when a screen needs it

        with Vertical(id="error-box"):
            yield Label(tr(MESSAGES, "error_title", self.lang, root=self.root), id="error-title", markup=False)
            with VerticalScroll(id="error-body"):
                # Chinese wraps between any two characters (a Static wraps only at spaces)
                yield FoldedText(self.message, id="error-message")
            yield Label(tr(MESSAGES, "error_hint", self.lang), id="error-hint", markup=False)
        yield Footer()


def describe_error(exc: StudioError, lang: Lang) -> str:
    if isinstance(exc, FormatError) and exc.problems:
        return "\n".join(f"- {p.describe(lang)}" for p in exc.problems)
    return exc.text(lang)


class StudioCommands(Provider):
    """The command palette: every action of the main screen, by its localised name."""

    def _main(self) -> MainScreen | None:
        app = self.app
        return app.main_screen if isinstance(app, NovelStudioApp) else None

    def _commands(self) -> list[tuple[str, str]]:
        screen = self._main()
        if screen is None:
            return []
        out: list[tuple[str, str]] = []
        for binding_id in MainScreen.DESCRIPTION_KEYS:
            action = _ACTIONS.get(binding_id)
            if action is not None:
                out.append((screen._desc(binding_id), action))
        return out

    def _run(self, action: str) -> Callable[[], Any]:
        screen = self._main()
        assert screen is not None
        return partial(screen.run_action, action)

    async def discover(self) -> Hits:
        for name, action in self._commands():
            yield DiscoveryHit(name, self._run(action))

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, action in self._commands():
            score = matcher.match(name + " " + action)
            if score > 0:
                yield Hit(score, matcher.highlight(name), self._run(action))


_ACTIONS: dict[str, str] = {
    "write_next": "write_next",
    "write_many": "write_many",
    "note": "note",
    "goto": "goto",
    "copy": "copy_chapter",
    "review": "review",
    "undo": "undo",
    "edit": "edit_chapter",
    "search": "search",
    "findings": "findings",
    "mark_reviewed": "mark_reviewed",
    "export": "export",
    "extract": "extract",
    "pane_1": "focus_pane(0)",
    "pane_2": "focus_pane(1)",
    "pane_3": "focus_pane(2)",
    "pane_4": "focus_pane(3)",
    "stop": "stop",
    "help": "help",
    "quit": "quit_studio",
}


def _blacklist_commands() -> type[Provider]:
    from screens.blacklist_proposals import BlacklistCommands

    return BlacklistCommands


def _append_import_commands() -> type[Provider]:
    from screens.import_source import AppendImportCommands

    return AppendImportCommands


class NovelStudioApp(App[None]):
    """The studio on one project."""

    CSS_PATH = "app.tcss"
    TITLE = "novel-studio"
    # Providers of other screens are named by callables that import them when the palette first opens (Textual's
    # `ProviderSource`): importing them at start (the blacklist models, the import flow) delayed the first paint.
    COMMANDS = App.COMMANDS | {StudioCommands, _blacklist_commands, _append_import_commands}
    # q and ctrl+q are the main screen's (it asks first while a stage runs)
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+q", "quit", "Quit", show=False, priority=True, id="app_quit"),
    ]

    def __init__(
        self,
        project_root: Path | str,
        *,
        lang: Lang = "zh",
        offline: bool = False,
        provider_factory: ProviderFactory | None = None,
        clock: Callable[[], float] = time.monotonic,
        welcome: bool = False,
        plan_session: PlanSession | None = None,
        quick_start: QuickStart | None = None,
    ) -> None:
        super().__init__()
        compat.keep_toasts_whole()  # Chinese text in toasts loses no characters over the panes' borders
        self.project_root = Path(project_root)
        self.lang: Lang = lang
        compat.rewrite_bindings(self, self._localise_binding)
        self.offline = offline
        self.provider_factory = provider_factory
        self._clock = clock
        self.settings: Settings | None = None
        self.project: Project | None = None
        self.open_error: str | None = None
        self._provider: ModelProvider | None = None
        self.welcome = welcome  # no project at project_root: offer to create one / open the sample first
        self._plan_session = plan_session
        self._quick_start = quick_start

    # ------------------------------------------------------------------ providers

    @property
    def clock(self) -> Callable[[], float]:
        return self._clock

    def build_provider(self, settings: Settings) -> ModelProvider:
        """The one place the studio builds its provider."""
        if self.provider_factory is not None:
            return self.provider_factory(settings)
        from pipeline.providers.factory import build_provider

        return build_provider(settings, self.project_root, offline=self.offline)

    @property
    def provider(self) -> ModelProvider:
        if self._provider is None:
            self._provider = self.build_provider(self.settings or Settings())
            if getattr(self._provider, "offline", False):
                self.offline = True
        return self._provider

    @property
    def provider_name(self) -> str:
        if self._provider is None and self.provider_factory is None:
            # Named without building it: building imports the provider's modules (the Anthropic SDK: seconds).
            if self.offline:
                return OFFLINE_PROVIDER_NAME
            return self.settings.provider.preset if self.settings is not None else "anthropic"
        return str(getattr(self.provider, "name", type(self.provider).__name__))

    def make_agents(self, on_retry: RetryHook | None = None) -> ModelAgents:
        """The agents for one run or rebuild, on a freshly opened project."""
        from pipeline.agents.runner import ModelAgents

        project = Project.open(self.project_root, lang=self.lang)
        return ModelAgents(project, self.settings or Settings(), self.provider, on_retry=on_retry)

    def key_missing(self) -> bool:
        """Not offline, the real provider, and its key's environment variable unset."""
        if self.offline or self.provider_factory is not None or self.settings is None:
            return False
        return self.settings.api_key(os.environ) is None

    def use_offline(self) -> None:
        """Use the offline provider from now on; the main screen's runner and header follow."""
        self.offline = True
        self._provider = self.build_provider(self.settings or Settings())
        screen = self.main_screen
        if screen is not None and screen.is_mounted:
            screen.provider_changed()

    def apply_settings(self, settings: Settings) -> None:
        """The settings file changed on disk: keep the new settings and apply its keymap."""
        self.settings = settings
        screen = self.main_screen
        if screen is not None and screen.is_mounted:
            screen.runner.settings = settings
        self.apply_keymap()

    # ------------------------------------------------------------------ planning (issue 7)

    @property
    def plan_session(self) -> PlanSession:
        return self._plan_session or self._run_plan_session

    @property
    def quick_start(self) -> QuickStart:
        return self._quick_start or self._run_quick_start

    async def _run_plan_session(
        self, root: Path, *, volume: int | None, note: str, decide: Decider, emit: EventSink
    ) -> object:
        from pipeline.planning.session import run_plan_session as run  # imported when a session runs
        settings, provider = self.settings or Settings(), self.provider
        lock = ProjectLock(ProjectPaths(root))
        lock.acquire()  # the session runs under the caller's lock, as `novel-studio plan` runs it
        try:
            return await run(
                root, settings, provider, decide, emit, volume=volume, note=note, offline=self.offline, lang=self.lang
            )
        finally:
            lock.release()

    async def _run_quick_start(
        self, root: Path, request: QuickStartRequest, *, decide: Decider, emit: EventSink
    ) -> object:
        from pipeline.planning.quick_start import run_quick_start as run  # imported when it runs
        settings, provider = self.settings or Settings(), self.provider
        lock = ProjectLock(ProjectPaths(root))
        lock.acquire()  # held for the whole flow; its trial run is given it, so it does not take it again
        try:
            return await run(
                root, settings, provider, request, decide, emit, lock=lock, lang=self.lang, offline=self.offline
            )
        finally:
            lock.release()

    def apply_keymap(self) -> None:
        keymap = self.settings.ui.keymap if self.settings is not None else {}
        defaults = binding_defaults((MainScreen.BINDINGS, self.BINDINGS, JK_BINDINGS))
        apply_keymap(self, keymap, defaults, self.lang)

    # ------------------------------------------------------------------ start

    def open_project(self) -> Screen[None]:
        from studio.config import load_settings

        try:
            self.settings = load_settings(self.project_root)
            self.project = Project.open(self.project_root, lang=self.lang)
        except StudioError as exc:
            self.open_error = describe_error(exc, self.lang)
            return ProjectErrorScreen(self.project_root, self.open_error, self.lang)
        except OSError as exc:
            self.open_error = str(exc)
            return ProjectErrorScreen(self.project_root, self.open_error, self.lang)
        if self.provider_factory is not None:
            _ = self.provider  # an injected provider (tests) says itself whether it is offline
        else:
            # The header must know whether it is offline; the provider itself is built at its first use (a run,
            # a rebuild): building it imports the Anthropic SDK and httpx (seconds of CPU) before the first paint.
            self.offline = is_offline(self.settings, self.offline)
        self.title = self.project.name
        return MainScreen(self.project, self, lang=self.lang)

    INTERRUPTED_EXIT = 130
    _hangup_watch: HangupWatch | None = None
    """The exit status after SIGINT / SIGTERM / SIGHUP or a vanished terminal (the CLI's "interrupted, progress
    can be resumed")."""

    def run(self, *, headless: bool = False, **kwargs: Any) -> None:
        """Run the app; a standard input that gives no keys and never hangs up (a file, /dev/null) is refused
        first: return code 2 (the CLI exits 1) and a message on stderr (`studio.tui.hangup`): Textual would spin at its EOF."""
        refusal = None if headless else stdin_refusal(self.driver_class, self.lang)
        if refusal is not None:
            print(refusal, file=sys.stderr)
            self.exit(return_code=2)  # never started: only sets the return code the CLI reads
            return None
        return super().run(headless=headless, **kwargs)

    def _install_signal_handlers(self) -> None:
        """SIGINT / SIGTERM / SIGHUP (Ctrl+C on `serve`, a `kill`, a closed terminal) and a terminal gone without a
        SIGHUP (`studio.tui.hangup`) stop the run as SIGINT stops `continue`: the chapter stays resumable
        (checkpoint + staging) and the studio exits 130. Not in headless tests."""
        if self.is_headless:
            return
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop = asyncio.get_running_loop()
            for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
                loop.add_signal_handler(sig, self.interrupt)
        self._hangup_watch = start_hangup_watch(self, self.terminal_gone)

    def terminal_gone(self) -> None:
        """The terminal hung up without a SIGHUP (`studio.tui.hangup`): stop as on SIGHUP, saying why in the log."""
        from studio.studio_log import log_line

        if self.project is not None:
            log_line(self.project.root, "the terminal went away (its input hung up); stopping as on SIGHUP")
        self.interrupt()

    def interrupt(self) -> None:
        """Stop the running stage (resumable) and exit with status 130."""
        if self.return_code == self.INTERRUPTED_EXIT:
            return
        screen = self.main_screen
        # A SIGINT while the app tears down (serve ending a closed tab's session) finds the runner already removed,
        # and stopped with it: nothing to stop, and no traceback.
        with contextlib.suppress(NoMatches):
            if screen is not None and screen.is_mounted and screen.running:
                screen.log_interrupt()
                screen.runner.stop()
        if not self.is_headless:  # a stuck thread cannot keep the process alive (never in a test's own process)
            from studio.exit_watchdog import bound_the_exit

            bound_the_exit(self.project_root, self.INTERRUPTED_EXIT)
        self.exit(return_code=self.INTERRUPTED_EXIT)

    def on_unmount(self) -> None:
        if self._hangup_watch is not None:
            self._hangup_watch.stop()
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop = asyncio.get_running_loop()
            for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
                loop.remove_signal_handler(sig)

    def on_mount(self) -> None:
        from studio.cli.common import looks_like_project

        self._install_signal_handlers()
        if self.welcome and not looks_like_project(self.project_root):
            from screens.welcome_screen import WelcomeScreen

            self.push_screen(WelcomeScreen(self.project_root, self.lang), self._welcomed)
            if not self.is_headless:
                self.call_after_refresh(settle_heap)  # collections back on once painted (studio.tui.heap)
            return
        self.open_main()

    def _welcomed(self, result: Path | NewNovel | ImportedNovel | None) -> None:
        from screens.welcome_screen import NewNovel
        from studio.tui.import_flow import ImportedNovel

        if result is None:
            self.exit()
            return
        self.project_root = Path(result.root if isinstance(result, NewNovel | ImportedNovel) else result)
        self.open_main()
        screen = self.main_screen
        if isinstance(result, NewNovel) and screen is not None:
            screen.post_message(QuickStartRequested(result.request))
        if isinstance(result, ImportedNovel) and screen is not None:
            screen.post_message(ExtractionRequested())  # the full depth is offered, with its estimate first

    def open_main(self) -> None:
        screen = self.open_project()
        self.push_screen(screen)
        if not self.is_headless:
            self.call_after_refresh(settle_heap)  # once painted: no full collection inside a key press (heap)
            self.call_after_refresh(self._warm_state_log)
        if isinstance(screen, MainScreen) and self.settings is not None and self.settings.ui.keymap:
            self.apply_keymap()

    def _warm_state_log(self) -> None:
        """After the first paint, which parsed only the changelog's newest lines for the last chapter's diff
        (`studio.views.state_diff`): the whole log parsed in a thread, not in the first key press that selects
        an earlier chapter. In a real terminal only (a headless App's tests count what a selection parses)."""
        from studio.views import state_diff  # loaded already: the main screen shows the diff

        self.run_worker(partial(state_diff.warm, ProjectPaths(self.project_root).changelog), thread=True,
                        group="warm-state-log", exit_on_error=False)

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        # Keep Textual's own (theme, keys, screenshot...) in the UI's language, but drop its quit: `q` asks first
        # while running.
        for command in super().get_system_commands(screen):
            if command.title.lower() == "quit":
                continue
            key = f"cmd_{command.title}"
            if key in MESSAGES:
                title, _, help_text = tr(MESSAGES, key, self.lang).partition("|")
                command = command._replace(title=title, help=help_text)
            yield command

    def _localise_binding(self, binding: Binding) -> Binding:
        """The command palette's key as the footer shows it, in the UI's language."""
        if binding.action in ("command_palette", "app.command_palette"):
            return replace(binding, description=tr(MESSAGES, "palette", self.lang),
                           tooltip=tr(MESSAGES, "palette_tip", self.lang))
        return binding

    def action_command_palette(self) -> None:
        """Textual's command palette, with its placeholder in the UI's language."""
        if self.use_command_palette and not CommandPalette.is_open(self):  # type: ignore[arg-type]
            self.push_screen(
                compat.LocalisedPalette(placeholder=tr(MESSAGES, "palette_placeholder", self.lang),
                                        no_matches=tr(MESSAGES, "no_matches", self.lang), id="--command-palette")
            )

    def action_change_theme(self) -> None:
        """Textual's theme picker, with its placeholder in the UI's language."""
        from textual.theme import ThemeProvider

        self.push_screen(compat.LocalisedPalette(providers=[ThemeProvider],
                                                 placeholder=tr(MESSAGES, "theme_placeholder", self.lang),
                                                 no_matches=tr(MESSAGES, "no_matches", self.lang)))

    def action_show_help_panel(self) -> None:
        """Textual's keys panel, with the built-in keys in the UI's language (`screens.keys_panel`)."""
        from screens.keys_panel import StudioHelpPanel

        if not self.screen.query("HelpPanel"):  # a type selector: matches the subclass too
            self.screen.mount(StudioHelpPanel(self.lang))

    def export_screenshot(self, *, title: str | None = None, simplify: bool = False) -> str:
        """Textual's SVG screenshot, without leaving 24-bit colour codes on the styles a 256-colour terminal is
        then sent (`widgets.compat.export_screenshot`)."""
        return compat.export_screenshot(self, title=title, simplify=simplify)

    def deliver_screenshot(self, filename: str | None = None, path: str | None = None,
                           time_format: str | None = None) -> str | None:
        """Textual's screenshot (an SVG saved to the downloads folder, or served to the browser), delivered
        under the studio's own name so that the toasts that report it are ours, in the UI's language:
        Textual's answer `DeliveryComplete` / `DeliveryFailed` named "screenshot" with English toasts."""
        stamp = time.strftime(time_format or "%Y-%m-%dT%H_%M_%S")
        return self.deliver_text(
            io.StringIO(self.export_screenshot()),
            save_directory=path,
            save_filename=filename or f"novel-studio_{stamp}.svg",
            open_method="browser",
            mime_type="image/svg+xml",
            name=SCREENSHOT_DELIVERY,
        )

    @on(DeliveryComplete)
    def _screenshot_saved(self, event: DeliveryComplete) -> None:
        if event.name == SCREENSHOT_DELIVERY:
            title = tr(MESSAGES, "screenshot_title", self.lang)
            if event.path is None:
                self.notify(tr(MESSAGES, "screenshot_delivered", self.lang), title=title, markup=False)
            else:
                self.notify(tr(MESSAGES, "screenshot_saved", self.lang, path=event.path), title=title,
                            markup=False)

    @on(DeliveryFailed)
    def _screenshot_failed(self, event: DeliveryFailed) -> None:
        if event.name == SCREENSHOT_DELIVERY:
            self.notify(tr(MESSAGES, "screenshot_failed", self.lang), title=tr(MESSAGES, "screenshot_title", self.lang),
                        severity="error", markup=False)

    @property
    def main_screen(self) -> MainScreen | None:
        for screen in self.screen_stack:
            if isinstance(screen, MainScreen):
                return screen
        return None

