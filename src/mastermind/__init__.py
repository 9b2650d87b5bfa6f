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
import importlib.util
import os as _os
import sys as _sys
from typing import TYPE_CHECKING, Any

# The kernel's threads wait for work asleep, not spinning: the analyses run many short
# parallel regions, and spinning threads starve everything else on a busy machine.
_os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

# The kernel's modules, each imported through its loader (``_core.py``, ...), which loads
# the build for this CPU (mastermind.simd).  The import system's own finder would take a
# compiled module of the same name beside a loader first: no build of this version puts
# one there, but an older install or build of the package may have left one (of another
# version of the kernel), so the loaders are found here, ahead of it.
_KERNEL_MODULES = ("_core", "_scan", "_symmetry", "_walk", "_memo", "_search", "_optimal")


class _KernelLoaders:
    """A finder (``sys.meta_path``) of the kernel modules' loaders, and of nothing else."""

    folder = _os.path.dirname(_os.path.abspath(__file__))
    names = {f"{__name__}.{module}" for module in _KERNEL_MODULES}

    @classmethod
    def find_spec(cls, fullname: str, path: Any = None, target: Any = None) -> Any:
        if fullname not in cls.names:
            return None
        loader = _os.path.join(cls.folder, fullname.rsplit(".", 1)[1] + ".py")
        if not _os.path.isfile(loader):  # an install without sources: the usual search
            return None
        return importlib.util.spec_from_file_location(fullname, loader)


if not any(getattr(f, "names", None) == _KernelLoaders.names for f in _sys.meta_path):
    _sys.meta_path.insert(0, _KernelLoaders)

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
