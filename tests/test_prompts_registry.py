"""Prompt templates: every shipped template loads; broken templates fail at load naming file and variable."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.prompts_registry import (
    CACHE_TIERS,
    PromptNotFoundError,
    PromptRegistry,
    PromptRenderError,
    PromptTemplateError,
    RenderedSection,
    join_sections,
    parse_template,
)

SHIPPED = {
    "chapter-writer",
    "chapter-reviser",
    "summarizer",
    "style-refiner",
    "quality-judge",
    "repair",
    "world-builder",
    "character-weaver",
    "plot-architect",
    "style-analyzer",
}


def _write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


SIMPLE = """---
id: demo
version: 1
description: a demo
output: json
variables: [style, chapter_num, note]
optional: [note]
---
<!-- cache: stable -->
风格：{style}
输出：{"summary": "...", "ops": [{"op": "set"}], "empty": {}}
<!-- cache: volume -->
卷：无变量
<!-- cache: chapter -->
第 {chapter_num} 章。{note}
字面量：{{chapter_num}}
"""


def test_every_shipped_template_loads() -> None:
    registry = PromptRegistry.load()
    assert set(registry.ids()) >= SHIPPED
    for template in registry:
        assert template.version >= 1
        assert template.sections, template.key
        tiers = [tier for tier, _ in template.sections]
        assert tiers == sorted(tiers, key=CACHE_TIERS.index)
        # Rendering with every required variable succeeds and leaves no placeholder behind.
        values = {name: f"<<{name}>>" for name in template.required}
        text = template.render_text(values)
        for name in template.required:
            assert f"<<{name}>>" in text


def test_writer_template_shape() -> None:
    writer = PromptRegistry.load().get("chapter-writer")
    assert writer.output == "markdown"
    assert [tier for tier, _ in writer.sections] == ["stable", "volume", "chapter"]
    stable = writer.sections[0][1]
    assert "违反以下规则的内容将被自动拒绝" in stable
    assert "===STATE_HINTS===" in stable
    assert "{blacklist_rules}" in stable and "{style_profile}" in stable  # v2: the tier-aware blacklist
    # The chapter section opens with the active storyline's state (anti-contamination, Lost in the Middle).
    chapter = writer.sections[-1][1]
    assert chapter.index("{storyline_context}") < chapter.index("{chapter_outline}")
    assert chapter.index("{storyline_context}") < chapter.index("{current_state}")
    # The stable prefix does not depend on the chapter: no per-chapter variable in it.
    for name in ("chapter_num", "chapter_outline", "current_state", "storyline_context", "author_note"):
        assert "{" + name + "}" not in stable
    assert {"chapter_min_chars", "chapter_max_chars", "author_note"} <= set(writer.variables)
    assert "author_note" in writer.optional


def test_render_substitutes_and_keeps_json_braces(tmp_path: Path) -> None:
    template = parse_template(SIMPLE, "demo.v1.md")
    sections = template.render({"style": "短句", "chapter_num": "12"})
    assert [s.tier for s in sections] == ["stable", "volume", "chapter"]
    assert sections[0] == RenderedSection(
        "stable", '风格：短句\n输出：{"summary": "...", "ops": [{"op": "set"}], "empty": {}}'
    )
    assert sections[1].text == "卷：无变量"
    # Omitted optional -> "", escaped literal stays literal.
    assert sections[2].text == "第 12 章。\n字面量：{chapter_num}"
    # A value containing a placeholder is not re-expanded.
    again = template.render({"style": "{chapter_num}", "chapter_num": "1", "note": "注"})
    assert again[0].text.startswith("风格：{chapter_num}\n")
    assert again[2].text.startswith("第 1 章。注")
    assert join_sections(again).count("\n\n") == 2


def test_render_errors() -> None:
    template = parse_template(SIMPLE, "demo.v1.md")
    with pytest.raises(PromptRenderError, match="missing required variable.*chapter_num"):
        template.render({"style": "x"})
    with pytest.raises(PromptRenderError, match="unknown variable.*bogus"):
        template.render({"style": "x", "chapter_num": "1", "bogus": "y"})
    with pytest.raises(PromptRenderError, match="must be a str"):
        template.render({"style": "x", "chapter_num": 1})  # type: ignore[dict-item]


def test_sections_parsed_in_order_and_head_is_stable() -> None:
    text = "---\nid: t\nversion: 2\nvariables: [a]\n---\n前言 {a}\n<!-- cache: chapter -->\n尾\n"
    template = parse_template(text, "t.v2.md")
    assert template.sections == [("stable", "前言 {a}"), ("chapter", "尾")]
    assert template.output == "text"
    assert template.key == "t@v2"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("<!-- cache: stable -->\n{a} {b}\n", r"placeholder \{b\} is used but not declared"),
        ("<!-- cache: stable -->\n没有变量\n", "variable 'a' is declared but never used"),
        ("<!-- cache: weekly -->\n{a}\n", "unknown cache tier 'weekly'"),
        ("<!-- cache: chapter -->\n{a}\n<!-- cache: stable -->\nx\n", "tiers must appear once each"),
        ("<!-- cache: stable -->\n{a}\n<!-- cache: stable -->\nx\n", "tiers must appear once each"),
    ],
)
def test_broken_body_fails_at_load(tmp_path: Path, body: str, message: str) -> None:
    _write(tmp_path, "ok.v1.md", "---\nid: ok\nversion: 1\nvariables: []\n---\n正文\n")
    path = _write(tmp_path, "broken.v1.md", f"---\nid: broken\nversion: 1\nvariables: [a]\n---\n{body}")
    with pytest.raises(PromptTemplateError, match=message) as info:
        PromptRegistry.load(tmp_path)
    assert str(path) in str(info.value)


@pytest.mark.parametrize(
    ("front", "message"),
    [
        ("id: broken\nversion: 1\n", "lacks 'variables'"),
        ("id: other\nversion: 1\nvariables: [a]\n", "does not match the file name"),
        ("id: broken\nversion: 3\nvariables: [a]\n", "version 3 does not match"),
        ("id: broken\nversion: 1\nvariables: [a]\noptional: [z]\n", "optional variable 'z' is not declared"),
        ("id: broken\nversion: 1\nvariables: [a, a]\n", "variable 'a' declared twice"),
        ("id: broken\nversion: 1\nvariables: [A]\n", "variable name 'A'"),
        ("id: broken\nversion: 1\nvariables: a\n", "must be a list"),
        ("id: broken\nversion: 1\nvariables: [a]\nmodel: opus\n", "unknown front matter key 'model'"),
        ("id: broken\nversion: 1\nvariables: [a]\noutput: yaml\n", "output 'yaml'"),
    ],
)
def test_broken_front_matter_fails_at_load(tmp_path: Path, front: str, message: str) -> None:
    path = _write(tmp_path, "broken.v1.md", f"---\n{front}---\n{{a}}\n")
    with pytest.raises(PromptTemplateError, match=message) as info:
        PromptRegistry.load(tmp_path)
    assert str(path) in str(info.value)


def test_missing_front_matter(tmp_path: Path) -> None:
    _write(tmp_path, "x.v1.md", "# 没有 front matter\n")
    with pytest.raises(PromptTemplateError, match="missing front matter"):
        PromptRegistry.load(tmp_path)
    _write(tmp_path, "x.v1.md", "---\nid: x\nversion: 1\nvariables: []\n正文\n")
    with pytest.raises(PromptTemplateError, match="not closed"):
        PromptRegistry.load(tmp_path)


def test_latest_version_selection_and_lookup_errors(tmp_path: Path) -> None:
    for version in (1, 2, 10):
        _write(
            tmp_path,
            f"demo.v{version}.md",
            f"---\nid: demo\nversion: {version}\nvariables: []\n---\n版本 {version}\n",
        )
    _write(tmp_path, "README.md", "not a template {whatever}\n")
    registry = PromptRegistry.load(tmp_path)
    assert registry.ids() == ["demo"]
    assert registry.versions("demo") == [1, 2, 10]
    assert registry.get("demo").version == 10
    assert registry.get("demo", 2).render_text({}) == "版本 2"
    assert "demo" in registry and "nope" not in registry
    with pytest.raises(PromptNotFoundError, match="no prompt template 'nope'"):
        registry.get("nope")
    with pytest.raises(PromptNotFoundError, match="no version v3 of prompt 'demo'"):
        registry.get("demo", 3)


def test_not_utf8_is_reported(tmp_path: Path) -> None:
    (tmp_path / "bad.v1.md").write_bytes(b"---\nid: bad\n\xff\xfe")
    with pytest.raises(PromptTemplateError, match="not UTF-8"):
        PromptRegistry.load(tmp_path)
