"""What a worker does with a unit: the game rebuilt from its definition
(:class:`GameSpec`: ``(n, k, variant)``, or a custom game's score table, made on the
client by :func:`spec_of`) once per worker process (:func:`game_of`), so that no kernel
object is ever pickled; the unit's function called (:func:`run_unit`); its answer or its
error made to cross back to the client whole, or as one line (:func:`run_remote`)."""

from __future__ import annotations

import hashlib
import os
import socket
import threading
import time
from dataclasses import dataclass
from typing import Any, Optional

import numpy as np

from ..stopping import Stopped
from .kinds import worker

__all__ = ["GameSpec", "TableGame", "UnitFailed", "game_of", "run_remote", "run_unit", "spec_of"]


@dataclass(frozen=True, eq=False)
class GameSpec:
    """All a worker needs to rebuild a game: ``("game", n, k, variant)``, or a custom
    game's score table (``"table"``: the table, its slots, winning slot, secrets)."""

    kind: str
    n: int = 0
    k: int = 0
    variant: str = ""
    table: Optional[np.ndarray] = None
    nslots: int = 0
    win_slot: int = 0
    secrets: Optional[np.ndarray] = None
    name: str = ""
    token: str = ""

    @property
    def heavy(self) -> bool:
        """Big enough to be sent to each worker once rather than with every unit."""
        return self.table is not None

    def definition(self) -> dict[str, Any]:
        """The game as a checkpoint's header records it (a table by its digest)."""
        if self.kind == "game":
            return {"type": "game", "n": self.n, "k": self.k, "variant": self.variant}
        assert self.table is not None and self.secrets is not None  # (a custom game)
        return {
            "type": "custom",
            "name": self.name,
            "codes": int(self.table.shape[0]),
            "secrets": int(self.secrets.size),
            "table": self.token,
        }


def spec_of(game: Any) -> GameSpec:
    """The definition of ``game`` (a :class:`~mastermind.game.Game` or a
    :class:`~mastermind.custom.CustomGame`)."""
    if getattr(game, "n", None) is not None and getattr(game, "symmetric", False):
        variant = game.variant.value
        return GameSpec(
            "game", int(game.n), int(game.k), variant, token=f"game/{game.n}/{game.k}/{variant}"
        )
    table = np.ascontiguousarray(game.table)
    secrets = np.ascontiguousarray(game.secrets, dtype=np.int32)
    h = hashlib.sha256()
    for part in (table.tobytes(), secrets.tobytes(), str((game.nslots, game.win_slot)).encode()):
        h.update(part)
    return GameSpec(
        "table",
        table=table,
        nslots=int(game.nslots),
        win_slot=int(game.win_slot),
        secrets=secrets,
        name=str(game.name),
        token=f"table/{h.hexdigest()}",
    )


class TableGame:
    """A custom game as a worker sees it: the kernel on the score table, the guess and
    secret sets; no score function, no code objects (they need not pickle)."""

    symmetric = False
    n = None
    secrets_are_guesses = True

    def __init__(self, spec: GameSpec):
        from ..kernel import _core

        assert spec.table is not None and spec.secrets is not None
        self.size = int(spec.table.shape[0])
        self.nslots = spec.nslots
        self.win_slot = spec.win_slot
        self.guesses = np.arange(self.size, dtype=np.int32)
        self.secrets = spec.secrets
        xlogx, _ = _core.build_xlogx(int(self.secrets.size))
        self.kernel = _core.Kernel.from_table(spec.table, spec.nslots, spec.win_slot, xlogx)


_GAMES: dict[str, Any] = {}
_GAMES_LOCK = threading.Lock()


def game_of(spec: Any) -> Any:
    """The game a spec defines, built once per process (a game given as itself, in this
    process, is used as it is)."""
    if not isinstance(spec, GameSpec):
        return spec
    with _GAMES_LOCK:
        game = _GAMES.get(spec.token)
        if game is None:
            if spec.kind == "game":
                from ..game import Game

                game = Game(spec.n, spec.k, spec.variant)
            else:
                game = TableGame(spec)
            if len(_GAMES) >= 2:  # a worker rarely serves more than one game at a time
                _GAMES.clear()
            _GAMES[spec.token] = game
        return game


def run_unit(
    spec: Any, kind: str, args: dict[str, Any], stop: Any = None, budget: Optional[float] = None
) -> dict[str, Any]:
    """Run one unit (on a worker, or on a thread of this process): the game from its
    spec, the function of its kind; the answer gains ``seconds`` and ``worker``.
    ``budget`` (seconds, when given) is passed on as ``budget=``: past it, the function
    may hand back a split (:func:`is_split`) instead of its answer."""
    fn = worker(kind)
    game = game_of(spec)
    t0 = time.perf_counter()
    if budget is None:
        result = fn(game, stop=stop, **args)
    else:
        result = fn(game, stop=stop, budget=float(budget), **args)
    result["seconds"] = time.perf_counter() - t0
    result["worker"] = f"{socket.gethostname()}:{os.getpid()}"
    return result


class UnitFailed(RuntimeError):
    """A unit's failure on a worker, in words: what the client receives when the
    worker's own error, or its answer, could not be sent back whole."""


def run_remote(
    spec: Any, kind: str, args: dict[str, Any], stop: Any = None, budget: Optional[float] = None
) -> dict[str, Any]:
    """:func:`run_unit` on a worker of a cluster, whose error and answer must cross to
    the client: an error (but a stop) is sent as :class:`UnitFailed` with its words,
    never as itself (it may not pickle, or not be rebuilt from its pickle), and an answer
    that is not a dict of arrays and numbers is refused the same way, so that the
    client's unit fails in one line (no traceback of Dask's, no wait for a result that
    never comes)."""
    failure = None
    try:
        result = run_unit(spec, kind, args, stop, budget)
    except Stopped:
        raise
    except Exception as e:
        failure = f"{type(e).__name__}: {e}"
    if failure is not None:  # (raised here: no context of an error that would not cross)
        raise UnitFailed(failure)
    wrong = _not_plain(result)
    if wrong is not None:
        raise UnitFailed(f"its answer cannot be sent back ({wrong})")
    return result


_PLAIN = (bool, int, float, str, np.integer, np.floating, np.bool_)


def _not_plain(result: Any) -> Optional[str]:
    """What makes ``result`` no answer (a dict of names to arrays and numbers), or None."""
    if not isinstance(result, dict):
        return f"a {type(result).__name__}, not a dict"
    for name, value in result.items():
        if not isinstance(name, str):
            return f"a field named by a {type(name).__name__}"
        if isinstance(value, np.ndarray):
            if value.dtype.hasobject:
                return f"{name}: an array of objects"
        elif not isinstance(value, _PLAIN):
            return f"{name}: a {type(value).__name__}"
    return None
