"""The names that fix a game's rules and a strategy: variants, scores and their slots, the
one-step strategies.  Plain Python (no NumPy, no kernel), so that the command line can
list its choices, and people can read the rules, without loading anything heavy.

:mod:`mastermind.game` and :mod:`mastermind.analysis.strategies` build on these and re-export them.

>>> Variant("distinct"), str(Score(2, 1)), Score(2, 1).pegs()
(<Variant.DISTINCT: 'distinct'>, '2 1', 'BBW')
>>> len(score_slots(4)), reference_score((1, 1, 2, 2), (1, 2, 1, 3))
(14, Score(black=1, white=2))
>>> Strategy.parse("entropy"), [s.value for s in Strategy][:2]
(<Strategy.ENTROPY: 'entropy'>, ['minmax', 'entropy'])
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from fractions import Fraction
from typing import NamedTuple, Union

from .errors import MastermindError


class Variant(str, enum.Enum):
    """Which codes may be guessed and be secret, and how guesses are scored."""

    CLASSIC = "classic"  # repetition allowed everywhere, blacks and whites
    DISTINCT = "distinct"  # secrets without repeated colours; guesses may repeat
    BULLS_AND_COWS = "bulls-and-cows"  # guesses and secrets without repetition
    BLACK_PEG = "black-peg"  # only the number of blacks is told
    PERMUTATION = "permutation"  # n = k; guesses and secrets are permutations

    def __str__(self) -> str:
        return self.value


class Score(NamedTuple):
    """A score (blacks, whites); ``str`` gives ``"2 1"``."""

    black: int
    white: int

    def __str__(self) -> str:
        return f"{self.black} {self.white}"

    def pegs(self) -> str:
        """The score as pegs: ``"BBW"``; ``"-"`` when there are none."""
        return "B" * self.black + "W" * self.white or "-"


def score_slots(n: int, black_only: bool = False) -> tuple[Score, ...]:
    """All scores of n positions in lexicographic (b, w) order, without (n-1, 1).

    >>> len(score_slots(4)), len(score_slots(5)), score_slots(2)
    (14, 20, (Score(black=0, white=0), Score(black=0, white=1), Score(black=0, white=2), Score(black=1, white=0), Score(black=2, white=0)))
    """
    if black_only:
        return tuple(Score(b, 0) for b in range(n + 1))
    return tuple(
        Score(b, w) for b in range(n + 1) for w in range(n + 1 - b) if (b, w) != (n - 1, 1)
    )


def reference_score(u: Sequence[int], v: Sequence[int]) -> Score:
    """Plain-Python score of two colour sequences, straight from the definition."""
    b = sum(1 for x, y in zip(u, v) if x == y)
    m = sum(min(u.count(c), v.count(c)) for c in set(u))
    return Score(b, m - b)


class DistributionSummary:
    """What a distribution of guesses says (for results holding ``distribution``: a
    number of guesses -> how many secrets need that many, the winning guess counted)."""

    distribution: dict[int, int]

    @property
    def secrets(self) -> int:
        return sum(self.distribution.values())

    @property
    def total(self) -> int:
        """Guesses over all secrets, the winning guesses included."""
        return sum(d * c for d, c in self.distribution.items())

    @property
    def average(self) -> Fraction:
        return Fraction(self.total, self.secrets)

    @property
    def max(self) -> int:
        return max(self.distribution)


def average_text(avg: Fraction) -> str:
    """An average for people: ``"4.4761 (5801/1296)"``, and ``"4"`` when it is a whole
    number (never ``"4.0000 (4/1)"``).

    >>> average_text(Fraction(5801, 1296)), average_text(Fraction(8, 2))
    ('4.4761 (5801/1296)', '4')
    """
    if avg.denominator == 1:
        return str(avg.numerator)
    return f"{float(avg):.4f} ({avg.numerator}/{avg.denominator})"


def guesses_text(count: int) -> str:
    """``"1 guess"``, ``"5 guesses"``."""
    return f"{count} guess" if count == 1 else f"{count} guesses"


def secrets_text(count: int, spec: str = "") -> str:
    """``"1 secret"``, ``"1296 secrets"`` (``spec``: the number's format, ``","`` for
    ``"1,296 secrets"``)."""
    return f"{count:{spec}} secret" + ("" if count == 1 else "s")


class StrategyError(MastermindError):
    """An unknown strategy name."""


class Strategy(str, enum.Enum):
    """The one-step strategies: each values a guess by the partition of the candidates it
    makes (:mod:`mastermind.analysis.strategies` says how)."""

    MINMAX = "minmax"
    ENTROPY = "entropy"
    PARTS = "parts"
    EXPECTED_SIZE = "expected-size"
    FIRST_CANDIDATE = "first-candidate"

    def __str__(self) -> str:
        return self.value

    @property
    def kind(self) -> int:
        """The kernel's valuation number (``mastermind.kernel._core.VAL_*``)."""
        from .kernel import _core

        return int(getattr(_core, _KIND_NAMES[self]))

    @classmethod
    def parse(cls, value: Union[str, "Strategy"]) -> "Strategy":
        try:
            return cls(value)
        except ValueError:
            names = ", ".join(s.value for s in cls)
            shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:36] + "...'"
            raise StrategyError(f"unknown strategy {shown}; choose one of {names}") from None


_KIND_NAMES = {
    Strategy.MINMAX: "VAL_MINMAX",
    Strategy.ENTROPY: "VAL_ENTROPY",
    Strategy.PARTS: "VAL_PARTS",
    Strategy.EXPECTED_SIZE: "VAL_EXPECTED",
    Strategy.FIRST_CANDIDATE: "VAL_FIRST",
}
