"""The re-check of what a campaign's decision rests on (:mod:`.rests`).

A refutation cannot be checked without being found again, so a re-check runs the
question again here, in one piece (no budget, no split), and compares the verdicts: the
same, the row is marked re-checked (:mod:`.origins`); solvable after all, the re-run's
answer (and its witness) replaces every row that said otherwise, and a
:class:`~mastermind.engine.spotcheck.SpotCheckWarning` says so (the command line's exit
status is then 4).  A "yes" needs no re-check: its witness certifies it.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any, NamedTuple

from ...engine.checkpoint import open_checkpoint
from ...engine.executors import LocalExecutor
from ...engine.spotcheck import Sampler, SpotCheckWarning
from ...engine.units import Unit, UnitError, is_split
from . import origins
from .certificates import certified
from .question import Campaign, FocusPlan, checkpoint_params_of
from .rests import TRUST, WORDS, Refutation, refutations
from .state import replay

__all__ = ["Rechecked", "recheck"]


class Rechecked(NamedTuple):
    """What a re-check did: the answers re-run, and those found wrong."""

    checked: int
    wrong: int


def _todo(
    campaign: Campaign,
    plan: FocusPlan,
    sample: Sampler,
    certified: dict[tuple[int, int], str],
) -> list[tuple[Unit, Refutation]]:
    """The refutations to run again: in each opening refuted by answers neither computed
    here nor certified, its smallest refuted part (if the sample picks it)."""
    if not plan.openings or not plan.decided() or plan.answer() >= 0:
        return []
    out = []
    for refs in refutations(campaign, plan, certified):
        if not refs or any(TRUST[r.origin] <= TRUST[origins.RECHECKED] for r in refs):
            continue
        ref = refs[0]
        part = dict(plan.parts[ref.opening])[ref.slot]
        unit = plan.question(ref.opening, ref.slot, part)
        if sample(unit):
            out.append((unit, ref))
    return out


def recheck(
    campaign: Campaign,
    fraction: float = 1.0,
    *,
    jobs: int = 1,
    log: Callable[[str], None] = print,
) -> Rechecked:
    """Re-check the answers the campaign's decision rests on that were not computed
    here (a ``fraction`` of them, picked by a key the shards cannot know), again after
    each wrong one (the decision may then rest on others): what was re-checked."""
    sample = Sampler(fraction)
    parts, _ = certified(campaign)
    checked = wrong = 0
    while True:
        plan, _ = replay(campaign)
        todo = _todo(campaign, plan, sample, parts)
        if not todo:
            return Rechecked(checked, wrong)
        log(f"re-checking {len(todo)} refutations the decision rests on")
        found = _rerun(campaign, todo, jobs)
        checked += len(todo)
        wrong += found
        if not found:
            return Rechecked(checked, wrong)


def _rerun(campaign: Campaign, todo: list[tuple[Unit, Refutation]], jobs: int) -> int:
    """Run each question again here in one piece; the verdicts compared and recorded:
    how many were wrong."""
    game = campaign.game
    store = open_checkpoint(
        campaign.checkpoint, "bound", game.spec().definition(), checkpoint_params_of(campaign)
    )
    executor = LocalExecutor(game, jobs)
    wrong = 0
    try:
        handles = {executor.submit(unit, None): (unit, ref) for unit, ref in todo}
        while handles:
            for handle, result, error in executor.wait(list(handles), 0.5):
                unit, ref = handles.pop(handle)
                if error is not None:
                    raise UnitError(f"unit {unit.key}: its re-check failed: {error}") from error
                seconds = float(result.pop("seconds", 0.0))
                result.pop("worker", None)
                wrong += _verdict(campaign, store, unit, ref, result, seconds)
    finally:
        executor.close()
        store.close()
    return wrong


def _verdict(
    campaign: Campaign,
    store: Any,
    unit: Unit,
    ref: Refutation,
    result: dict[str, Any],
    seconds: float,
) -> bool:
    """One re-check's verdict recorded: whether the refutation was wrong.  A refuting row
    of ``unit`` found right is marked re-checked; otherwise the re-run's answer takes
    the place of the question's row (and of every row that said otherwise)."""
    path = campaign.checkpoint
    wrong = bool(int(result["ok"]))
    mine = next((r for r in ref.rows if r[0] == unit.key), None)
    if not wrong and mine is not None and not _is_split(store, unit.key):
        origins.confirmed(path, *mine)
        return False
    others = [r for r in ref.rows if r[0] != unit.key] if wrong else []
    for key, _, origin in [*([mine] if wrong and mine else []), *others]:
        warnings.warn(
            f"re-check: unit {key}: the answer {WORDS[origin].split(',')[0]} says the part "
            f"cannot be solved; its re-run here solves it within {unit.args['d']} guesses: "
            "the re-run's answer replaces it",
            SpotCheckWarning,
            stacklevel=2,
        )
    for key, _, _ in others:  # (a witness within d - 1 is one within e >= d - 1)
        e = int(key.rsplit("/", 1)[1])
        same = Unit(key, unit.kind, {**unit.args, "d": e}, unit.size)
        store.record(key, same.digest, result, size=unit.size, seconds=seconds)
    if _is_split(store, unit.key):  # (a split decided by the answers below it)
        store.settle(unit.key, unit.digest, result, size=unit.size)
    else:
        store.record(unit.key, unit.digest, result, size=unit.size, seconds=seconds)
    store.flush()
    said = {unit.key: mine[2] if mine else ref.origin, **{k: o for k, _, o in others}}
    for key, origin in said.items():
        origins.replaced(path, key, origin, wrong=wrong)
    return wrong


def _is_split(store: Any, key: str) -> bool:
    """Whether the checkpoint's row of ``key`` is a split (its question decided below)."""
    try:
        rec = store.get(key)
    except Exception:  # (a damaged row: replaced as any other)
        return False
    return rec is not None and is_split(rec.result)
