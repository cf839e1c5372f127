"""Checks without a model (issue 8): the shared text tools and the checks built on them.

Domain code only: nothing here imports Textual or `pipeline`. The modules:

- `paragraphs`: the one paragraph numbering (title/heading lines excluded, 1-based) with character offsets.
- `matcher`: the one dictionary matcher (Aho-Corasick phrases + regex shapes, longest match wins).
- `metrics`: the one definition of each prose metric (de-AI layer 4).
- `names`: the name registry (characters, their aliases, the project names file) into one matcher.
- `studio.models.findings` / `studio.models.check_allow`: what a check reports and how the author waives it.
- `chinese`: homophones, look-alike characters, jieba's dictionary.
- `quotes`: looking up a quoted passage (the judge's evidence) in a chapter.
- `registry`, `run` + the check modules (`variants`, `newnames`, `punctuation`, `prose`, `evidence`): the checks
  `novel-studio check` runs.
- `story`: what the story checks know besides the text (state history, Summarizer metadata, plan, ledger, style
  profile), and the story checks: `continuity`, `leaks`, `foreshadow`, `structure` (+ `tags`), `style_drift`.
"""
