"""mastermind: generalized [n,k]-Mastermind analysis with a Cython kernel.

>>> import mastermind as mm
>>> game = mm.Game(4, 6)
>>> mm.analyze(game, "entropy").total
5722

The names below are loaded on first use (PEP 562): ``import mastermind`` itself loads
nothing but this file, and an analysis never loads the bounds, play, tree, custom-game or
comparison modules.  docs/architecture.md maps the modules.
"""

from __future__ import annotations

import importlib
import os as _os
from typing import TYPE_CHECKING, Any

# The kernel's threads wait for work asleep, not spinning: the analyses run many short
# parallel regions, and spinning threads starve everything else on a busy machine.
_os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

# public name -> the module that defines it
_EXPORTS = {
    "check_strategy": "bounds",
    "solution_exists": "bounds",
    "worst_case": "bounds",
    "Analysis": "analysis",
    "FirstGuessRow": "analysis",
    "Node": "analysis",
    "Step": "analysis",
    "analyze": "analysis",
    "first_guess_table": "analysis",
    "solve": "analysis",
    "Comparison": "comparison",
    "ComparisonRow": "comparison",
    "compare": "comparison",
    "CustomGame": "custom",
    "two_d": "custom",
    "MastermindError": "errors",
    "Optimum": "optimum",
    "optimal": "optimum",
    "CodeError": "game",
    "Game": "game",
    "GameError": "game",
    "ScoreError": "game",
    "Score": "rules",
    "Variant": "rules",
    "score_slots": "rules",
    "Strategy": "rules",
    "StrategyError": "rules",
    "Valuations": "strategies",
    "choose_guess": "strategies",
    "first_guess": "strategies",
    "Adversary": "play",
    "InconsistentAnswers": "play",
    "PlayError": "play",
    "SecretCodemaker": "play",
    "Session": "play",
    "__version__": "version",
}

__all__ = sorted(name for name in _EXPORTS if not name.startswith("_"))


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'mastermind' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


if TYPE_CHECKING:  # what the names are, for type checkers and editors
    from .analysis import Analysis, FirstGuessRow, Node, Step, analyze, first_guess_table, solve
    from .bounds import check_strategy, solution_exists, worst_case
    from .comparison import Comparison, ComparisonRow, compare
    from .custom import CustomGame, two_d
    from .errors import MastermindError
    from .game import CodeError, Game, GameError, ScoreError
    from .optimum import Optimum, optimal
    from .play import Adversary, InconsistentAnswers, PlayError, SecretCodemaker, Session
    from .rules import Score, Strategy, StrategyError, Variant, score_slots
    from .strategies import Valuations, choose_guess, first_guess
    from .version import __version__
