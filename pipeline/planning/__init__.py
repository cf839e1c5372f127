"""Planning: the agents before and between volumes (world, characters, plot, style) and the checks by code
that a model's plan passes before it reaches `volumes/` (issue 7)."""
