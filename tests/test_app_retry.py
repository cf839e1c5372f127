"""A streaming stage that fails mid-stream and is retried starts its text over in the chapter pane."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pipeline.providers.base import ModelRequest, ModelResult, StreamInterruptedError, TextCallback
from pipeline.providers.offline import OfflineProvider
from tests.tui_helpers import RecordingStudio, main_screen, run_to_end

FAILED = "这是一段中途断掉的半截文字"


class FlakyWriter(OfflineProvider):
    """The offline provider, except that the first chapter-writer call streams a little and then breaks."""

    def __init__(self) -> None:
        super().__init__(delay_s=0)
        self.failed = False

    async def run(self, request: ModelRequest, on_text: TextCallback | None = None) -> ModelResult:
        if request.agent == "chapter_writer" and not self.failed:
            self.failed = True
            if on_text is not None:
                result: Any = on_text(FAILED)
                if result is not None:
                    await result
            raise StreamInterruptedError("connection cut mid-stream", partial_text=FAILED)
        return await super().run(request, on_text)


async def test_retry_restarts_the_live_draft(sample: Path) -> None:
    settings = sample / "novel-studio.toml"
    settings.write_text(settings.read_text(encoding="utf-8") + "\n[provider]\nstage_retry_wait_s = 0\n", encoding="utf-8")
    provider = FlakyWriter()
    app = RecordingStudio(sample, lang="zh", offline=True, provider_factory=lambda s: provider)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        screen = main_screen(app)
        view = screen.chapter_view
        streamed: list[str] = []
        end_stream = view.end_stream

        def capture(final_text: str | None = None) -> None:
            streamed.append(view.text)
            end_stream(final_text)

        view.end_stream = capture  # type: ignore[method-assign]
        await pilot.press("c")
        await run_to_end(app, pilot)
        assert provider.failed
        assert streamed and streamed[0].strip()
        assert all(FAILED not in text for text in streamed)  # the failed attempt's text was cleared
        # the retry is told (a toast that may have timed out on a loaded machine, and the studio log)
        log = (sample / ".novel-studio" / "logs" / "studio.log").read_text(encoding="utf-8")
        assert "retry 1: stage draft" in log
        assert 3 in screen.project.committed_chapters()
        assert FAILED not in (sample / "chapters" / "chapter-003.md").read_text(encoding="utf-8")
