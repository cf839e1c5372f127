"""The four agents of the writing loop: ChapterWriter, Summarizer, StyleRefiner, QualityJudge."""
