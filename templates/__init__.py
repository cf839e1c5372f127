"""What `novel-studio init` copies into a new project, and the bundled sample novel."""
