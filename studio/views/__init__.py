"""Pure view models for the studio's screens: plain data computed from a project, no Textual import.

- `outline_rows`: the outline tree (volumes -> chapters with word count, score, status, storyline).
- `state_diff`: a chapter's state patch as a readable before -> after diff grouped by entity.
- `scores`: the scores pane (8 dimension bars, overall, violations, fixes) and a text sparkline.
- `typeset`: a chapter body in display lines by Chinese line-breaking rules (the heading left out).
- `replay_cache`: the newest replayed state kept between starts (user cache), so the first screen's diff needs no
  replay of the whole changelog.

The widgets in `widgets/` and the screens in `screens/` only render what these modules compute.
"""

from __future__ import annotations
