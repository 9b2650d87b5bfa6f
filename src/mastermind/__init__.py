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
import sys as _sys
from typing import TYPE_CHECKING, Any

# The kernel's threads wait for work asleep, not spinning: the analyses run many short
# parallel regions, and spinning threads starve everything else on a busy machine.
_os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


class _KernelFinder:
    """Sends the import of each of the kernel's compiled modules (``mastermind.kernel._core``,
    ``mastermind.analysis._scan``, ...: :mod:`mastermind.kernel.modules`) to the build for
    this CPU (:func:`mastermind.kernel.simd.find_spec`); every other import (this finder
    is asked about all of them) is answered at once."""

    @staticmethod
    def find_spec(fullname: str, path: Any = None, target: Any = None) -> Any:
        if not fullname.startswith("mastermind.") or fullname.rpartition(".")[2][:1] != "_":
            return None
        from .kernel.simd import find_spec

        return find_spec(fullname)


if not any(getattr(f, "__qualname__", "") == "_KernelFinder" for f in _sys.meta_path):
    _sys.meta_path.insert(0, _KernelFinder)

# public name -> the module that defines it
_EXPORTS = {
    "check_strategy": "worstcase.bounds",
    "solution_exists": "worstcase.bounds",
    "worst_case": "worstcase.bounds",
    "Analysis": "analysis.exhaustive",
    "FirstGuessRow": "analysis.exhaustive",
    "Node": "strategy_tree",
    "Step": "analysis.exhaustive",
    "analyze": "analysis.exhaustive",
    "first_guess_table": "analysis.exhaustive",
    "solve": "analysis.exhaustive",
    "Comparison": "apps.comparison",
    "ComparisonRow": "apps.comparison",
    "compare": "apps.comparison",
    "CustomGame": "custom",
    "two_d": "custom",
    "MastermindError": "errors",
    "Optimum": "optimum.solver",
    "optimal": "optimum.solver",
    "CodeError": "game",
    "Game": "game",
    "GameError": "game",
    "ScoreError": "game",
    "Score": "rules",
    "Variant": "rules",
    "score_slots": "rules",
    "Strategy": "rules",
    "StrategyError": "rules",
    "Valuations": "analysis.strategies",
    "choose_guess": "analysis.strategies",
    "first_guess": "analysis.strategies",
    "Adversary": "apps.play",
    "InconsistentAnswers": "apps.play",
    "PlayError": "apps.play",
    "SecretCodemaker": "apps.play",
    "Session": "apps.play",
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
    from .analysis.exhaustive import (
        Analysis,
        FirstGuessRow,
        Step,
        analyze,
        first_guess_table,
        solve,
    )
    from .analysis.strategies import Valuations, choose_guess, first_guess
    from .apps.comparison import Comparison, ComparisonRow, compare
    from .apps.play import Adversary, InconsistentAnswers, PlayError, SecretCodemaker, Session
    from .custom import CustomGame, two_d
    from .errors import MastermindError
    from .game import CodeError, Game, GameError, ScoreError
    from .optimum.solver import Optimum, optimal
    from .rules import Score, Strategy, StrategyError, Variant, score_slots
    from .strategy_tree import Node
    from .version import __version__
    from .worstcase.bounds import check_strategy, solution_exists, worst_case
