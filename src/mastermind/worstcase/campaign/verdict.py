"""What a campaign has proved about the worst case p(n,k), and the sentence that says it.

Each fact is a bound with what proves it, and the sentence states only what the facts
give: the question at d answered yes gives p <= d, answered no p >= d + 1; d - 1 refuted
by the in-process search gives p >= d, solvable p <= d - 1; the minmax strategy's worst
case is an upper bound, the counting bound a lower one (these three are worked out by
the campaign's first run and kept in ``state.json``).  The value is said
only when the lowest upper bound meets the highest lower bound; bounds that cross say
that an answer is wrong.

>>> from mastermind.game import Game
>>> known = {"below": False, "minmax": 5, "counting": 4}
>>> print(proved(Game(4, 6), 5, known, "its witness checked", answer=True)["text"])
p(4,6) = 5: at most 5 (within 5 guesses: yes, its witness checked), at least 5 (within 4: no, by the in-process search)
>>> print(proved(Game(4, 6), 6, {**known, "below": None}, "", answer=True)["text"])
p(4,6) is 4 or 5: at most 5 (the minmax strategy's worst case), at least 4 (the counting bound)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

if TYPE_CHECKING:
    from ...game import GameLike

__all__ = ["name_of", "proved"]


def name_of(game: GameLike) -> str:
    """p(n,k), with the variant named when it is not the classic game."""
    variant = game.variant.value
    return f"p({game.n},{game.k})" + ("" if variant == "classic" else f" {variant}")


def _bounds(
    d: int, known: dict[str, Any], rests: str, *, answer: Optional[bool]
) -> tuple[list[tuple[int, str]], list[tuple[int, str]]]:
    """Every proved lower and upper bound, each with what proves it (the strongest
    grounds first among equal bounds)."""
    on = f", {rests}" if rests else ""
    within = f"within {d} guess{'es' if d != 1 else ''}"
    lower: list[tuple[int, str]] = []
    upper: list[tuple[int, str]] = []
    if answer is False:
        lower.append((d + 1, f"{within}: no{on}"))
    if answer is True:
        upper.append((d, f"{within}: yes{on}"))
    below = known.get("below")
    if below is None and known.get("below_refuted"):  # (a state file of an earlier version)
        below = False
    if below is False:
        lower.append((d, f"within {d - 1}: no, by the in-process search"))
    elif below is True:
        upper.append((d - 1, f"within {d - 1}: yes, by the in-process search"))
    if known.get("minmax") is not None:
        upper.append((int(known["minmax"]), "the minmax strategy's worst case"))
    if known.get("counting") is not None:
        lower.append((int(known["counting"]), "the counting bound"))
    lower.append((1, "a secret needs a guess"))
    return lower, upper


def proved(
    game: GameLike,
    d: int,
    known: dict[str, Any],
    rests: str,
    *,
    answer: Optional[bool],
    unchecked: str = "",
) -> dict[str, Any]:
    """The summary's facts: the question's answer (None: undecided), the bounds proved
    (``lower``, ``upper``), ``value`` when they meet, and ``text``, the sentence.
    ``rests``: what the question's answer rests on, in words ("" to say nothing);
    ``unchecked``: the answers it rests on that were neither computed here, re-checked
    here nor certified, in words ("" for none); a bound that needs them is said as
    holding if they hold (``summary["checked"]`` is then False)."""
    lows, highs = _bounds(d, known, rests, answer=answer)
    if unchecked:  # (among equal bounds, one that needs none of them is named)
        lows = lows[1:] + lows[:1] if answer is False else lows
        highs = highs[1:] + highs[:1] if answer is True else highs
    low = max(lows, key=lambda b: b[0])
    high = min(highs, key=lambda b: b[0]) if highs else None
    question = "within " + str(d)
    needs = bool(unchecked) and (
        low[1].startswith(question) or (high is not None and high[1].startswith(question))
    )
    name = name_of(game)
    value: Optional[int] = None
    if high is None:
        said = f"{name} >= {low[0]}"
    elif low[0] > high[0]:
        said = f"{name}: the answers contradict each other"
    elif low[0] == high[0]:
        value = low[0]
        said = f"{name} = {value}"
    elif high[0] == low[0] + 1:
        said = f"{name} is {low[0]} or {high[0]}"
    else:
        said = f"{name} is between {low[0]} and {high[0]}"
    if needs:
        said += f", if {unchecked} hold"
    why = f"at least {low[0]} ({low[1]})"
    if high is not None:
        why = f"at most {high[0]} ({high[1]}), {why}"
    if high is not None and low[0] > high[0]:
        why += ": an answer is wrong"
    return {
        "decided": answer is not None,
        "answer": answer,
        "value": value,
        "lower": low[0],
        "upper": None if high is None else high[0],
        "checked": not needs,
        "text": f"{said}: {why}",
    }
