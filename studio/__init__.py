"""novel-studio: the novel project on disk and the shells (CLI, TUI) on top of it."""
