"""Pydantic models: one module per file format of the project folder."""
