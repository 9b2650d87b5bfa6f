"""What a campaign's decision rests on.

A "no" (no strategy within d) rests on one refuted part in each opening: the opening
is refuted as soon as one of its refutations holds.  Each refutation is an answer of the
checkpoint, of the origin :mod:`.origins` tells (computed here, imported from the
shards, re-checked here, unknown), or a part certificate of the folder
(:mod:`.certificates`).  A "yes" rests on a strategy: its witness, checked against every
secret, certifies it.  (:mod:`.recheck` runs again the refutations not computed here.)
"""

from __future__ import annotations

import sqlite3
from contextlib import closing
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Optional

from ...engine.rows import connect_read_only, decode
from ...engine.units import is_split
from . import origins

if TYPE_CHECKING:
    from .question import Campaign, FocusPlan

__all__ = ["CERTIFIED", "TRUST", "WORDS", "Refutation", "in_words", "refutations", "rests_on"]

CERTIFIED = "certified"
TRUST = {
    CERTIFIED: 0,
    origins.HERE: 1,
    origins.RECHECKED: 2,
    origins.IMPORTED: 3,
    origins.UNKNOWN: 4,
}
WORDS = {
    CERTIFIED: "certified by a part certificate",
    origins.HERE: "computed here",
    origins.RECHECKED: "imported and re-checked here",
    origins.IMPORTED: "imported from the shards, not re-checked",
    origins.UNKNOWN: "of unknown origin, not re-checked",
}


@dataclass
class Refutation:
    """A refuted part of an opening: its rows (key, finished, origin), each refuting the
    part within d - 1 guesses or more."""

    opening: int
    slot: int
    size: int
    rows: list[tuple[str, float, str]] = field(default_factory=list)
    certificate: Optional[str] = None  # the file of certificates/ that proves it

    @property
    def origin(self) -> str:
        """Certified, or the most trusted origin among its rows (of unknown origin with
        none: nothing here says where it came from)."""
        if self.certificate is not None:
            return CERTIFIED
        return min((o for _, _, o in self.rows), key=TRUST.__getitem__, default=origins.UNKNOWN)


def _row(key: str, blob: bytes, d: int) -> Optional[tuple[int, int, bool]]:
    """(opening, slot, split) of a row that may decide a part of the question at d: a
    refutation within d - 1 guesses or more, or the split of the question within d - 1
    (decided by the answers below it); None for any other row."""
    parts = key.split("/")
    try:
        g, s, e = (int(x) for x in parts[1:]) if len(parts) == 4 else (0, 0, -1)
        if e < d - 1:
            return None
        answer = decode(blob)
        split = is_split(answer)
        if e < d - 1 or (split and e != d - 1) or (not split and int(answer["ok"])):
            return None
    except Exception:  # a damaged row is run again when its unit comes up
        return None
    return g, s, split


def _refuted_rows(path: str, d: int) -> dict[tuple[int, int], list[tuple[str, float, str]]]:
    """(opening, slot) -> the rows refuting that part within d - 1 guesses or more; or,
    with none, the split that decided it (its answers below it)."""
    whole: dict[tuple[int, int], list[tuple[str, float, str]]] = {}
    splits: dict[tuple[int, int], list[tuple[str, float, str]]] = {}
    with closing(connect_read_only(path)) as conn:
        rows = conn.execute(  # (the root's questions: exists/OPENING/SLOT/GUESSES)
            "SELECT key, finished, result FROM units "
            "WHERE key LIKE 'exists/%/%/%' AND key NOT LIKE 'exists/%/%/%/%'"
        ).fetchall()
        for key, finished, blob in rows:
            found = _row(key, blob, d)
            if found is not None:
                origin = origins.origin_of(conn, key, finished)
                into = splits if found[2] else whole
                into.setdefault(found[:2], []).append((key, finished, origin))
    return {**splits, **whole}


def refutations(
    campaign: Campaign, plan: FocusPlan, certified: Optional[dict[tuple[int, int], str]] = None
) -> list[list[Refutation]]:
    """Each opening's refuted parts (the smallest first), with their rows and
    certificates (``certified``: (opening, slot) -> file, :mod:`.certificates`)."""
    d = campaign.guesses
    try:
        rows = _refuted_rows(campaign.checkpoint, d)
    except (OSError, sqlite3.Error):  # no checkpoint (yet)
        rows = {}
    out = []
    for i, g in enumerate(plan.openings):
        refs = [
            Refutation(i, s, int(part.size), rows.get((g, s), []), (certified or {}).get((g, s)))
            for s, part in plan.parts[i]
            if plan.answers[i].get(s) is False
        ]
        out.append(sorted(refs, key=lambda r: r.size))
    return out


def rests_on(
    campaign: Campaign, plan: FocusPlan, certified: Optional[dict[tuple[int, int], str]] = None
) -> dict[str, int]:
    """For a "no": how many openings' refutations are of each origin (the most trusted
    refutation of each opening counts)."""
    counts = dict.fromkeys(TRUST, 0)
    for refs in refutations(campaign, plan, certified):
        if refs:
            counts[min((r.origin for r in refs), key=TRUST.__getitem__)] += 1
    return counts


def in_words(counts: dict[str, int]) -> str:
    """The origins of a "no"'s refutations, in words."""
    total = sum(counts.values())
    if total == 0:
        return "no opening can work, by counting"
    if counts[origins.HERE] == total:
        return "every opening refuted here"
    if counts[CERTIFIED] == total:
        return "every opening refuted by a part certificate"
    said = [f"{n} {WORDS[o]}" for o, n in counts.items() if n]
    return f"the {total} openings' refutations: " + ", ".join(said)
