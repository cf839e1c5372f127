"""The full-screen studio (Textual). Kept apart from the domain modules, which import nothing from Textual.

The App lives in `studio.tui.app`; only the CLI launcher imports it (an import-linter contract keeps it so).
"""
