"""The import's check summary names the finding kinds as `novel-studio check` does, in the UI language."""

from __future__ import annotations

from studio.cli.check_cmd import KIND_LABELS
from studio.cli.import_cmd import findings_summary


def test_summary_uses_the_check_catalog_names() -> None:
    findings = {"recent_repeat": 27, "punctuation": 3}
    zh = findings_summary(findings, "zh")
    assert zh == "跨章重复用语 27，标点 3"
    assert "recent_repeat" not in zh
    assert findings_summary(findings, "en") == "repeated across chapters 27, punctuation 3"


def test_summary_every_known_kind_is_named_and_unknown_kinds_kept() -> None:
    for kind in KIND_LABELS:
        assert kind not in findings_summary({kind: 1}, "zh")
    assert findings_summary({"brand_new_kind": 2}, "zh") == "brand_new_kind 2"  # never dropped
    assert findings_summary({}, "zh") == "没有发现问题"
