"""`novel-studio import` end to end with the real reader and splitter: each encoding, a folder, the preview
question and its answers, the names question, --json, pausing without a terminal, refusals and bad input."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from studio.cli import import_cmd
from studio.cli.main import main
from studio.coldstart import check_cold_start, refusals
from studio.models.import_record import ImportRecord
from studio.models.names import NamesFile
from studio.paths import ProjectPaths
from studio.project import Project

pytestmark = pytest.mark.usefixtures("no_offline_delay")  # the streaming pace is not tested here

PEOPLE = ("顾长风", "陆小川", "秦岚")
PARAS = ("{p}推开窗，雨还在下。", "{p}站在巷口，手里攥着那封信。", "“走吧。”{p}低声说道。")
# The same book in traditional characters (what a Big5 file holds).
TRAD = {"people": ("顧長風", "陸小川", "秦嵐"),
        "paras": ("{p}推開窗，雨還在下。", "{p}站在巷口，手裡攥著那封信。", "「走吧。」{p}低聲說道。"),
        "words": ("書名：測試之書", "第一卷 風起", "第二卷 雲湧", "番外 後來")}
WORDS = ("书名：测试之书", "第一卷 风起", "第二卷 云涌", "番外 后来")


def _body(n: int, paragraphs: int = 12, *, traditional: bool = False) -> str:
    people = TRAD["people"] if traditional else PEOPLE
    paras = TRAD["paras"] if traditional else PARAS
    return "\n".join("　　" + paras[(n + i) % 3].format(p=people[(n * 7 + i) % 3]) for i in range(paragraphs))


def _book(chapters: int = 6, *, traditional: bool = False) -> str:
    title, vol1, vol2, extra = TRAD["words"] if traditional else WORDS
    lines = [title, ""]
    for n in range(1, chapters + 1):
        if n in (1, chapters // 2 + 1):
            lines.append(vol1 if n == 1 else vol2)
        lines.append(f"第{n}章 夜雨{n}")
        lines.append(_body(n, traditional=traditional))
    lines.append(extra)
    lines.append(_body(99, 4, traditional=traditional))
    return "\n".join(lines) + "\n"


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def answers(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """A terminal that answers from this list, in order."""
    queue: list[str] = []
    monkeypatch.setattr(import_cmd, "is_interactive", lambda: True)
    monkeypatch.setattr("builtins.input", lambda prompt="": queue.pop(0))
    yield queue


@pytest.mark.parametrize(
    ("encoding", "raw", "said"),
    [("utf-8-sig", False, "UTF-8"), ("gb18030", False, "GB18030"), ("big5", True, "Big5"), ("utf-16", False, "UTF-16")],
)
def test_import_each_encoding(tmp_path: Path, capsys: pytest.CaptureFixture[str], encoding: str, raw: bool,
                              said: str) -> None:
    text = _book(traditional=raw)
    src = tmp_path / "book.txt"
    src.write_bytes(text.encode(encoding))
    root = tmp_path / "proj"
    code, out, err = _run(capsys, "import", str(src), str(root), "--yes", "--skip-checks", "--lang", "zh")
    assert code == 0, err
    assert said in out and "写入 7 章" in out and "Traceback" not in err
    project = Project.open(root)
    assert project.validate_all(include_text=True) == []
    assert project.committed_chapters() == list(range(1, 8))
    assert (root / "import" / "book.txt").read_bytes() == src.read_bytes()  # the original, byte for byte
    chapter = project.chapter_text(2) or ""
    assert chapter == f"# 第2章 夜雨2\n\n{_body(2, traditional=raw)}\n"
    assert (project.chapter_text(7) or "").startswith("# 第7章 番外")
    assert project.current_volume == 2
    record = ImportRecord.load(project.paths.import_record)
    assert record.chapters[-1].kind == "extra" and record.sources[0].encoding
    assert refusals(check_cold_start(project.paths)) == []


def test_folder_source_with_volume_folders(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "稿"
    for v, name in ((1, "第一卷 风起"), (2, "第二卷 云涌")):
        (src / name).mkdir(parents=True)
        for i in (1, 2):
            n = (v - 1) * 2 + i
            (src / name / f"第{n}章.txt").write_text(f"第{n}章 夜雨{n}\n{_body(n)}\n", "utf-8")
    (src / "封面.jpg").write_bytes(b"\xff\xd8\xff")
    root = tmp_path / "proj"
    code, out, err = _run(capsys, "import", str(src), str(root), "--yes", "--skip-checks")
    assert code == 0, err
    project = Project.open(root)
    assert project.committed_chapters() == [1, 2, 3, 4] and project.current_volume == 2
    copied = sorted(p.relative_to(root / "import").as_posix() for p in (root / "import").rglob("*") if p.is_file())
    assert copied == ["稿/第一卷 风起/第1章.txt", "稿/第一卷 风起/第2章.txt", "稿/第二卷 云涌/第3章.txt",
                      "稿/第二卷 云涌/第4章.txt"]


def test_no_terminal_and_no_yes_prints_the_preview_and_pauses(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "book.txt"
    src.write_text(_book(), "utf-8")
    code, out, _ = _run(capsys, "import", str(src), str(tmp_path / "proj"))
    assert code == 3
    assert "找到 7 章" in out and "--yes" in out
    assert not (tmp_path / "proj").exists()


def test_json_pauses_with_the_preview_then_imports_with_yes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "book.txt"
    src.write_text(_book(), "utf-8")
    root = tmp_path / "proj"
    code, out, _ = _run(capsys, "import", str(src), str(root), "--json")
    data = json.loads(out)
    assert code == 3 and data["exit_code"] == 3 and data["paused"] is True
    assert data["preview"] and not root.exists()
    code, out, _ = _run(capsys, "import", str(src), str(root), "--json", "--yes")
    data = json.loads(out)
    assert code == 0 and data["import"]["last_chapter"] == 7
    assert {n["name"] for n in data["names"]} >= set(PEOPLE) and data["registered"] == []
    assert data["report"]["chapters"] == 7 and "dialogue_ratio" in data["report"]["metrics"]


def test_answers_resplit_then_import_and_pick_names(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                    answers: list[str]) -> None:
    src = tmp_path / "book.txt"
    src.write_text(_book(), "utf-8")
    root = tmp_path / "proj"
    answers += ["what?", "size:800", "headings", "y", "1-2,9999", "1,2"]
    code, out, err = _run(capsys, "import", str(src), str(root), "--skip-checks")
    assert code == 0, err
    assert "按字数切分" in out and "没看懂" in out
    assert Project.open(root).committed_chapters() == list(range(1, 8))  # the headings split was confirmed
    names = NamesFile.load(ProjectPaths(root).names)
    assert len(names.entities) == 2 and all(e.model_extra == {"source": "import"} for e in names.entities)


def test_answer_no_writes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str], answers: list[str]) -> None:
    src = tmp_path / "book.txt"
    src.write_text(_book(), "utf-8")
    answers += ["n"]
    code, out, _ = _run(capsys, "import", str(src), str(tmp_path / "proj"))
    assert code == 0 and "什么都没有写入" in out and not (tmp_path / "proj").exists()


def test_names_later(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    src = tmp_path / "book.txt"
    src.write_text(_book(), "utf-8")
    root = tmp_path / "proj"
    code, out, _ = _run(capsys, "import", str(src), str(root), "--yes", "--skip-checks")
    assert code == 0 and "import --names" in out
    assert not ProjectPaths(root).names.exists() or not NamesFile.load(ProjectPaths(root).names).entities
    monkeypatch.setattr(import_cmd, "is_interactive", lambda: True)
    monkeypatch.setattr("builtins.input", lambda prompt="": "a")
    code, out, _ = _run(capsys, "import", "--names", "--project", str(root))
    assert code == 0
    registered = {e.name for e in NamesFile.load(ProjectPaths(root).names).entities}
    assert registered >= set(PEOPLE)


def test_into_a_project_is_refused_unless_append(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "book.txt"
    src.write_text(_book(), "utf-8")
    root = tmp_path / "proj"
    assert _run(capsys, "import", str(src), str(root), "--yes", "--skip-checks")[0] == 0
    before = sorted(p.read_bytes() for p in (root / "chapters").iterdir())
    code, out, err = _run(capsys, "import", str(src), str(root), "--yes")
    assert code == 1 and "--append" in err and "Traceback" not in err
    assert sorted(p.read_bytes() for p in (root / "chapters").iterdir()) == before
    more = tmp_path / "more.txt"
    more.write_text("第8章 续\n" + _body(8) + "\n第9章 再续\n" + _body(9) + "\n", "utf-8")
    code, out, err = _run(capsys, "import", str(more), str(root), "--append", "--yes")
    assert code == 0, err
    project = Project.open(root)
    assert project.committed_chapters() == list(range(1, 10)) and project.last_completed_chapter == 9
    code, out, _ = _run(capsys, "status", "--project", str(root))
    assert code == 0 and "novel-studio extract" in out and "9章" in out


@pytest.mark.parametrize("content", [b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 4, b"   \n\n"])
def test_bad_source_is_a_message(tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes) -> None:
    src = tmp_path / "book.txt"
    src.write_bytes(content)
    code, out, err = _run(capsys, "import", str(src), str(tmp_path / "proj"), "--yes")
    assert code == 1 and err.strip() and "Traceback" not in err
    assert not (tmp_path / "proj").exists()


def test_missing_source_and_bad_target_chars(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(capsys, "import", str(tmp_path / "nope.txt"), str(tmp_path / "proj"), "--yes")
    assert code == 1 and "Traceback" not in err
    code, _, _ = _run(capsys, "import", str(tmp_path / "nope.txt"), "--target-chars", "12")
    assert code == 2


def test_parse_answers() -> None:
    assert import_cmd.parse_answer("Y", 4000) == ("yes", "headings", 4000)
    assert import_cmd.parse_answer("size：3000", 4000) == ("split", "size", 3000)
    assert import_cmd.parse_answer("size:10", 4000) is None
    assert import_cmd.parse_answer("blank", 4000) == ("split", "blank", 4000)
    assert import_cmd.parse_picks("1，3-4", 5) == [0, 2, 3]
    assert import_cmd.parse_picks("a", 3) == [0, 1, 2]
    assert import_cmd.parse_picks("n", 3) == []
    assert import_cmd.parse_picks("0", 3) is None and import_cmd.parse_picks("x", 3) is None


def test_continue_accepts_an_imported_book(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "book.txt"
    src.write_text(_book(), "utf-8")
    root = tmp_path / "proj"
    assert _run(capsys, "import", str(src), str(root), "--yes", "--skip-checks")[0] == 0
    code, out, err = _run(capsys, "continue", "--offline", "--yes", "--project", str(root))
    # every imported volume is written: the run stops at the volume end and points at planning, refusing nothing
    assert code == 0, err
    assert "plan" in out and "不一致" not in out + err
    assert Project.open(root).committed_chapters() == list(range(1, 8))


def test_estimate_then_full_depth_offline(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "book.txt"
    src.write_text(_book(), "utf-8")
    root = tmp_path / "proj"
    code, out, err = _run(capsys, "import", str(src), str(root), "--yes", "--skip-checks", "--offline")
    assert code == 0, err
    assert "完整提取（novel-studio extract）预计：7 章" in out
    assert ImportRecord.load(ProjectPaths(root).import_record).extracted_through == 0
    code, out, err = _run(capsys, "import", str(src), str(tmp_path / "full"), "--yes", "--skip-checks", "--offline",
                          "--full", "--json")
    data = json.loads(out)
    assert code == 0, err
    assert data["extract_estimate"]["chapters"] == 7
    assert data["extract"]["status"] == "done" and data["extract"]["extracted_through"] == 7
    paths = ProjectPaths(tmp_path / "full")
    assert ImportRecord.load(paths.import_record).extracted_through == 7
    assert [f.key for f in check_cold_start(paths)] == []


def test_killed_import_is_finished_by_running_it_again(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "book.txt"
    src.write_text(_book(), "utf-8")
    root = tmp_path / "proj"
    argv = ["import", str(src), str(root), "--yes", "--skip-checks"]
    script = "import sys; from studio.cli.main import main; raise SystemExit(main(sys.argv[1:]))"
    env = {**os.environ, "NOVEL_STUDIO_FAULT_WRITE": "16", "NOVEL_STUDIO_TEST_NO_FSYNC": "1"}
    repo = Path(__file__).resolve().parents[1]
    killed = subprocess.run([sys.executable, "-c", script, *argv], env=env, cwd=repo, capture_output=True, check=False)
    assert killed.returncode == -signal.SIGKILL
    # what the killed process left is read and finished in this process (no fault set here): a real process
    # was killed, and only the disk carries over, as for a new process
    main(["status", "--project", str(root)])
    assert "被中断" in capsys.readouterr().out  # the unfinished import is named, with the way out
    assert main(argv) == 0, capsys.readouterr().err
    project = Project.open(root)
    assert project.committed_chapters() == list(range(1, 8))
    assert refusals(check_cold_start(project.paths)) == []
    assert (root / "import" / "book.txt").read_bytes() == src.read_bytes()
