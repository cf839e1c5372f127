"""Prompt templates, one file per prompt id and version."""
