"""Tool mode (issue 7 item 6; seed 000 §5.1, §5.2, seed 002 §8.5): add, update, rename or retire a
character, add or change a world rule. Domain only (no Textual, no `pipeline`): the model-assisted parts
(CharacterWeaver) live in `pipeline.planning.character_tool` and hand their reply to these functions.

- `txn`: the change set of one command, its diff, and its crash-safe journaled apply;
- `plan`: `ToolPlan`, one change before it is applied (what the CLI shows and asks about);
- `shared`: the state entry of a tool change, the human-readable changelogs, text replacement, the
  project's written / unwritten chapters;
- `affects`: which later chapters, contracts and characters a change touches (reusing `studio.impact`);
- `replies`: CharacterWeaver's reply in tool mode; `reply_cache`: a paused command's reply, reused once;
- `characters`: add / update / rename / retire (archive protection);
- `world`: world rule add / update.
"""
