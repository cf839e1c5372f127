"""The full-screen studio (Textual). Kept apart from the domain modules, which import nothing from Textual."""

from studio.tui.app import NovelStudioApp

__all__ = ["NovelStudioApp"]
