"""bench/bench_status.py tells the truth: the status process's own peak memory and CPU time, not the bench's."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from studio.init_project import init_project
from tests.bench_loader import load_bench

ROOT = Path(__file__).resolve().parents[1]


def _env(tmp_path: Path) -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=str(ROOT), XDG_CACHE_HOME=str(tmp_path / "xdg"))


@pytest.mark.skipif(not Path("/proc/self/status").is_file(), reason="VmHWM needs /proc")
def test_child_peak_is_the_childs_own_not_the_benchs(tmp_path: Path) -> None:
    bench = load_bench("bench_status")
    root = init_project(tmp_path / "novel", sample=True)
    ballast = bytearray(300 * 1024 * 1024)  # this process's peak: well above any status run
    for i in range(0, len(ballast), 4096):
        ballast[i] = 1
    peak, source = bench.child_peak_mb(root, _env(tmp_path))
    assert source == "VmHWM of the child"
    assert 5 < peak < 200  # a status process is tens of MB; RUSAGE_CHILDREN here would say 300+
    run, _ = bench.run_child([sys.executable, "-c", "pass"], _env(tmp_path))
    assert run.exit_code == 0 and run.cpu_s < run.wall_s + 1  # the child's own CPU time, not the bench's
    del ballast


def test_bench_prints_whole_process_figures(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    bench = load_bench("bench_status")
    monkeypatch.setattr(bench, "touch_chapter", lambda root, *where: None)  # no wait for the racy window here
    monkeypatch.setattr(bench, "touch_state_and_changelog", lambda root: None)
    assert bench.main(["--chapters", "3", "--runs", "1", "--keep", str(tmp_path / "p")]) == 0
    out = capsys.readouterr().out
    assert "first run after a change" in out and "repeat, nothing changed" in out
    assert "first run after a re-judge (score recorded by the commit)" in out
    assert "first run after an evaluation edited outside a commit (validated)" in out
    assert "first run after a change of state (the full report)" in out
    assert "first run after a change of state and changelog (full report, log validated)" in out
    assert "CPU (user+sys of the child)" in out
    assert "imports of the repeat path" in out and "imports of the full report" in out
    assert "pydantic not imported" in out  # the repeat path's imports
    assert "peak memory of a status process: first run after a change" in out
    assert "bytecode:" in out and "load average" in out


def test_planned_synthetic_book_has_rules_contracts_and_summaries(tmp_path: Path) -> None:
    synth = load_bench("synth")
    synth.generate_project(tmp_path / "plain", 4, chars_per_chapter=300)
    synth.generate_project(tmp_path / "planned", 4, chars_per_chapter=300, planned=True)
    from studio.project import Project, validate_project

    plain, planned = Project.open(tmp_path / "plain"), Project.open(tmp_path / "planned")
    assert validate_project(tmp_path / "planned") == []
    assert len(planned.world_rules.rules) == 12 and not plain.world_rules.rules
    assert planned.contract(5) is not None and plain.contract(5) is None  # the next chapter has its contract
    assert all(c.contracts for c in planned.characters.values())
    summaries = [planned.summary(n) or "" for n in range(1, 5)]
    assert len(set(summaries)) == 4 and all(len(s) >= 150 for s in summaries)
    # the default book is unchanged by the option: the other benches' data stays as it was
    for folder in ("chapters", "evaluations", "logs"):
        for path in sorted((tmp_path / "plain" / folder).iterdir()):
            assert path.read_bytes() == (tmp_path / "planned" / folder / path.name).read_bytes()


def test_start_bench_measures_the_childs_cpu_and_a_cold_copy(tmp_path: Path) -> None:
    bench = load_bench("bench_start")
    if Path("/proc/self/stat").is_file():
        spent = sum(i * i for i in range(200_000))  # some CPU of our own to see
        assert spent > 0 and bench.child_cpu_s(os.getpid()) > 0
    copy = bench.cold_copy(tmp_path)
    assert (copy / "studio" / "tui" / "app.py").is_file() and (copy / "templates" / "sample").is_dir()
    assert not list(copy.rglob("__pycache__"))  # run from there, every start compiles the studio's modules


def test_bytecode_older_than_its_source_is_called_stale(tmp_path: Path) -> None:
    """A .pyc left from before an edit is recompiled at every run (and never rewritten with
    PYTHONDONTWRITEBYTECODE): the bench must not call that warm."""
    import py_compile

    bench = load_bench("bench_status")
    source = tmp_path / "mod.py"
    source.write_text("x = 1\n", encoding="utf-8")
    assert bench._stale_bytecode(source)  # no .pyc yet
    py_compile.compile(str(source), doraise=True)
    assert not bench._stale_bytecode(source)
    source.write_text("x = 12\n", encoding="utf-8")  # edited after it was compiled
    assert bench._stale_bytecode(source)
