"""`novel-studio check`: read-only, exit statuses, JSON shape, Chinese by default, waivers, bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from studio.cli.main import main
from studio.models.check_allow import CheckAllowList
from studio.models.findings import ChecksReport


@pytest.fixture(autouse=True)
def _own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The new-name and jieba caches go to this test's folder."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _add_chapter(root: Path, n: int, text: str | bytes) -> None:
    path = root / "chapters" / f"chapter-{n:03d}.md"
    path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))


def test_check_is_read_only_and_exits_zero_with_findings(
    sample: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _add_chapter(sample, 3, "# 第3章 试\n\n　　他站在门口,望着远方...\n")
    before = _tree(sample)
    assert main(["check", "--project", str(sample)]) == 0
    out = capsys.readouterr().out
    assert "检查了 3 章" in out and "半角「,」" in out and "第 3 章" in out
    assert _tree(sample) == before  # nothing written, no lock taken


def test_json_output_and_range(sample: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _add_chapter(sample, 3, "# 第3章\n\n　　他说,好。\n")
    assert main(["check", "--project", str(sample), "--json", "--from", "3", "--to", "3"]) == 0
    report = ChecksReport.parse_data(json.loads(capsys.readouterr().out))
    assert report.stats["chapters"] == 1
    assert {f.chapter for f in report.findings} == {3}
    comma = next(f for f in report.findings if f.text == ",")
    assert (comma.paragraph, comma.offset, comma.suggestion) == (1, 2, "，")


def test_fail_on_severity(sample: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _add_chapter(sample, 3, "# 第3章\n\n　　他说,好。\n")
    assert main(["check", "--project", str(sample), "--fail-on", "high"]) == 0
    assert main(["check", "--project", str(sample), "--fail-on", "low"]) == 1
    capsys.readouterr()


def test_waived_findings_do_not_come_back(sample: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _add_chapter(sample, 3, "# 第3章\n\n　　他说,好。\n")
    main(["check", "--project", str(sample), "--json", "--from", "3"])
    report = ChecksReport.parse_data(json.loads(capsys.readouterr().out))
    allow = CheckAllowList()
    for finding in report.findings:
        allow.deliberate(finding, reason="作者有意为之")
    allow.save(sample / "checks-allow.json")
    main(["check", "--project", str(sample), "--json", "--from", "3"])
    again = ChecksReport.parse_data(json.loads(capsys.readouterr().out))
    assert again.findings == [] and again.stats["waived"] == len(report.findings)


def test_bad_input_is_reported_not_a_crash(sample: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _add_chapter(sample, 3, "林枫走进了青云宗的大门。".encode("gbk"))
    _add_chapter(sample, 4, "")
    _add_chapter(sample, 5, "# 第5章\n\n" + "雨。" * 130_000 + "\n")
    assert main(["check", "--project", str(sample), "--lang", "en", "--from", "3"]) == 0
    out = capsys.readouterr().out
    assert "GB18030" in out and "empty chapter  no body text" in out and "unusually long" in out


def test_usage_errors(sample: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--project", str(sample), "--from", "5", "--to", "2"]) == 2
    assert main(["check", "--project", str(sample), "--from", "zero"]) == 2
    capsys.readouterr()


def test_a_range_is_judged_against_the_whole_book(sample: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _add_chapter(
        sample, 3, "# 第3章\n\n　　沈昭推开门，屋里没有人。\n"
    )  # 沈照 appears 53 times in chapters 1-2
    assert main(["check", "--project", str(sample), "--json", "--from", "3"]) == 0
    report = ChecksReport.parse_data(json.loads(capsys.readouterr().out))
    variant = next(f for f in report.findings if f.kind == "name_variant")
    assert (variant.chapter, variant.text, variant.suggestion, variant.paragraph, variant.offset) == (
        3,
        "沈昭",
        "沈照",
        1,
        0,
    )


def test_quick_skips_the_new_names_and_judge_quotes_are_checked(
    sample: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    eval_path = sample / "evaluations" / "chapter-001-eval.json"
    data = json.loads(eval_path.read_text(encoding="utf-8"))
    data["scores"]["pacing"]["evidence"] = "沈照拔出长剑，一剑斩落了天上的月亮。"  # invented
    eval_path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    assert main(["check", "--project", str(sample), "--json", "--quick"]) == 0
    report = ChecksReport.parse_data(json.loads(capsys.readouterr().out))
    kinds = [f.kind for f in report.findings]
    assert "new_name" not in kinds
    missing = [f for f in report.findings if f.kind == "judge_quote_missing"]
    assert [(f.chapter, f.text) for f in missing] == [(1, "沈照拔出长剑，一剑斩落了天上的月亮。")]
    assert main(["check", "--project", str(sample), "--json"]) == 0
    assert "new_name" in {f["kind"] for f in json.loads(capsys.readouterr().out)["findings"]}


def test_a_broken_names_file_is_a_clear_error(sample: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (sample / "world" / "names.json").write_text('{"entities": [{"kind": "item"}]}', encoding="utf-8")
    assert main(["check", "--project", str(sample), "--quick"]) == 1
    err = capsys.readouterr().err
    assert "names.json" in err and "$.entities[0].name" in err


def test_registered_names_silence_new_names(sample: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (sample / "world" / "names.json").write_text(
        json.dumps({"entities": [{"name": "雾港", "kind": "location"}]}, ensure_ascii=False), encoding="utf-8"
    )
    (sample / "characters" / "active" / "shen-huaishan.json").write_text(
        json.dumps({"display_name": "沈怀山", "aliases": ["沈老爷子"]}, ensure_ascii=False), encoding="utf-8"
    )
    assert main(["check", "--project", str(sample), "--json"]) == 0
    kinds = [f["kind"] for f in json.loads(capsys.readouterr().out)["findings"]]
    assert "new_name" not in kinds
