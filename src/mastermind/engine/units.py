"""Units of work: what a worker receives, and the loop that runs a plan's units on an
executor, skipping the units a checkpoint holds and recording each one as it finishes.

A unit is the game's definition (:class:`GameSpec`: ``(n, k, variant)``, or a custom
game's score table) plus a small dict of arguments: a candidate set as an int32 array,
the guesses played before it, the guesses left.  The worker rebuilds the game once per
process (:func:`game_of`) and calls the unit's function, named by its module path
(``"mastermind.units_analysis:walk_unit"``), so no kernel object is ever pickled.
Its answer is a dict of NumPy arrays and numbers (what a checkpoint row stores).

The plans (:mod:`~mastermind.units_analysis`, :mod:`~mastermind.units_bounds`,
:mod:`~mastermind.units_optimal`) say which units to run and combine their answers; the
answers combine exactly, so the result never depends on the number of workers or on the
order in which units finish.  :func:`execute` runs a plan: on a Dask cluster or on
threads of this process (:mod:`mastermind.engine.executors`), with a checkpoint or
without.  Nothing here knows what a unit computes.
"""

from __future__ import annotations

import hashlib
import importlib
import os
import socket
import threading
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Optional, Protocol

import numpy as np

from .. import _core
from ..stopping import Stopped, stopped

__all__ = ["CheckpointWarning", "Counts", "GameSpec", "Plan", "Unit", "UnitError", "execute",
           "game_of", "run_unit", "spec_of"]


class UnitError(RuntimeError):
    """A unit failed on its worker (the message names the unit and the cause)."""


class CheckpointWarning(UserWarning):
    """A recorded answer was damaged, or did not hold for its unit: it runs again."""


def _valid(plan: Any, unit: "Unit", result: dict[str, Any]) -> bool:
    """Whether ``result`` holds for ``unit`` as its plan checks it (``plan.valid``, when
    the plan has one); an answer the check cannot even read does not hold."""
    valid = getattr(plan, "valid", None)
    if valid is None:
        return True
    try:
        return bool(valid(unit, result))
    except Exception:  # a missing field, a wrong shape: the answer is not one
        return False


# ---------------------------------------------------------------------- games
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
        return {"type": "custom", "name": self.name, "codes": int(self.table.shape[0]),
                "secrets": int(self.secrets.size), "table": self.token}


def spec_of(game: Any) -> GameSpec:
    """The definition of ``game`` (a :class:`~mastermind.game.Game` or a
    :class:`~mastermind.custom.CustomGame`)."""
    if getattr(game, "n", None) is not None and getattr(game, "symmetric", False):
        variant = game.variant.value
        return GameSpec("game", int(game.n), int(game.k), variant,
                        token=f"game/{game.n}/{game.k}/{variant}")
    table = np.ascontiguousarray(game.table)
    secrets = np.ascontiguousarray(game.secrets, dtype=np.int32)
    h = hashlib.sha256()
    for part in (table.tobytes(), secrets.tobytes(), str((game.nslots, game.win_slot)).encode()):
        h.update(part)
    return GameSpec("table", table=table, nslots=int(game.nslots), win_slot=int(game.win_slot),
                    secrets=secrets, name=str(game.name), token=f"table/{h.hexdigest()}")


class TableGame:
    """A custom game as a worker sees it: the kernel on the score table, the guess and
    secret sets; no score function, no code objects (they need not pickle)."""

    symmetric = False
    n = None
    secrets_are_guesses = True

    def __init__(self, spec: GameSpec):
        from .. import _core

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


# ---------------------------------------------------------------------- units
def digest(func: str, args: dict[str, Any]) -> str:
    """A digest of a unit's input (a checkpoint row is reused only for the same input)."""
    h = hashlib.sha1(func.encode())
    for name in sorted(args):
        value = args[name]
        h.update(name.encode())
        if isinstance(value, np.ndarray):
            h.update(f"{value.dtype.str}{value.shape}".encode())
            h.update(np.ascontiguousarray(value).tobytes())
        else:
            h.update(repr(value).encode())
    return h.hexdigest()[:20]


@dataclass
class Unit:
    """One unit: its key (what it answers), the worker function, its arguments and
    size (candidates; for progress and cost models)."""

    key: str
    func: str
    args: dict[str, Any]
    size: int
    digest: str = ""

    def __post_init__(self) -> None:
        if not self.digest:
            self.digest = digest(self.func, self.args)


def run_unit(spec: Any, func: str, args: dict[str, Any], stop: Any = None) -> dict[str, Any]:
    """Run one unit (on a worker, or on a thread of this process): the game from its
    spec, the function from its path; the answer gains ``seconds`` and ``worker``."""
    module, name = func.split(":")
    fn = getattr(importlib.import_module(module), name)
    game = game_of(spec)
    t0 = time.perf_counter()
    result = fn(game, stop=stop, **args)
    result["seconds"] = time.perf_counter() - t0
    result["worker"] = f"{socket.gethostname()}:{os.getpid()}"
    return result


class Plan(Protocol):
    """What :func:`execute` runs: units offered one at a time, answers taken back."""

    kind: str

    def next(self) -> Optional[Unit]:
        """The next unit to run now, or None (for now: more may come as answers do)."""

    def take(self, unit: Unit, result: dict[str, Any]) -> list[str]:
        """Use a unit's answer; returns the keys of units no longer needed."""

    def done(self) -> bool:
        """Whether the answer is complete."""

    def known(self) -> int:
        """Units planned so far (for progress)."""

    # optional: def valid(self, unit: Unit, result: dict[str, Any]) -> bool, whether a
    # recorded answer holds for its unit (checked when read back from a checkpoint)


class Executor(Protocol):
    """Where units run (:mod:`mastermind.engine.executors`)."""

    def slots(self) -> int: ...
    def submit(self, unit: Unit) -> Any: ...
    def wait(self, handles: list, timeout: float) -> list[tuple[Any, Any, Optional[BaseException]]]: ...
    def cancel(self, handles: list) -> None: ...


@dataclass
class Counts:
    """What :func:`execute` did: units run here, taken from the checkpoint, and the
    (size, seconds) of each unit run (worker seconds)."""

    ran: int = 0
    resumed: int = 0
    costs: list[tuple[int, float]] = field(default_factory=list)

    @property
    def units(self) -> int:
        return self.ran + self.resumed


def execute(plan: Plan, executor: Executor, store: Any = None, flag: Any = None,
            progress: Optional[Callable[[int, int], None]] = None,
            time_limit: Optional[float] = None) -> Counts:
    """Run ``plan`` to the end on ``executor``: units recorded in ``store`` (a
    :class:`~mastermind.engine.checkpoint.Checkpoint`) are taken from it, the others run
    and are recorded as they finish.  ``time_limit`` (seconds) or ``flag`` (a stop flag,
    set from elsewhere) end the run: :class:`~mastermind.stopping.TimeLimitReached` or
    KeyboardInterrupt, every unit finished so far recorded; so does Ctrl-C.
    ``progress(done, to_run)`` counts the units run in this call."""
    from ..stopping import TimeLimitReached

    deadline = None if time_limit is None else time.monotonic() + time_limit
    loop = _Loop(plan, executor, store)
    reported = -1
    try:
        while True:
            loop.offer()
            if plan.done():
                break
            if not loop.inflight:  # pragma: no cover - a plan that offers nothing, not done
                raise RuntimeError(f"the {plan.kind} plan stalled")
            loop.collect(flag)
            if plan.done():
                break
            if flag is not None:
                stopped(flag)
            if deadline is not None and time.monotonic() >= deadline:
                raise TimeLimitReached("the time limit was reached")
            if progress is not None and loop.counts.ran != reported:
                reported = loop.counts.ran
                progress(reported, max(plan.known() - loop.counts.resumed, reported))
    except BaseException:
        if flag is not None and flag.value == _core.STOP_NONE:
            flag.set()  # units running on threads here stop within milliseconds
        executor.cancel(list(loop.inflight))
        raise
    if loop.inflight:
        executor.cancel(list(loop.inflight))
    if progress is not None:
        progress(loop.counts.ran, loop.counts.ran)
    return loop.counts


class _Loop:
    """The state of one :func:`execute`: the units in flight, the checkpoint's keys
    already consulted, the counts."""

    def __init__(self, plan: Plan, executor: Executor, store: Any):
        self.plan = plan
        self.executor = executor
        self.store = store
        self.counts = Counts()
        self.inflight: dict[Any, Unit] = {}
        self.consulted: set[str] = set()

    def offer(self) -> None:
        """Fill the executor's slots with the plan's next units (a unit the checkpoint
        holds is answered from it at once)."""
        while len(self.inflight) < self.executor.slots():
            unit = self.plan.next()
            if unit is None:
                return
            rec = self._recorded(unit)
            if rec is not None:
                self.counts.resumed += 1
                _drop(self.executor, self.inflight, self.plan.take(unit, rec.result))
            else:
                self.inflight[self.executor.submit(unit)] = unit

    def _recorded(self, unit: Unit) -> Any:
        """The checkpoint's record of ``unit`` (its first consultation only), or None."""
        if self.store is None or unit.key in self.consulted:
            return None
        self.consulted.add(unit.key)
        from .checkpoint import CheckpointError, DamagedRow

        try:
            rec = self.store.get(unit.key)
        except DamagedRow as e:
            return self._reject(unit, str(e))
        if rec is not None and rec.digest != unit.digest:
            raise CheckpointError(f"checkpoint {self.store.path}: unit {unit.key} does not "
                                  "match this run's; give another file")
        if rec is not None and not _valid(self.plan, unit, rec.result):
            return self._reject(unit, f"checkpoint {self.store.path}: the recorded answer of "
                                      f"unit {unit.key} does not hold for it; it is run again")
        return rec

    def _reject(self, unit: Unit, message: str) -> None:
        """A recorded answer not to be used: said once, its row dropped, the unit run."""
        warnings.warn(message, CheckpointWarning, stacklevel=2)
        self.store.discard(unit.key)
        return None

    def collect(self, flag: Any) -> None:
        """Wait a moment for finished units; record and hand each answer to the plan."""
        for handle, result, error in self.executor.wait(list(self.inflight), 0.2):
            unit = self.inflight.pop(handle, None)
            if unit is None:  # dropped meanwhile by an answer of the same batch
                continue
            if error is not None:
                if isinstance(error, Stopped) and flag is not None:
                    stopped(flag)
                raise UnitError(f"unit {unit.key} failed: {type(error).__name__}: "
                                f"{error}") from error
            seconds = float(result.pop("seconds", 0.0))
            worker = str(result.pop("worker", ""))
            if self.store is not None:
                self.store.record(unit.key, unit.digest, result, size=unit.size,
                                  seconds=seconds, worker=worker)
            self.counts.ran += 1
            self.counts.costs.append((unit.size, seconds))
            _drop(self.executor, self.inflight, self.plan.take(unit, result))
            if self.plan.done():
                return


def _drop(executor: Executor, inflight: dict[Any, Unit], keys: list[str]) -> None:
    """Cancel the units in flight that are no longer needed."""
    if not keys:
        return
    wanted = set(keys)
    gone = [h for h, u in inflight.items() if u.key in wanted]
    for h in gone:
        del inflight[h]
    if gone:
        executor.cancel(gone)
