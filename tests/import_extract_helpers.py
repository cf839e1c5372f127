"""A generated Chinese book and an imported project for the extraction tests (tests/test_import_extract*.py,
tests/test_import_lifecycle.py, bench/bench_import_cost.py).

`book_text(n)` is a TXT manuscript of n chapters (`第N章 标题` headings) with recurring names (林枫, 苏晚晴, 韩老七),
places (青云城, 落霞谷), mystery and reveal sentences, dialogue and narration. `imported_project(root, n)` imports
it with the real import (`studio.importing`: read, split, write): chapters, outline entries marked written, the
checkpoint at the last chapter, `.novel-studio/import.json` with `extracted_through = 0`.
"""

from __future__ import annotations

import random
from pathlib import Path

from studio.ids import chapter_id
from studio.importing.build import write_project
from studio.importing.source import read_source
from studio.importing.split import split_manuscript
from studio.paths import ProjectPaths

TITLES = ("雨夜来客", "旧账", "青云城门", "落霞谷", "一封信", "夜探", "师门", "交易", "追兵", "破局")
_NARRATION = (
    "林枫把斗笠压低，沿着青云城的城墙根往西走。",
    "雨下得不大，街上的灯笼一盏接一盏地灭了。",
    "苏晚晴站在檐下，手里攥着那封没拆的信。",
    "韩老七蹲在门槛上抽旱烟，烟锅里的火一明一暗。",
    "落霞谷的方向传来几声狗叫，很快又安静下来。",
    "林枫数了数钱袋里的铜板，又把它塞回怀里。",
    "茶馆里的说书人拍了一下醒木，满堂都静了。",
    "苏晚晴把灯芯挑亮，借着光看那张旧地图。",
)
_DIALOGUE = (
    "“你来晚了。”苏晚晴说。",
    "“路上有人跟着。”林枫答得很短。",
    "“不急，不急，茶还没凉。”韩老七笑眯眯地说。",
    "“这事不在门口说。”苏晚晴压低了声音。",
    "“你到底是什么人？”林枫问。",
)
_MYSTERY = "林枫总觉得那块玉佩的来历有个秘密，师父临终前一个字也没提。"
_REVEAL = "韩老七这才说出真相：那块玉佩是落霞谷谷主的信物。"


def chapter_body(n: int, chars: int = 1500) -> str:
    rng = random.Random(n)
    paragraphs: list[str] = []
    count = 0
    while count < chars:
        pool = _DIALOGUE if rng.random() < 0.35 else _NARRATION
        para = "".join(rng.choice(pool) for _ in range(rng.randint(1, 3)))
        if len(paragraphs) == 2 and n % 4 == 1:
            para = _MYSTERY
        if len(paragraphs) == 3 and n % 4 == 3:
            para = _REVEAL
        paragraphs.append(para)
        count += len(para)
    return "\n\n".join(paragraphs)


def book_text(chapters: int, chars: int = 1500) -> str:
    parts = [f"第{n}章 {TITLES[(n - 1) % len(TITLES)]}\n\n{chapter_body(n, chars)}" for n in range(1, chapters + 1)]
    return "\n\n".join(parts) + "\n"


def imported_project(root: Path, chapters: int, chars: int = 1500) -> Path:
    """`book_text(chapters)` imported into `root` (a new folder) by the real import: read, split, write."""
    source = root.parent / f"{root.name}-source.txt"
    source.write_text(book_text(chapters, chars), encoding="utf-8")
    manuscript = split_manuscript(read_source(source))
    assert len(manuscript.chapters) == chapters
    write_project(manuscript, source, root)
    return root


def chapter_bytes(root: Path, chapters: int) -> dict[str, bytes]:
    paths = ProjectPaths(root)
    return {chapter_id(n): paths.chapter(n).read_bytes() for n in range(1, chapters + 1)}
