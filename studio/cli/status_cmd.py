"""`novel-studio status`: where the novel stands (read-only; PRD `/novel:status`).

A repeat `status` with nothing changed prints the last output again (`studio.status_memo`): `early` runs before
the CLI resolves the language (which loads the settings' models) and imports only light modules (no pydantic).
When only chapter text and evaluations changed since the last full run (the memo's layout key is the same),
`early` recounts the 字数 (`studio.status_words.recount`) and the scores (`studio.status_scores.rescore`, which
imports the evaluation model only for an evaluation whose score is not cached) into the report that run kept
and renders it (`studio.status_text`); any problem on the way (a chapter or an evaluation that cannot be read, a
kept report that lists problems or does not render) means the full run. A full run keeps its output and its
report for the next time.

A full run is one short process that builds about twenty pydantic model classes, so two interpreter costs are
left out of it (issue 12: ≤ 0.3 s on 500 chapters):
- pydantic's plugin discovery (`_without_pydantic_plugins`): at its first model class pydantic imports
  `importlib.metadata` and scans every installed distribution's entry points for `pydantic` plugins (about 12 ms,
  4% of the run). The studio registers none and a read-only report has no use for one, so status runs without
  plugins, as `PYDANTIC_DISABLE_PLUGINS=__all__` would, and without the scan's imports. An author who named
  plugins in that variable (a list of names) keeps pydantic's own loader.
- the cyclic garbage collector (`_no_cycle_collection`): pydantic's class building makes many short-lived
  objects, and the collections they trigger cost about 10 ms; the report holds no cycles worth freeing in a run
  this short, so collection is paused while `run` builds the report and restored after it.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import json
import os
import sys
import types
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from studio.cli.common import add_common_arguments, help_lang, looks_like_project, project_root, resolve_lang
from studio.i18n import Catalog, Lang, normalize_lang, tr

if TYPE_CHECKING:
    from studio.status_memo import StatusMemo

MESSAGES: Catalog = {
    "help": (
        "查看进度：卷章、字数、评分、伏笔、故事线、锁与成本（只读）",
        "show progress: volume and chapter, word count, scores, foreshadowing, storylines, lock and cost (read-only)",
    ),
}

_MEMO = "_status_memo"  # the probe `early` made, for `run` to save the output under


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    lang = help_lang()
    parser = subparsers.add_parser("status", help=tr(MESSAGES, "help", lang), description=tr(MESSAGES, "help", lang))
    add_common_arguments(parser)
    parser.set_defaults(func=run, early=early)


def early(args: argparse.Namespace) -> int | None:
    """Print the memoised output when nothing status depends on has changed (exit 0); None: run in full."""
    from studio.status_memo import StatusMemo, variant

    _without_pydantic_plugins()  # before anything below may load the settings' models
    if "studio.prompt_pins" in sys.modules and sys.modules["studio.prompt_pins"].PROMPTS_FOLDER is not None:
        return None  # another prompt folder set in this process (tests): not part of the key
    root = project_root(args)
    if not looks_like_project(root):
        return None  # the full run says what is wrong; a home folder is never walked
    as_json = bool(getattr(args, "json", False))
    memo = StatusMemo.probe(root, variant(getattr(args, "lang", None), as_json, str(root)))
    text = memo.replay()
    if text is None:
        text = _refreshed(memo, root, as_json)
    if text is not None:
        sys.stdout.write(text + "\n")
        return 0
    setattr(args, _MEMO, memo)
    recorded = _recorded_lang(args, root)
    if recorded is not None:
        args.lang = recorded  # what `resolve_lang` would find in the settings, without building their models
    return None


def _refreshed(memo: StatusMemo, root: Path, as_json: bool) -> str | None:
    """The kept report of this layout with the chapters' 字数 counted and the evaluations scored again, as
    printed (and kept); None: the full run (see the module rules)."""
    from studio.status_memo import KeptReport
    from studio.status_scores import rescore
    from studio.status_text import render_data
    from studio.status_words import recount

    kept = memo.kept_report()
    if kept is None or kept.data.get("problems") != []:
        return None  # a chapter's or evaluation's read problem may be among them: the full run says what it is now
    counted = recount(root)
    if counted is None or counted[1] != kept.data.get("chapters_committed"):
        return None
    scores: dict[str, Any] = {}
    if not kept.scores or kept.scores != memo.scores:  # an evaluation changed since these scores were read
        rescored = rescore(root)
        if rescored is None:
            return None
        scores = rescored
    data = {**kept.data, "total_chars": counted[0], **scores}
    try:
        text = _dumps(data) if as_json else render_data(data, "en" if kept.lang == "en" else "zh")
    except (KeyError, TypeError, ValueError, AttributeError, IndexError):
        return None  # a kept report of another shape (a memo edited by hand): not believed
    memo.save(text, KeptReport(kept.lang, data, memo.scores))
    return text


def _recorded_lang(args: argparse.Namespace, root: Path) -> Lang | None:
    """The settings' language as recorded when they last loaded without a problem under the same files and
    variables (`studio.validated_files.SettingsRecord`): `resolve_lang` then need not build the settings'
    models. None: --lang or NOVEL_STUDIO_LANG decide (`resolve_lang`'s order), or no such record."""
    if normalize_lang(getattr(args, "lang", None)) or normalize_lang(os.environ.get("NOVEL_STUDIO_LANG")):
        return None
    from studio.validated_files import SettingsRecord

    lang = SettingsRecord(root).lang()
    return "en" if lang == "en" else "zh" if lang == "zh" else None


def _dumps(data: Mapping[str, Any]) -> str:
    """`--json`'s text of the report's JSON form."""
    return json.dumps(data, ensure_ascii=False, indent=2)


_PLUGIN_LOADER = "pydantic.plugin._loader"  # the module pydantic asks for `get_plugins()` at each model class
_PLUGINS_OFF = ("__all__", "1", "true")  # PYDANTIC_DISABLE_PLUGINS values that turn every plugin off


def _without_pydantic_plugins() -> bool:
    """Give pydantic a plugin loader that finds no plugin (see the module rules), unless pydantic's loader is
    loaded already (another command ran in this process: its choice stays) or `PYDANTIC_DISABLE_PLUGINS` names
    the plugins to leave out (the author has plugins). True when this process now runs without plugins."""
    setting = os.environ.get("PYDANTIC_DISABLE_PLUGINS")
    if _PLUGIN_LOADER in sys.modules or (setting is not None and setting not in _PLUGINS_OFF):
        return False
    loader = types.ModuleType(_PLUGIN_LOADER, "No pydantic plugins for `novel-studio status` (studio.cli.status_cmd).")
    loader.get_plugins = lambda: ()  # type: ignore[attr-defined]  # pydantic's own answer under `__all__`
    loader.__dict__["__getattr__"] = _real_loader_attribute  # a name a later pydantic adds (PEP 562)
    sys.modules[_PLUGIN_LOADER] = loader
    return True


def _real_loader_attribute(name: str) -> object:
    """Any other name a pydantic release imports from its loader module comes from the real module, so a newer
    pydantic still imports (it then pays for its scan) instead of failing on a name this stand-in lacks."""
    if name.startswith("__"):
        raise AttributeError(name)
    del sys.modules[_PLUGIN_LOADER]
    return getattr(importlib.import_module(_PLUGIN_LOADER), name)


@contextmanager
def _no_cycle_collection() -> Iterator[None]:
    """The cyclic garbage collector paused for the block (see the module rules), as it was after it."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def run(args: argparse.Namespace) -> int:
    """Print the status (text, or JSON with --json). A missing project or a broken file raises a
    StudioError, which main() reports without a traceback (exit 1)."""
    with _no_cycle_collection():
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    from studio.project import Project
    from studio.status import build_status
    from studio.status_memo import KeptReport
    from studio.status_text import render_data

    root = project_root(args)
    lang = resolve_lang(args, root)
    project = Project.open(root, lang=lang, for_status=True)
    # Prompt versions from the installed prompt files' names (`studio.prompt_pins.installed_versions`): status
    # stays light (no `pipeline`, no template parsing); runs check the templates themselves.
    report = build_status(project, lang=lang)
    data = report.model_dump(mode="json")
    text = _dumps(data) if getattr(args, "json", False) else render_data(data, lang)
    print(text)
    memo = getattr(args, _MEMO, None)
    if memo is not None:
        memo.save(text, KeptReport(lang, data, memo.scores))
    return 0
