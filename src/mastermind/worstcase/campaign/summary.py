"""What a campaign's summary says about p(n,k) (``state.json``'s ``summary``, the status's
first lines, the end of ``run.log``): the question's answer as the replayed plan gives
it, what it rests on (a witness checked by the stand-alone checker; refutations and
their origins, :mod:`.rests`), what is proved about p from it and the facts around it
(:mod:`.verdict`), and the answers re-checks found wrong (:mod:`.origins`)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

from ...verify import VerifyError, verify_file
from . import origins
from .origins import found_wrong
from .rests import in_words, rests_on
from .verdict import proved

if TYPE_CHECKING:
    from .question import Campaign, FocusPlan

__all__ = ["summary_of", "witness_checked"]


def _answer(plan: FocusPlan) -> Optional[bool]:
    """The question's answer as the replayed plan gives it (None: undecided)."""
    if not plan.openings:
        return False  # (no opening can work: refuted before any unit)
    return plan.answer() >= 0 if plan.decided() else None


def _rests(
    campaign: Campaign, plan: FocusPlan, certified: dict[Any, str], *, answer: Optional[bool]
) -> dict[str, Any]:
    """What the question's answer rests on: for a yes, its witness (checked here by the
    stand-alone checker, or each part's witness replayed); for a no, the origins of the
    openings' refutations (:mod:`.recheck`; ``certified``: the parts certificates prove,
    :mod:`.certificates`)."""
    if answer is None:
        return {"words": ""}
    if answer:
        checked = witness_checked(campaign)
        words = (
            "its witness (witness.json) certified by the stand-alone checker"
            if checked
            else "a witness for every part, each replayed"
        )
        return {"words": words, "witness": checked}
    counts = rests_on(campaign, plan, certified)
    return {"words": in_words(counts), **counts}


def witness_checked(campaign: Campaign) -> bool:
    """Whether the campaign's witness.json is a strategy for its game, checked by the
    stand-alone checker (:mod:`mastermind.verify`) to find every secret within d."""
    path = campaign.path("witness.json")
    if not os.path.exists(path):
        return False
    try:
        verdict = verify_file(path)
        doc = json.loads(Path(path).read_text())
    except (VerifyError, OSError, ValueError):
        return False
    game = campaign.game
    same = (doc.get("pegs"), doc.get("colours"), doc.get("variant", "classic")) == (
        game.n,
        game.k,
        game.variant.value,
    )
    return (
        same
        and "history" not in doc
        and verdict.upper is not None
        and verdict.upper <= campaign.guesses
    )


def summary_of(
    campaign: Campaign, plan: FocusPlan, known: dict[str, Any], certified: dict[Any, str]
) -> dict[str, Any]:
    """The summary's words about p: what is proved (:func:`~.verdict.proved`), what the
    question's answer rests on, the answers re-checks found wrong.  (``known``: the facts
    around the question; ``certified``: the parts the folder's certificates prove.)"""
    answer = _answer(plan)
    rests = _rests(campaign, plan, certified, answer=answer)
    unchecked = ""
    if rests.get(origins.UNKNOWN):
        unchecked = "the answers not computed here"
    elif rests.get(origins.IMPORTED):
        unchecked = "the answers imported from the shards"
    facts = proved(
        campaign.game, campaign.guesses, known, rests["words"], answer=answer, unchecked=unchecked
    )
    wrong = found_wrong(campaign.checkpoint) if os.path.exists(campaign.checkpoint) else []
    warning = None
    if wrong:
        imported = sum(o != origins.HERE for _, o in wrong)
        warning = (
            f"re-checks here found {len(wrong)} answer{'s' if len(wrong) != 1 else ''} wrong "
            f"({imported} imported from the shards or of unknown origin), replaced by "
            "their re-runs: the shards they came from are not to be trusted"
        )
    return {
        **facts,
        "rests_on": {k: v for k, v in rests.items() if k != "words"},
        "wrong": len(wrong),
        "warning": warning,
    }
