"""The shared check tools: paragraph numbering, the dictionary matcher and the prose metrics."""

from __future__ import annotations

import pytest

from studio.checks.matcher import Entry, Matcher, blacklist_matcher, entries_from_blacklist
from studio.checks.metrics import dialogue_ratio, dialogue_spans, prose_metrics, repeated_phrases
from studio.checks.paragraphs import Paragraphs
from studio.models.blacklist import AiBlacklist
from studio.models.style_profile import StyleProfile
from studio.wordcount import word_count

CHAPTER = (
    "# 第1章 风起\n"
    "\n"
    "　　林枫推开门。\n"
    "<!-- 作者备注\n跨行注释 -->\n"
    "\n"
    "---\n"
    "　　“你来了。”苏婉说。\n"
    "## 小节\n"
    "最后一段。\n"
)


def test_paragraphs_exclude_headings_comments_rules_and_count_from_one() -> None:
    paras = Paragraphs(CHAPTER)
    assert [p.text for p in paras] == ["林枫推开门。", "“你来了。”苏婉说。", "最后一段。"]
    assert [p.number for p in paras] == [1, 2, 3]
    # consistent with 字数: the paragraphs hold exactly the counted characters
    assert sum(len(p.text) for p in paras) == word_count(CHAPTER)


def test_locate_and_position_round_trip() -> None:
    paras = Paragraphs(CHAPTER)
    pos = CHAPTER.index("苏婉")
    assert paras.locate(pos) == (2, 6)
    assert paras.position(2, 6) == pos
    assert CHAPTER[paras.position(1, 0) or 0] == "林"
    assert paras.locate(CHAPTER.index("第1章")) is None  # the title is no paragraph
    assert paras.position(4, 0) is None and paras.position(1, 99) is None


def test_matcher_longest_match_wins_and_counts_once() -> None:
    m = Matcher([Entry.parse("仿佛"), Entry.parse("时间仿佛静止了")])
    assert m.count("时间仿佛静止了，他仿佛没听见。") == {"时间仿佛静止了": 1, "仿佛": 1}


def test_matcher_shapes_stay_inside_a_sentence() -> None:
    m = Matcher([Entry.parse("一股…涌上心头")])
    assert m.count("一股暖意涌上心头。") == {"一股…涌上心头": 1}
    assert m.count("一股风。涌上心头") == {}
    assert m.count("一股" + "很" * 20 + "涌上心头") == {}


def test_matcher_bad_regex_is_a_problem_not_a_crash() -> None:
    m = Matcher([Entry("([", "pattern"), Entry.parse("不禁")])
    assert m.problems and m.count("不禁") == {"不禁": 1}


def test_blacklist_adapter_reads_tiers_categories_patterns_and_whitelist() -> None:
    bl = AiBlacklist.parse_data(
        {
            "words": [
                "不禁",
                {"word": "微微", "category": "副词", "tier": "limited"},
                {"word": "心中一暖式", "pattern": "心中一[暖动凛]"},
                "仿佛",
            ],
            "whitelist": ["仿佛"],
        }
    )
    entries = {e.ref: e for e in entries_from_blacklist(bl)}
    assert set(entries) == {"不禁", "微微", "心中一暖式"}
    assert entries["微微"].tier == "limited" and entries["微微"].category == "副词"
    assert entries["不禁"].tier == "banned"
    assert blacklist_matcher(bl).count("他心中一凛，仿佛") == {"心中一暖式": 1}


def test_dialogue_quotes_are_matched_within_a_paragraph() -> None:
    text = "“第一段话，\n“第二段话。”\n旁白。”\n"
    paras = Paragraphs(text)
    spans = dialogue_spans(paras)
    assert [text[a:b] for a, b in spans] == ["第一段话，", "第二段话。"]
    # 10 characters of speech of 17 counted (quotes and narration included)
    assert dialogue_ratio(text) == pytest.approx(10 / 17)


def test_dialogue_ratio_is_a_share_and_the_profile_says_so() -> None:
    assert dialogue_ratio("“全是对话”") == pytest.approx(4 / 6)
    assert dialogue_ratio("") == 0.0
    StyleProfile(dialogue_ratio=0.4)
    with pytest.raises(ValueError):
        StyleProfile(dialogue_ratio=1.5)  # the old "dialogue / narration" reading


def test_metrics_known_answers() -> None:
    text = (
        "# 第2章\n"
        "他不禁笑了。“我不禁想起你。”\n"
        "他不是害怕，而是愤怒。\n"
        "他走了。他走了。他走了——走了。\n"
        "风很大，风很冷，风很急，天黑了。\n"
    )
    m = prose_metrics(text, Matcher([Entry.parse("不禁")]), min_chars=10, max_chars=40)
    d = m.as_dict()
    assert d["blacklist_hits"] == {"不禁": 2}
    assert (m.blacklist.narration, m.blacklist.dialogue) == (1, 1)
    assert d["not_but"] == 1
    assert m.dashes == 1
    assert d["triple_parallel"] == 1
    openings = d["repeated_openings"]
    assert isinstance(openings, int) and openings >= 1
    assert d["length"] == "long"
    assert m.chars == word_count(text)


def test_repeated_phrases_skip_names() -> None:
    text = "林枫拔出长剑。" * 3 + "他慢慢走过去。" * 3
    phrases = dict(repeated_phrases(text, exclude=["林枫"]))
    assert "他慢慢走过" in phrases and not any("林枫" in p for p in phrases)


@pytest.mark.parametrize(
    "line",
    [
        "1. 列表项",
        "> 引用",
        "**粗体**",
        "\u200b",
        "---",
        "***",
        "<br>",
        "[链接](http://x)",
        "![图](x.png)",
        "正文",
        "3.14 米",
    ],
)
def test_a_line_is_a_paragraph_exactly_when_it_has_body_text(line: str) -> None:
    text = f"# 第1章\n\n{line}\n"
    assert (len(Paragraphs(text)) == 1) == (word_count(text) > 0)


def test_the_judges_metrics_come_from_the_one_module() -> None:
    from pipeline.context import style_metrics

    text = "# 第1章\n\n时间仿佛静止了。“你来了。”\n“多段对白，\n“第二段。”\n"
    got = style_metrics(text, ["仿佛", "时间仿佛静止了"])
    assert got["blacklist_hits"] == {"时间仿佛静止了": 1}  # the listed 仿佛 inside it is not a second hit
    assert got["dialogue_ratio"] == round(dialogue_ratio(text), 2)
    assert got == prose_metrics(text, Matcher([Entry.parse("仿佛"), Entry.parse("时间仿佛静止了")])).as_dict()
