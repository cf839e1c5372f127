"""Findings, waivers, the name registry and the cheap checks (punctuation, blacklist, tics, length)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pytest

from studio.checks.matcher import Entry, Matcher
from studio.checks.names import NameRegistry
from studio.checks.prose import BlacklistCheck, LengthCheck, StructuralTicCheck
from studio.checks.punctuation import PunctuationCheck, fix_punctuation
from studio.checks.registry import ChapterText, CheckContext
from studio.checks.run import load_chapter, run_checks, write_chapter_reports
from studio.errors import FormatError
from studio.models.character import CharacterFile
from studio.models.check_allow import AllowEntry, CheckAllowList
from studio.models.findings import ChecksReport, Finding
from studio.models.names import NamesFile
from studio.paths import ProjectPaths


def _registry() -> NameRegistry:
    chars = {
        "lin-feng": CharacterFile(display_name="林枫", aliases=["枫哥"]),
        "su-wan": CharacterFile(display_name="苏婉儿", aliases=["苏婉", "雨"]),
    }
    names = NamesFile.parse_data(
        {
            "entities": [
                {"name": "青云宗", "kind": "faction", "aliases": ["青云门"]},
                {"name": "林枫", "kind": "item"},
            ]
        }
    )
    return NameRegistry.from_sources(chars, names)


def _ctx(*texts: str, blacklist: Iterable[Entry] = (), **kw: object) -> CheckContext:
    chapters = [ChapterText(i + 1, t) for i, t in enumerate(texts)]
    return CheckContext(chapters=chapters, registry=_registry(), blacklist=Matcher(blacklist), **kw)  # type: ignore[arg-type]


def test_registry_collects_aliases_reports_clashes_and_skips_one_character_names() -> None:
    reg = _registry()
    assert set(reg.names()) == {"林枫", "枫哥", "苏婉儿", "苏婉", "青云宗", "青云门"}
    assert reg.skipped == ["雨"]
    assert reg.problems and "林枫" in reg.problems[0]
    assert reg.owner("青云门") is not None and reg.owner("青云门").kind == "faction"  # type: ignore[union-attr]
    assert reg.matcher().count("苏婉儿来了，苏婉走了。") == {"character:su-wan": 2}


def test_names_file_rejects_bad_ids_with_a_path() -> None:
    with pytest.raises(FormatError) as err:
        NamesFile.parse_data({"entities": [{"name": "x", "id": "../up"}]}, "world/names.json")
    assert "$.entities[0].id" in str(err.value.problems[0])


def test_punctuation_findings_and_fix() -> None:
    text = "他说,你来了?好吧...走吧。版本3.14不改。\n“没关好\n旁白。\n多余的”。\n"
    ctx = _ctx(text)
    found = {(f.text, f.count) for f in PunctuationCheck().run(ctx)}
    assert (",", 1) in found and ("?", 1) in found and ("...", 1) in found
    assert ("“", 1) in found and ("”", 1) in found
    assert not any(f.text == "." for f in PunctuationCheck().run(ctx))  # 3.14 is left alone
    fixed = fix_punctuation(text)
    assert fixed.startswith("他说，你来了？好吧……走吧。版本3.14不改。")
    assert fix_punctuation('他说"好"。') == "他说“好”。"


def test_multi_paragraph_speech_is_not_unpaired() -> None:
    text = "“第一段。\n“第二段。\n“第三段。”\n"
    assert list(PunctuationCheck().run(_ctx(text))) == []


def test_blacklist_findings_group_per_phrase_and_density_for_limited() -> None:
    text = "他不禁一笑。她不禁叹气。他微微点头，微微一笑，微微皱眉。\n"
    entries = [
        Entry.parse("不禁"),
        Entry.parse("微微", tier="limited"),
        Entry.parse("敏感词", category="platform-sensitive"),
    ]
    found = list(BlacklistCheck().run(_ctx(text, blacklist=entries)))
    by_kind = {f.kind: f for f in found}
    assert by_kind["blacklist"].text == "不禁" and by_kind["blacklist"].count == 2
    assert (by_kind["blacklist"].paragraph, by_kind["blacklist"].offset) == (1, 1)
    assert by_kind["blacklist_density"].count == 3
    sensitive = list(BlacklistCheck().run(_ctx("这是敏感词。", blacklist=entries)))
    assert sensitive[0].severity == "medium"


def test_structural_tics_and_repeats() -> None:
    text = (
        "他不是害怕，而是愤怒。她不是冷漠，而是疲惫。\n"
        + "山门前的石阶很长。" * 4
        + "\n他走了——她来了——风停了——雨落了。\n"
    )
    kinds = {(f.kind, f.text) for f in StructuralTicCheck().run(_ctx(text))}
    assert ("structural_tic", "不是") in kinds
    assert ("structural_tic", "——") in kinds
    assert any(k == "repeated_phrase" for k, _ in kinds)


def test_length_and_empty_chapters() -> None:
    found = list(LengthCheck().run(_ctx("# 第1章\n", "正文。" * 10, min_chars=50, max_chars=100)))
    assert [(f.chapter, f.kind) for f in found] == [(1, "empty_chapter"), (2, "chapter_length")]


def test_waivers_here_and_deliberate_never_come_back() -> None:
    text = "他说,好的。\n"
    ctx = _ctx(text)
    first = run_checks(ctx, checks=[PunctuationCheck()])
    assert len(first.findings) == 1
    allow = CheckAllowList()
    allow.ignore_here(first.findings[0])
    again = run_checks(_ctx("新的一段。\n" + text), checks=[PunctuationCheck()], allow=allow)
    assert again.findings == [] and again.stats["waived"] == 1  # still waived after a paragraph was added
    elsewhere = run_checks(_ctx("别处,也有。\n"), checks=[PunctuationCheck()], allow=allow)
    assert len(elsewhere.findings) == 1  # "here" is one place only
    allow.deliberate(elsewhere.findings[0], reason="作者的风格")
    assert run_checks(_ctx("别处,也有。\n"), checks=[PunctuationCheck()], allow=allow).findings == []
    with pytest.raises(ValueError):
        AllowEntry(mode="deliberate", text="x")


def test_a_crashing_check_is_a_finding_not_a_crash() -> None:
    class Broken:
        kind = "broken"

        def run(self, ctx: CheckContext) -> list[Finding]:
            raise RuntimeError("boom")

    report = run_checks(_ctx("正文。"), checks=[Broken(), PunctuationCheck()])
    assert [f.kind for f in report.findings] == ["check_failed"]


def test_other_encodings_are_a_clear_finding(tmp_path: Path) -> None:
    path = tmp_path / "chapter-001.md"
    path.write_bytes("林枫走进了青云宗的大门。".encode("gbk"))
    loaded = load_chapter(path, 1, "zh")
    assert isinstance(loaded, Finding) and loaded.kind == "unreadable" and "GB18030" in loaded.message


def test_chapter_reports_are_written_per_chapter(tmp_path: Path) -> None:
    report = ChecksReport(findings=[Finding(kind="punctuation", chapter=2, text=",")])
    paths = ProjectPaths(tmp_path)
    write_chapter_reports(paths, report, [1, 2])
    assert ChecksReport.load(paths.checks_log(1)).findings == []
    assert ChecksReport.load(tmp_path / "logs" / "chapter-002" / "checks.json").findings[0].text == ","


def test_check_after_commit_saves_the_chapter_report_and_never_raises(tmp_path: Path) -> None:
    from studio.checks.run import check_after_commit
    from studio.init_project import init_project
    from studio.project import Project

    root = tmp_path / "novel"
    init_project(root, sample=True)
    (root / "chapters" / "chapter-003.md").write_text("# 第3章\n\n　　他说,好。\n", encoding="utf-8")
    project = Project.open(root)
    report = check_after_commit(project, 3)
    assert report is not None and [f.text for f in report.findings] == [","]
    assert ChecksReport.load(project.paths.checks_log(3)).findings[0].suggestion == "，"
    (root / "world" / "names.json").write_text("{broken", encoding="utf-8")
    assert check_after_commit(project, 3) is None  # a broken names file does not fail the commit
