"""A missing project folder is worded once (`studio.project.MESSAGES["not_dir"]`): `status` (through
`Project.open`) and the commands that check the folder first (`studio.cli.common.require_project`: `check`,
`continue`, ...) print the same message, in Chinese and in English."""

from __future__ import annotations

from pathlib import Path

import pytest

from studio.cli.main import main


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_status_and_check_word_a_missing_folder_alike(tmp_path: Path, lang: str,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "nowhere"
    errors = []
    for command in ("status", "check"):
        assert main([command, "--project", str(missing), "--lang", lang]) == 1
        errors.append(capsys.readouterr().err.strip())
    assert errors[0] == errors[1], errors
    assert str(missing) in errors[0]
    assert ("不存在或不是文件夹" if lang == "zh" else "does not exist or is not a folder") in errors[0]
