"""Issue 12's last small texts (item 4 and 8): English counts take their singular, no English text says "(s)",
the English recovery text speaks of the author's steps and not of the pipeline's agents, the English trial facts
hold no Chinese punctuation of their own, and the import's name list shows ticked and unticked rows apart
without colour."""

from __future__ import annotations

import importlib
import pkgutil
import re
from pathlib import Path

import pytest
from textual.widgets import SelectionList

from pipeline.planning.quick_start import trial_question
from screens.export_dialog import ExportDialog
from screens.import_names import ImportNamesScreen, NameRow
from screens.search_screen import MESSAGES as SEARCH
from studio.i18n import Catalog, Lang, tr_count
from studio.paths import ProjectPaths
from studio.planning.review_report import StorylineRow, VolumeReview, build_review, render_review
from studio.project import Project
from studio.recovery import RecoveryAction, RecoveryKind
from studio.tui.plan_text import MESSAGES as PLAN_TEXT
from tests.snapshot_apps.dialogs_app import HostApp
from tests.snapshot_apps.screens_app import snapshot_sample
from widgets import compat
from widgets.radio_button import MarkedRadioButton
from widgets.studio_header import HeaderInfo, render_header

PACKAGES = ("studio", "screens", "widgets", "pipeline")
AGENTS = re.compile(r"ChapterWriter|Summarizer|StyleRefiner|QualityJudge|\bwriter\b")
CJK_PUNCTUATION = re.compile(r"[：，。；、（）“”]")


def _catalogs() -> list[tuple[str, str, Catalog]]:
    """Every `MESSAGES`-style catalog (a dict of (Chinese, English) pairs) of the studio's packages."""
    found = []
    for package in PACKAGES:
        root = importlib.import_module(package)
        for info in pkgutil.walk_packages(root.__path__, f"{package}."):
            module = importlib.import_module(info.name)
            for name, value in vars(module).items():
                if (isinstance(value, dict) and value
                        and all(isinstance(v, tuple) and len(v) == 2 and all(isinstance(s, str) for s in v)
                                for v in value.values())):
                    found.append((info.name, name, value))
    return found


def test_no_english_text_says_s_in_brackets() -> None:
    catalogs = _catalogs()
    assert len(catalogs) > 50  # the walk found the catalogs
    said = [f"{module}.{name}[{key!r}]: {en}" for module, name, catalog in catalogs
            for key, (_, en) in catalog.items() if "(s)" in en]
    assert not said, "\n".join(said)


@pytest.mark.parametrize(("catalog", "key", "one", "many"), [
    (SEARCH, "count", "1 hit", "83 hits"),
    (PLAN_TEXT, "summary_warnings", "1 warning at the end", "2 warnings at the end"),
    (PLAN_TEXT, "summary_overwrites", "replaces 1 hand-edited file", "replaces 2 hand-edited files"),
])
def test_english_counts_take_their_singular(catalog: Catalog, key: str, one: str, many: str) -> None:
    assert tr_count(catalog, key, "en", 1, n=1) == one
    count = int(many.split()[0]) if many[0].isdigit() else 2
    assert tr_count(catalog, key, "en", count, n=count) == many
    assert tr_count(catalog, key, "zh", 1, n=1) == tr_count(catalog, key, "zh", 2, n=2).replace("2", "1")


def _review(written: int) -> VolumeReview:
    line = StorylineRow(id="main-arc", name="主线", role="primary", written=written, target=3, goal="")
    return VolumeReview(volume=1, first=1, last=3, chapters=[], planted=[], resolved=[], overdue=[],
                        storylines=[line], violations=[], findings=[], checks_ran=False, finished=False)


def test_the_review_says_one_chapter() -> None:
    assert "- 主线 (main-arc, primary): 1 chapter of 3 planned" in render_review(_review(1), "en")
    assert "- 主线 (main-arc, primary): 2 chapters of 3 planned" in render_review(_review(2), "en")
    assert "本卷 1 章/计划 3 章" in render_review(_review(1), "zh")


@pytest.mark.parametrize("kind", [RecoveryKind.RESUME_SUMMARIZER, RecoveryKind.RESUME_REFINER,
                                  RecoveryKind.RESUME_JUDGE, RecoveryKind.RESUME_WRITER])
@pytest.mark.parametrize("revision_kind", [None, "revision", "polish", "rewrite"])
def test_the_recovery_text_names_the_authors_steps(kind: RecoveryKind, revision_kind: str | None) -> None:
    action = RecoveryAction(kind, 7, 2, revision_kind, ("summary", "refine"), reason="for the log")  # type: ignore[arg-type]
    english, chinese = action.describe("en"), action.describe("zh")
    assert not AGENTS.search(english), english
    assert not CJK_PUNCTUATION.search(english), english
    assert not re.search(r"[A-Za-z]", chinese), chinese  # no identifier (revision, polish ...) in the Chinese


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_trial_facts_use_the_punctuation_of_their_language(tmp_path: Path, lang: Lang) -> None:
    question = trial_question(ProjectPaths(snapshot_sample(tmp_path / "novel")))
    raw = question.facts if lang == "zh" else question.data["facts_en"]
    assert isinstance(raw, list)
    facts = [str(f) for f in raw]
    style = next(f for f in facts if f.startswith(("风格", "style")))
    cast = next(f for f in facts if f.startswith(("角色", "characters")))
    if lang == "en":
        # the directives are the author's style as the profile words it (Chinese); what the studio adds is English
        assert re.match(r"style: own sample chapters: ", style), style
        assert "：" not in style.split(": ", 2)[1]
        assert not CJK_PUNCTUATION.search(cast.split(": ", 1)[1].replace("沈照", "")), cast
        assert "沈照 (shen-zhao)" in cast
    else:
        assert style.startswith("风格：自己的样章：")
        assert "沈照（shen-zhao）" in cast


async def test_ticked_and_unticked_names_differ_without_colour() -> None:
    rows = [NameRow("林枫", "人名 · 212 次", True), NameRow("青云城", "地名/势力 · 40 次", False)]
    app = HostApp(lambda: ImportNamesScreen(rows, "zh"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        lines = compat.screen_lines(app.screen)
        ticked = next(line for line in lines if "林枫" in line)
        unticked = next(line for line in lines if "青云城" in line)
        assert "[x] 林枫" in ticked, ticked
        assert "[ ] 青云城" in unticked, unticked
        await pilot.press("space")  # untick the highlighted first row
        await pilot.pause()
        assert not app.screen.query_one(SelectionList).selected
        lines = compat.screen_lines(app.screen)
        assert "[ ] 林枫" in next(line for line in lines if "林枫" in line)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_header_names_the_offline_provider_in_the_ui_language(lang: Lang) -> None:
    text = render_header(HeaderInfo(title="雾港守灯人", provider="offline", offline=True, prompt_updates=2),
                         lang, width=160).plain
    if lang == "zh":
        assert "模型：离线" in text and "offline" not in text, text
    else:
        assert "provider: offline" in text and "prompt updates: 2" in text, text


async def test_the_chosen_export_format_shows_without_colour(tmp_path: Path) -> None:
    root = snapshot_sample(tmp_path / "novel")
    app = HostApp(lambda: ExportDialog(root, "雾港守灯人", "en", chapters=range(1, 4)))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        line = next(line for line in compat.screen_lines(app.screen) if "Markdown" in line)
        assert "▐●▌ TXT" in line and "▐ ▌ Markdown" in line, line
        app.screen.query_one("#fmt-md", MarkedRadioButton).value = True
        await pilot.pause()
        line = next(line for line in compat.screen_lines(app.screen) if "Markdown" in line)
        assert "▐ ▌ TXT" in line and "▐●▌ Markdown" in line, line


def test_the_review_speaks_the_language_of_its_reader(tmp_path: Path) -> None:
    """No storyline role or check severity as an identifier in the Chinese review, no Chinese brackets around the
    English review's threads, and each thread and goal on a line of its own (one line of five threads joined by
    、 cannot wrap)."""
    review = build_review(Project.open(snapshot_sample(tmp_path / "novel")), 1)
    chinese, english = render_review(review, "zh"), render_review(review, "en")
    assert "（main-arc，主线）" in chinese and "primary" not in chinese
    assert "第2章 · 高 · 疑似人名写错" in chinese and "name_variant" not in chinese and "/high" not in chinese
    assert "  - bell-in-fog（雾中的铜铃声" in chinese and "  - 目标：沈照从外行成为第七盏灯的灯主" in chinese
    assert "  - bell-in-fog (雾中的铜铃声" in english and "- Ch 2 · high · " in english
    assert "bell-in-fog（" not in english
