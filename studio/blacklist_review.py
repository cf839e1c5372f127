"""The author's review of blacklist entries: the judge's proposals in, approved entries into `ai-blacklist.json`.

Rules:

- `record_suggestions` keeps what the judge suggested for a chapter in `.novel-studio/blacklist-proposals.json`
  (`studio.models.blacklist_proposals`), never in the blacklist itself. A suggestion is kept only when its phrase
  is in the chapter's text (the judge quoted it, not invented it) and the blacklist does not already catch it
  (listed, matched by an entry or shape, or whitelisted by the author).
- `approve` adds each proposal to `ai-blacklist.json` (`added_by: quality-judge`, category `评审建议`, the
  proposal's tier), then marks it approved; `reject` marks it rejected. `add_entry` is the author's own addition.
- Every write goes through `FileModel.save` (atomic, own write recorded). The blacklist is written before the
  proposals file, so a kill between the two leaves the proposal pending and approving it again finishes the job
  (an entry already listed is not added twice).
- Each call reads the files, changes them and writes them at once (no lock: the window is a few milliseconds
  and the proposals are advisory).
- Bad input (an unknown id, a decided proposal, an empty or unusable phrase) is a `StudioError` saying what to do;
  nothing is written then.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from studio.checks.matcher import blacklist_matcher
from studio.errors import StudioError
from studio.i18n import Catalog, Lang, tr
from studio.models.blacklist import AiBlacklist, Tier
from studio.models.blacklist_proposals import BlacklistProposal, BlacklistProposals, SuggestedEntry
from studio.paths import ProjectPaths

JUDGE = "quality-judge"
JUDGE_CATEGORY = "评审建议"
_SENTENCE_ENDS = "。！？\n"

MESSAGES: Catalog = {
    "unknown": (
        "没有编号为 {id} 的黑名单建议；用 novel-studio blacklist proposals 查看编号",
        "there is no blacklist proposal {id}; `novel-studio blacklist proposals` lists them",
    ),
    "decided": (
        "建议 {id}（“{phrase}”）已经{status}，不能再改",
        "proposal {id} ('{phrase}') is already {status}",
    ),
    "approved": ("批准", "approved"),
    "rejected": ("拒绝", "rejected"),
    "bad_phrase": ("无法加入“{phrase}”：{error}", "cannot add '{phrase}': {error}"),
    "listed": ("“{phrase}”已经在黑名单中", "'{phrase}' is already on the blacklist"),
    "empty": ("是空的", "it is empty"),
}


@dataclass(frozen=True)
class Decision:
    proposal: BlacklistProposal
    added: bool  # approve: whether the entry was new to the blacklist


def _caught(blacklist: AiBlacklist, phrase: str) -> bool:
    if phrase in blacklist.listed_words() or phrase in blacklist.whitelisted_words():
        return True
    return bool(blacklist_matcher(blacklist).find(phrase))


def record_suggestions(
    paths: ProjectPaths,
    blacklist: AiBlacklist,
    chapter: int,
    text: str,
    suggestions: Iterable[SuggestedEntry],
) -> list[BlacklistProposal]:
    """Keep the judge's `suggestions` for `chapter` as pending proposals (see the module rules); returns the
    proposals added or updated. Writes the proposals file only when something changed."""
    kept = [_with_example(s, text) for s in suggestions if s.phrase in text and not _caught(blacklist, s.phrase)]
    if not kept:
        return []
    proposals = BlacklistProposals.load_or_default(paths.blacklist_proposals)
    changed = [s.phrase for s in kept if proposals.record(s, chapter, proposed_by=JUDGE)]
    if not changed:
        return []
    proposals.save(paths.blacklist_proposals)
    return [p for p in proposals.proposals if p.phrase in changed]


def _with_example(suggestion: SuggestedEntry, text: str) -> SuggestedEntry:
    """The suggestion with its examples checked: only verbatim passages kept; none left -> the sentence of the
    phrase's first use in the chapter."""
    examples = [e for e in suggestion.examples if e.strip() and e.strip() in text]
    if not examples:
        at = text.find(suggestion.phrase)
        start = max(text.rfind(c, 0, at) for c in _SENTENCE_ENDS) + 1
        ends = [i for i in (text.find(c, at) for c in _SENTENCE_ENDS) if i != -1]
        end = min(ends) + 1 if ends else len(text)
        examples = [text[start:end].strip()[:60]]
    return suggestion.model_copy(update={"examples": examples[:2]})


def _take(proposals: BlacklistProposals, ids: Sequence[int], lang: Lang) -> list[BlacklistProposal]:
    out = []
    for proposal_id in ids:
        proposal = proposals.find(proposal_id)
        if proposal is None:
            raise StudioError(tr(MESSAGES, "unknown", lang, id=proposal_id))
        if proposal.status != "pending":
            status = tr(MESSAGES, proposal.status, lang)
            raise StudioError(tr(MESSAGES, "decided", lang, id=proposal_id, phrase=proposal.phrase, status=status))
        out.append(proposal)
    return out


def approve(paths: ProjectPaths, ids: Sequence[int], *, lang: Lang) -> list[Decision]:
    """Put the proposals `ids` into the project's blacklist and mark them approved."""
    proposals = BlacklistProposals.load_or_default(paths.blacklist_proposals)
    chosen = _take(proposals, ids, lang)
    blacklist = AiBlacklist.load_or_default(paths.ai_blacklist)
    added = []
    for proposal in chosen:
        tier: Tier = proposal.tier
        added.append(blacklist.add(proposal.phrase, JUDGE_CATEGORY, JUDGE, tier=tier))
    if any(added):
        blacklist.save(paths.ai_blacklist)
    for proposal in chosen:
        proposal.status = "approved"
    proposals.save(paths.blacklist_proposals)
    return [Decision(p, a) for p, a in zip(chosen, added, strict=True)]


def reject(paths: ProjectPaths, ids: Sequence[int], *, lang: Lang) -> list[Decision]:
    """Mark the proposals `ids` rejected: the phrase is never proposed again."""
    proposals = BlacklistProposals.load_or_default(paths.blacklist_proposals)
    chosen = _take(proposals, ids, lang)
    for proposal in chosen:
        proposal.status = "rejected"
    proposals.save(paths.blacklist_proposals)
    return [Decision(p, False) for p in chosen]


def add_entry(
    paths: ProjectPaths, phrase: str, *, tier: Tier = "banned", rate: float | None = None, lang: Lang
) -> AiBlacklist:
    """The author's own entry (a phrase or a shape with … / *), added to the project's blacklist."""
    blacklist = AiBlacklist.load_or_default(paths.ai_blacklist)
    if not phrase.strip():
        raise StudioError(tr(MESSAGES, "bad_phrase", lang, phrase=phrase, error=tr(MESSAGES, "empty", lang)))
    try:
        added = blacklist.add(phrase, None, "author", tier=tier, rate=rate)
    except ValueError as exc:
        raise StudioError(tr(MESSAGES, "bad_phrase", lang, phrase=phrase, error=_reason(exc))) from None
    if not added:
        raise StudioError(tr(MESSAGES, "listed", lang, phrase=phrase.strip()))
    blacklist.save(paths.ai_blacklist)
    return blacklist


def _reason(exc: ValueError) -> str:
    errors = getattr(exc, "errors", None)
    if callable(errors):
        return "; ".join(str(e.get("msg", "")).removeprefix("Value error, ") for e in errors())
    return str(exc)
