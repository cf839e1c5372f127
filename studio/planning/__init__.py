"""Volume planning's pure domain: the checks by code of a plan (`checks`), the precondition chaining of its
contracts (`chaining`) and what they report (`findings`). No model calls, no file writes, no Textual."""
