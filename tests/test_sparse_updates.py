"""`widgets.compat.sparse_partial_updates`: a partial screen update renders only the widgets under its spans,
and writes exactly what Textual's own partial update writes.

Each update is rendered to terminal bytes and played on a blank pyte screen, for Textual's version and the
sparse one, over many seeded random sets of dirty regions (thin border strips, single cells, lines, blocks)
on the studio's main screen, toasts included: the two screens must be identical, cell for cell and colour
for colour, and hold what a full repaint shows inside the updated spans.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pyte
from rich.console import Console
from textual._compositor import ChopsUpdate, Compositor
from textual.geometry import Region

from tests.tui_helpers import main_screen, make_app
from widgets import compat
from widgets.compat import _ORIGINAL_PARTIAL_UPDATE, _render_partial_update_sparse

SIZE = (160, 48)


def _played(update: Any, console: Console) -> pyte.Screen:
    screen = pyte.Screen(*SIZE)
    stream = pyte.Stream(screen)
    stream.feed(update.render_segments(console))
    return screen


def _cells(screen: pyte.Screen) -> list[list[tuple[str, str, str]]]:
    return [[(screen.buffer[y][x].data, screen.buffer[y][x].fg, screen.buffer[y][x].bg) for x in range(SIZE[0])]
            for y in range(SIZE[1])]


def _random_regions(rng: random.Random) -> list[Region]:
    width, height = SIZE
    regions = []
    for _ in range(rng.randint(1, 6)):
        kind = rng.choice(("column", "row", "cell", "block"))
        x, y = rng.randrange(width), rng.randrange(height)
        if kind == "column":
            regions.append(Region(x, y, 1, rng.randint(1, height - y)))
        elif kind == "row":
            regions.append(Region(x, y, rng.randint(1, width - x), 1))
        elif kind == "cell":
            regions.append(Region(x, y, 1, 1))
        else:
            regions.append(Region(x, y, rng.randint(1, width - x), rng.randint(1, height - y)))
    return regions


async def test_sparse_partial_updates_write_what_textual_writes(sample: Path) -> None:
    app = make_app(sample)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = main_screen(app)
        screen.notify("第3章评审 3.62：通过（“高于门槛”）" * 3, timeout=60)  # a toast over the panes' borders
        await pilot.press("1")
        await pilot.pause()
        compositor: Compositor = screen._compositor
        console = Console(width=SIZE[0], height=SIZE[1], color_system="truecolor", force_terminal=True,
                          legacy_windows=False)
        full = _cells(_played(compositor.render_full_update(), console))
        rng = random.Random(12)
        for _ in range(60):
            regions = _random_regions(rng)
            compositor._dirty_regions.update(regions)
            theirs = _ORIGINAL_PARTIAL_UPDATE(compositor)
            compositor._dirty_regions.update(regions)
            ours = _render_partial_update_sparse(compositor)
            assert isinstance(theirs, ChopsUpdate) and isinstance(ours, ChopsUpdate)
            assert ours.spans == theirs.spans
            ours_cells = _cells(_played(ours, console))
            assert ours_cells == _cells(_played(theirs, console)), regions
            for y, x1, x2 in ours.spans:  # inside the spans: what a full repaint shows
                for x in range(x1, x2):
                    # (a wide character cut by a span's edge is Textual's business: both write a space there)
                    if full[y][x][0].isascii() and ours_cells[y][x][0]:
                        assert ours_cells[y][x] == full[y][x], (x, y, regions)


async def test_the_studio_installs_sparse_updates(sample: Path) -> None:
    app = make_app(sample)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert Compositor.render_partial_update is _render_partial_update_sparse
    compat.sparse_partial_updates(False)
    try:
        assert Compositor.render_partial_update is _ORIGINAL_PARTIAL_UPDATE
    finally:
        compat.sparse_partial_updates()
