"""Textual widgets."""
