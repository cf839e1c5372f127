"""One `novel-studio status` in a fresh interpreter, for the status tests: what it printed, and what it loaded.

`status_child(root, *args)` runs `main(["status", "--project", root, *args])` in a child process with
`studio.status_memo.RACY_NS` set to 0 (the tests' files were written a moment ago: their timestamps are trusted),
and returns its stdout and what the child reports on its last stderr line (`ChildInfo`): the exit code, the
studio's pydantic model classes it built (`module:Name`), whether pydantic, the full report (`studio.status`) and
the settings' loader (`studio.config`) were imported, and every module it imported. The tests' XDG cache folder
is inherited through the environment.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import TypedDict

ROOT = Path(__file__).resolve().parents[1]

_CHILD = """
import json, sys
import studio.status_memo as memo
memo.RACY_NS = 0  # the files were written a moment ago: trust their timestamps for this test
from studio.cli.main import main
rc = main(["status", "--project", sys.argv[1], *sys.argv[2:]])
sys.stdout.flush()

def subs(c):
    for s in c.__subclasses__():
        yield s
        yield from subs(s)

base = sys.modules["pydantic"].BaseModel if "pydantic" in sys.modules else None
built = sorted({f"{s.__module__}:{s.__name__}" for s in subs(base) if s.__module__.startswith("studio")}) if base else []
print(json.dumps({"rc": rc, "models": built, "pydantic": "pydantic" in sys.modules,
                  "full": "studio.status" in sys.modules, "config": "studio.config" in sys.modules,
                  "modules": sorted(sys.modules)}), file=sys.stderr)
"""


class ChildInfo(TypedDict):
    rc: int
    models: list[str]  # "module:Name" of each studio model class built
    pydantic: bool
    full: bool  # the full report's module was imported
    config: bool  # the settings' loader was imported
    modules: list[str]


def status_child(root: Path, *extra: str, env: dict[str, str] | None = None) -> tuple[str, ChildInfo]:
    """`status` on `root` with `extra` arguments in a fresh interpreter (see the module doc); it must not crash."""
    done = subprocess.run([sys.executable, "-c", _CHILD, str(root), *extra], capture_output=True, text=True,
                          cwd=ROOT, timeout=300, check=False, env={**os.environ, **(env or {})})
    assert done.returncode == 0, done.stderr[-2000:]
    info: ChildInfo = json.loads(done.stderr.strip().splitlines()[-1])
    return done.stdout, info
