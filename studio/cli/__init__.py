"""Command-line interface of novel-studio."""
