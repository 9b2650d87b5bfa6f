"""A switch of the worst-case search that must change only its speed: the same sets run
with it on and off give the same answers and the same nodes, leaves, memo hits, scanned
guesses and nodes per depth."""

from __future__ import annotations

from typing import Any

SAME = ("nodes", "leaves", "hits", "scanned", "false_cheap", "at_depth")


def same_search(on: Any, off: Any, sets: Any, depths: Any = (2, 3, 4)) -> tuple[dict, dict]:
    """Run every set at every depth on both searches (both answers seen), compare their
    stats, and return them (on's, off's)."""
    answers = set()
    for cands in sets:
        for d in depths:
            got = on.run(cands, d)
            assert got == off.run(cands, d), (cands.tolist(), d)
            answers.add(got[0])
    assert answers == {True, False}
    one, two = on.core.stats, off.core.stats
    for name in SAME:
        assert one[name] == two[name], name
    return one, two
