"""mastermind: generalized [n,k]-Mastermind analysis with a Cython kernel.

>>> import mastermind as mm
>>> game = mm.Game(4, 6)
>>> mm.analyze(game, "entropy").total
5722
"""

from .analysis import Analysis, FirstGuessRow, Node, Step, analyze, first_guess_table, solve
from .custom import CustomGame, two_d
from .game import CodeError, Game, GameError, Score, ScoreError, Variant, score_slots
from .strategies import Strategy, StrategyError, Valuations, choose_guess, first_guess

__all__ = [
    "Analysis", "CodeError", "CustomGame", "FirstGuessRow", "Game", "GameError", "Node", "Score",
    "ScoreError", "Step", "Strategy", "StrategyError", "Valuations", "Variant", "analyze",
    "choose_guess", "first_guess", "first_guess_table", "score_slots", "solve", "two_d",
]
__version__ = "0.1.0"
