"""mastermind: generalized [n,k]-Mastermind analysis with a Cython kernel.

>>> import mastermind as mm
>>> game = mm.Game(4, 6)
>>> mm.analyze(game, "entropy").total
5722
"""

import os as _os

# The kernel's threads wait for work asleep, not spinning: the analyses run many short
# parallel regions, and spinning threads starve everything else on a busy machine.
_os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

from .bounds import check_strategy, solution_exists, worst_case
from .analysis import Analysis, FirstGuessRow, Node, Step, analyze, first_guess_table, solve
from .custom import CustomGame, two_d
from .game import CodeError, Game, GameError, Score, ScoreError, Variant, score_slots
from .strategies import Strategy, StrategyError, Valuations, choose_guess, first_guess
from .play import Adversary, InconsistentAnswers, PlayError, SecretCodemaker, Session

__all__ = [
    "Adversary", "Analysis", "CodeError", "CustomGame", "FirstGuessRow", "Game", "GameError",
    "InconsistentAnswers", "Node", "PlayError", "Score", "ScoreError", "SecretCodemaker",
    "Session", "Step", "Strategy", "StrategyError", "Valuations", "Variant", "analyze",
    "check_strategy", "choose_guess", "first_guess", "first_guess_table", "score_slots",
    "solution_exists", "solve", "two_d", "worst_case",
]
__version__ = "0.1.0"
