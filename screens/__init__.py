"""Textual screens and modal dialogs."""
