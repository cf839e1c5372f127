"""Bringing an existing manuscript into a project (issue 10): reading the source, cutting it into chapters,
the preview, writing the project and the deterministic depth. Domain only: no Textual, no `pipeline`
(the model's full depth is `pipeline.importing`)."""
