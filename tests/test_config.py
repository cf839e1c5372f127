"""Settings: defaults, precedence env > project > user > preset > defaults, deep merge, clear errors."""

from __future__ import annotations

import re
import tomllib
from importlib import resources
from pathlib import Path

import pytest

from studio.config import ENV_VARS, deep_merge, load_settings, user_settings_path
from studio.errors import FormatError
from studio.models.settings import AGENTS, HAIKU, OPUS, PRESETS, SONNET, Settings


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def user_file(tmp_path: Path) -> Path:
    return tmp_path / "user" / "settings.toml"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "novel"
    root.mkdir()
    return root


def test_defaults_follow_prd(user_file: Path) -> None:
    s = load_settings(None, env={}, user_file=user_file)
    assert s.ui.lang == "zh"
    assert s.provider.preset == "anthropic"
    assert s.provider.api_key_env == "ANTHROPIC_API_KEY"
    assert s.provider.stage_retries == 2 and s.provider.stage_retry_wait_s == 30
    for agent in ("world_builder", "character_weaver", "plot_architect", "style_refiner", "revision"):
        assert s.model_for(agent) == OPUS
    for agent in ("chapter_writer", "summarizer", "quality_judge"):
        assert s.model_for(agent) == SONNET
    assert s.model_for("judge_secondary") == OPUS
    assert set(AGENTS) <= set(type(s.models).model_fields) & set(type(s.max_tokens).model_fields)
    opus = s.price_for(OPUS)
    assert opus is not None and (opus.input, opus.output) == (4, 20)
    assert opus.cache_write_rate == pytest.approx(5.0) and opus.cache_read_rate == pytest.approx(0.4)
    haiku = s.price_for(HAIKU)
    assert haiku is not None and (haiku.input, haiku.output) == (0.10, 0.50)
    assert (s.writing.chapter_min_chars, s.writing.chapter_max_chars) == (2500, 3500)
    assert s.writing.auto_rebuild is False and s.writing.review_refine_before_commit is False
    assert s.source_of("ui.lang") == "default"


@pytest.mark.parametrize(
    ("var", "key", "values"),
    [
        ("NOVEL_STUDIO_LANG", "ui.lang", ("en", "zh", "en")),
        ("NOVEL_STUDIO_BASE_URL", "provider.base_url", ("http://env", "http://project", "http://user")),
        ("NOVEL_STUDIO_PROXY", "provider.proxy", ("http://p-env", "http://p-project", "http://p-user")),
        ("NOVEL_STUDIO_TIMEOUT", "provider.timeout_s", ("11", "22", "33")),
        ("NOVEL_STUDIO_MAX_RETRIES", "provider.max_retries", ("5", "6", "7")),
        ("NOVEL_STUDIO_API_KEY_ENV", "provider.api_key_env", ("ENV_KEY", "PROJECT_KEY", "USER_KEY")),
        ("NOVEL_STUDIO_MODEL_CHAPTER_WRITER", "models.chapter_writer", ("m-env", "m-project", "m-user")),
    ],
)
def test_precedence_per_key(
    var: str, key: str, values: tuple[str, str, str], project: Path, user_file: Path
) -> None:
    env_value, project_value, user_value = values
    table, name = key.split(".")

    def toml(value: str) -> str:
        literal = value if value.isdigit() else f'"{value}"'
        return f"[{table}]\n{name} = {literal}\n"

    def get(s: Settings) -> str:
        return str(getattr(getattr(s, table), name)).removesuffix(".0")

    default = get(Settings())
    assert get(load_settings(project, env={}, user_file=user_file)) == default
    write(user_file, toml(user_value))
    s = load_settings(project, env={}, user_file=user_file)
    assert get(s) == user_value and s.source_of(key) == str(user_file)
    write(project / "novel-studio.toml", toml(project_value))
    s = load_settings(project, env={}, user_file=user_file)
    assert get(s) == project_value and s.source_of(key) == str(project / "novel-studio.toml")
    s = load_settings(project, env={var: env_value}, user_file=user_file)
    assert get(s) == env_value and s.source_of(key) == f"env {var}"
    assert var in ENV_VARS or var.startswith("NOVEL_STUDIO_MODEL")


def test_deep_merge_keeps_sibling_keys(project: Path, user_file: Path) -> None:
    write(
        user_file,
        '[models]\nsummarizer = "u-sum"\nchapter_writer = "u-writer"\n[writing]\nchapter_min_chars = 2000\n',
    )
    write(project / "novel-studio.toml", '[models]\nchapter_writer = "p-writer"\n[custom]\nkept = 1\n')
    s = load_settings(project, env={}, user_file=user_file)
    assert s.models.summarizer == "u-sum"
    assert s.models.chapter_writer == "p-writer"
    assert s.models.world_builder == OPUS
    assert s.writing.chapter_min_chars == 2000 and s.writing.chapter_max_chars == 3500
    assert s.to_data()["custom"] == {"kept": 1}  # unknown tables are kept
    assert deep_merge({"a": {"b": 1, "c": 2}}, {"a": {"c": 3}}) == {"a": {"b": 1, "c": 3}}


def test_all_models_env_then_per_agent(user_file: Path) -> None:
    env = {"NOVEL_STUDIO_MODEL": "x", "NOVEL_STUDIO_MODEL_SUMMARIZER": "y"}
    s = load_settings(None, env=env, user_file=user_file)
    assert s.models.world_builder == "x" and s.models.summarizer == "y"


def test_preset_fills_below_explicit_values(project: Path, user_file: Path) -> None:
    s = load_settings(project, env={"NOVEL_STUDIO_PROVIDER": "deepseek"}, user_file=user_file)
    assert s.provider.base_url == PRESETS["deepseek"].base_url
    assert s.provider.api_key_env == "DEEPSEEK_API_KEY"
    assert s.models.chapter_writer == "deepseek-chat"
    assert s.source_of("provider.base_url") == "preset deepseek"
    write(
        project / "novel-studio.toml", '[provider]\nbase_url = "http://mirror"\n[models]\nsummarizer = "s"\n'
    )
    s = load_settings(project, env={"NOVEL_STUDIO_PROVIDER": "deepseek"}, user_file=user_file)
    assert s.provider.base_url == "http://mirror" and s.models.summarizer == "s"
    assert s.api_key({"DEEPSEEK_API_KEY": "sk-test"}) == "sk-test"
    assert s.api_key({}) is None


def test_lang_env_accepts_locale_forms(user_file: Path) -> None:
    assert load_settings(None, env={"NOVEL_STUDIO_LANG": "en_US.UTF-8"}, user_file=user_file).ui.lang == "en"


def test_invalid_toml_reports_file_and_line(project: Path, user_file: Path) -> None:
    path = write(project / "novel-studio.toml", '[ui]\nlang = "zh"\ntimeout = \n')
    with pytest.raises(FormatError) as err:
        load_settings(project, env={}, user_file=user_file)
    problem = err.value.problems[0]
    assert problem.path == path and problem.line == 3 and problem.column is not None
    assert f"{path}:3:" in str(err.value)


def test_invalid_value_names_file_and_key(project: Path, user_file: Path) -> None:
    write(user_file, "[writing]\nchapter_min_chars = 2000\n")
    path = write(project / "novel-studio.toml", '[provider]\ntimeout_s = "soon"\n[ui]\nlang = "fr"\n')
    with pytest.raises(FormatError) as err:
        load_settings(project, env={}, user_file=user_file)
    found = {(str(p.path), p.json_path) for p in err.value.problems}
    assert found == {(str(path), "provider.timeout_s"), (str(path), "ui.lang")}


def test_invalid_env_value_names_variable(user_file: Path) -> None:
    with pytest.raises(FormatError) as err:
        load_settings(None, env={"NOVEL_STUDIO_TIMEOUT": "abc"}, user_file=user_file)
    assert "NOVEL_STUDIO_TIMEOUT" in str(err.value) and "provider.timeout_s" in str(err.value)


@pytest.mark.parametrize("text", ['[provider]\napi_key = "sk-ant-123"\n', 'api_key = "x"\n'])
def test_api_key_in_file_rejected(text: str, project: Path, user_file: Path) -> None:
    path = write(project / "novel-studio.toml", text)
    with pytest.raises(FormatError) as err:
        load_settings(project, env={}, user_file=user_file)
    assert str(path) in str(err.value) and "api_key" in str(err.value)
    assert "环境变量" in str(err.value)


def test_api_key_in_user_file_rejected_too(user_file: Path) -> None:
    write(user_file, '[provider]\napi_key = "sk-ant-123"\n')
    with pytest.raises(FormatError):
        load_settings(None, env={}, user_file=user_file)


def test_key_pasted_into_api_key_env_rejected(project: Path, user_file: Path) -> None:
    write(project / "novel-studio.toml", '[provider]\napi_key_env = "sk-ant-api03-abc"\n')
    with pytest.raises(FormatError) as err:
        load_settings(project, env={}, user_file=user_file)
    assert err.value.problems[0].json_path == "provider.api_key_env"


def test_user_settings_path(tmp_path: Path) -> None:
    assert user_settings_path({"NOVEL_STUDIO_SETTINGS": str(tmp_path / "s.toml")}) == tmp_path / "s.toml"
    default = user_settings_path({})
    assert default.name == "settings.toml" and "novel-studio" in str(default)


def test_user_file_found_from_env(tmp_path: Path) -> None:
    path = write(tmp_path / "elsewhere.toml", '[ui]\nlang = "en"\n')
    s = load_settings(None, env={"NOVEL_STUDIO_SETTINGS": str(path)})
    assert s.ui.lang == "en"


def test_project_template_is_the_defaults() -> None:
    """The commented lines of the template toml, uncommented, give exactly the built-in defaults."""
    text = resources.files("templates").joinpath("project", "novel-studio.toml").read_text(encoding="utf-8")
    data = tomllib.loads(text.replace('"{{title}}"', '""'))
    assert Settings.model_validate(data).to_data() == Settings().to_data()
    lines = []
    for line in text.splitlines():
        m = re.match(r"^# (\[.+\]|[a-z_]+ = .*)$", line)
        if m and not m.group(1).startswith(("base_url", "proxy")):
            lines.append(m.group(1))
    uncommented = tomllib.loads("\n".join(lines))
    assert Settings.model_validate(uncommented).to_data() == Settings().to_data()
    assert set(uncommented["models"]) == set(AGENTS) == set(uncommented["max_tokens"])
