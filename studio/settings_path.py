"""Where the user settings file lives: one home for its path, importing no pydantic model.

`NOVEL_STUDIO_SETTINGS` (an empty value counts as unset) names the file; otherwise it is `settings.toml` in
platformdirs' user config folder for `novel-studio`. `studio.config` reads the file; `studio.status_memo` stats
it for its key without loading the settings' models (a repeat `status` stays light).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

import platformdirs

APP_NAME = "novel-studio"
USER_SETTINGS_FILE = "settings.toml"
ENV_SETTINGS_FILE = "NOVEL_STUDIO_SETTINGS"


def user_settings_path(env: Mapping[str, str] | None = None) -> Path:
    """The user settings file named by `env` (default: the process environment)."""
    env = os.environ if env is None else env
    override = env.get(ENV_SETTINGS_FILE)
    if override:
        return Path(override).expanduser()
    return Path(platformdirs.user_config_dir(APP_NAME)) / USER_SETTINGS_FILE
