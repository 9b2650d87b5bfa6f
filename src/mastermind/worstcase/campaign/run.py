"""A campaign's runs: its checkpoint made again from the shards where there is none
(:func:`restore`), a run that goes on from where the last one stopped and ends however
it is stopped with everything it finished recorded, exported and summed up
(:func:`run`), and an export on its own (:func:`export`)."""

from __future__ import annotations

import json
import os
import sqlite3
import time
import warnings
from collections.abc import Callable
from typing import Any, NamedTuple, Optional

from ...analysis.exhaustive import analyze
from ...checks import ArgumentError
from ...engine.folder import also_to_file, shard_count
from ...engine.options import RunOptions
from ...engine.own_files import OwnDestination
from ...engine.run import open_run
from ...engine.shards import Imported, behind, export_shards, import_shards, shard_paths
from ...engine.spotcheck import SpotCheckWarning
from ...errors import MastermindError
from ...game import Game
from ...stopping import TimeLimitReached, new_flag
from ..check import check_strategy
from ..counting import counting_bound
from ..exists import solution_exists
from ..search import SearchUnfinished
from . import origins
from .folder import CampaignFileError, hold
from .question import Campaign, checkpoint_params_of, setup, witness_tree
from .recheck import recheck as recheck_deciding
from .state import read_state, replayed, state, text_table, write_state
from .summary import witness_checked

__all__ = ["Outcome", "bounds_known", "export", "known_bounds", "recheck", "restore", "run"]

Log = Callable[[str], None]


class Outcome(NamedTuple):
    """How a run ended: ``status`` (decided, time-limit, interrupted, stopped), the
    units it ran, the units recorded before and after it, its seconds, and the value
    decided (p(n,k), or None)."""

    status: str
    ran: int
    before: int
    after: int
    seconds: float
    value: Optional[int]


def restore(campaign: Campaign, log: Log) -> Optional[Imported]:
    """The checkpoint made again from the shards, when there is none (a fresh clone) or
    when it lacks one of them (a shard that came with the files: it is kept aside as
    ``checkpoint.sqlite.behind``); each shard left out is said once (its units run
    again).  Under the campaign's lock (:func:`.folder.hold`)."""
    with hold(campaign.folder):
        if not shard_paths(campaign.shards):
            return None
        if os.path.exists(campaign.checkpoint):
            try:
                stale = behind(campaign.checkpoint, campaign.shards)
            except sqlite3.Error as e:
                raise _unusable(campaign, e) from None
            if not stale:
                return None
            aside = campaign.checkpoint + ".behind"
            os.replace(campaign.checkpoint, aside)
            log(f"{campaign.folder}: the checkpoint is behind the shards: kept as {aside}")
        got = import_shards(
            campaign.shards, campaign.checkpoint, _run_of(campaign), shard_count(_stated(campaign))
        )
        origins.mark_imported(campaign.checkpoint)  # (its rows: imported, not computed here)
        for line in got.problems:
            log(f"{campaign.folder}: {line}")
        log(f"checkpoint made again from {got.shards} shards: {got.units} units")
        return got


def _run_of(campaign: Campaign) -> dict[str, Any]:
    """The run the campaign's shards must belong to: kind, game and parameters."""
    game = campaign.game.spec().definition()
    return {"kind": "bound", "game": game, "params": checkpoint_params_of(campaign)}


def _unusable(campaign: Campaign, e: Exception) -> CampaignFileError:
    why = " ".join(str(e).split())[:120]
    return CampaignFileError(
        f"{campaign.checkpoint} cannot be read as a checkpoint ({why}): move it away, and "
        "the next run makes it again from the shards"
    )


def _stated(campaign: Campaign) -> dict[str, Any]:
    """The campaign's ``state.json`` as the last run or export left it ({} for none, or
    one that cannot be read: every run and export writes it again)."""
    try:
        return read_state(campaign) or {}
    except MastermindError:
        return {}


def bounds_known(game: Game, d: int) -> dict[str, Any]:
    """What is proved around the question, worked out here: whether d - 1 guesses can
    find every secret (``below``: True, False, or None when the in-process search did
    not end within two minutes; ``below_refuted`` as earlier versions wrote it), the
    minmax strategy's worst case (an upper bound) and the counting bound (a lower one)."""
    below: Optional[bool]
    if d <= 1:
        below = False  # (no secret is found without a guess)
    else:
        try:
            below = bool(solution_exists(game, d - 1, time_limit=120))
        except SearchUnfinished:
            below = None
    return {
        "below_refuted": below is False,
        "below": below,
        "minmax": int(analyze(game, "minmax", jobs=1).max),
        "counting": counting_bound(game),
    }


def known_bounds(campaign: Campaign) -> dict[str, Any]:
    """What is proved around the question (kept in ``state.json`` once worked out; a
    state of an earlier version, which kept only whether d - 1 was refuted and the
    minmax strategy's worst case, gains the counting bound)."""
    stated = _stated(campaign)
    old = stated.get("known")
    if stated.get("guesses") != campaign.guesses or not isinstance(old, dict):
        return bounds_known(campaign.game, campaign.guesses)
    below = old.get("below", False if old.get("below_refuted") is True else None)
    counting = old.get("counting")
    if counting is None:
        counting = counting_bound(campaign.game)
    minmax = old.get("minmax")
    if below not in (True, False, None) or not all(
        type(v) is int and v >= 1 for v in (minmax, counting)
    ):
        return bounds_known(campaign.game, campaign.guesses)  # (not as this code writes it)
    return {"below_refuted": below is False, "below": below, "minmax": minmax, "counting": counting}


def run(
    campaign: Campaign,
    *,
    jobs: int = 1,
    scheduler: Optional[str] = None,
    time_limit: Optional[float] = None,
    stop_after: int = 0,
    batch: int = 1,
    recheck: float = 0.0,
    log: Log = print,
    watch: Optional[Callable[[list[dict[str, Any]]], None]] = None,
) -> Outcome:
    """Go on with the campaign until it is decided, ``time_limit`` seconds pass,
    ``stop_after`` units have run, or it is stopped (Ctrl-C; the command line makes
    SIGTERM one); then export a shard, write the state and the witness of a proof.  What
    it says goes to ``log`` and to the campaign's ``run.log``.  ``batch``: units sent to
    a worker as one task (:mod:`mastermind.engine.batching`).  The campaign's lock is
    held throughout (:func:`.folder.hold`: another run is refused before anything).

    ``recheck`` (a fraction, 0 to 1): spot-checks, as on a cluster (that share of the
    units the workers run or the checkpoint gives is run again here and compared), and,
    once the question is decided, that share of the answers the decision rests on that
    were not computed here re-checked (:func:`.recheck.recheck`); an answer found wrong
    is replaced and the run goes on.  Each one found wrong is a
    :class:`~mastermind.engine.spotcheck.SpotCheckWarning`.

    ``watch``: called with the plan's :meth:`~.question.FocusPlan.snapshot` (each
    opening's state and parts running) whenever a unit ends, for a progress display;
    each opening decided is also said to ``log``."""
    with hold(campaign.folder):
        log = also_to_file(log, campaign.path("run.log"))
        restore(campaign, log)
        known = known_bounds(campaign)
        t0 = time.monotonic()
        options = RunOptions(
            jobs,
            scheduler=scheduler,
            checkpoint=campaign.checkpoint,
            unit_seconds=campaign.unit_seconds,
            batch=batch,
            recheck=recheck,
        )
        how = (options, time_limit, stop_after, watch)
        status, plan, search, before, ran = _decide(campaign, known, how, log)
        answer = None
        if not plan.openings:
            answer = False
        elif plan.decided():
            answer = plan.answer() >= 0
        if answer:
            _write_witness(campaign, plan, search)
        after = len(_store_keys(campaign))
        outcome = Outcome(status, ran, before, after, round(time.monotonic() - t0, 1), None)
        doc = export(campaign, known, log, last_run=outcome._asdict())
        return outcome._replace(value=doc["summary"]["value"])


def _decide(
    campaign: Campaign, known: dict[str, Any], how: tuple, log: Log
) -> tuple[str, Any, Any, int, int]:
    """The engine's runs of the plan (:func:`_execute`), each decision's answers
    re-checked as ``recheck`` asks (all of them when it contradicts what else is
    proved) and the run gone on while one was wrong: as :func:`_execute` says, the
    units run added up."""
    options, time_limit, stop_after, watch = how
    t0 = time.monotonic()
    ran = before = -1
    while True:
        left = None if time_limit is None else max(0.0, time_limit - (time.monotonic() - t0))
        status, plan, search, first, more = _execute(
            campaign, options, left, stop_after, log, watch=watch
        )
        before, ran = (first if before < 0 else before), max(ran, 0) + more
        share = _share(campaign, plan, known, options.recheck, log) if status == "decided" else 0.0
        if share <= 0 or not recheck_deciding(campaign, share, jobs=options.threads, log=log).wrong:
            return status, plan, search, before, ran
        log("answers the decision rested on were wrong: the run goes on")


def _share(campaign: Campaign, plan: Any, known: dict[str, Any], recheck: float, log: Log) -> float:
    """The share of a decision's answers to re-check: ``recheck``, or all of them when
    the decision contradicts what else is proved (a "no" below an upper bound known)."""
    if not plan.openings or plan.answer() >= 0:
        return recheck
    upper = [int(known["minmax"])] + ([campaign.guesses - 1] if known.get("below") else [])
    if campaign.guesses + 1 <= min(upper):
        return recheck
    log(
        f"within {campaign.guesses}: no, yet a strategy within {min(upper)} is known: an "
        "answer is wrong; the answers the decision rests on are re-checked"
    )
    return 1.0


def recheck(
    campaign: Campaign, fraction: float = 1.0, *, jobs: int = 1, log: Log = print
) -> tuple[Any, dict[str, Any]]:
    """Re-check what the campaign's decision rests on, here: the facts around the
    question worked out again (:func:`bounds_known`; a stated one that differs is said
    and replaced) and a ``fraction`` of the answers not computed here run again
    (:func:`.recheck.recheck`); then the state written again.  (what was re-checked,
    the state).  Under the campaign's lock."""
    with hold(campaign.folder):
        log = also_to_file(log, campaign.path("run.log"))
        restore(campaign, log)
        if not os.path.exists(campaign.checkpoint):
            raise ArgumentError(f"{campaign.folder}: nothing to re-check (no run yet)")
        origins.track(campaign.checkpoint, fresh=False)
        known = _known_again(campaign, log)
        done = recheck_deciding(campaign, fraction, jobs=jobs, log=log)
        log(f"re-checked {done.checked} answers here: {done.wrong} wrong")
        doc = export(campaign, known, log, check_again=True)
        return done, doc


def _known_again(campaign: Campaign, log: Log) -> dict[str, Any]:
    """The facts around the question worked out again here; each that differs from what
    ``state.json`` says is said (a :class:`~mastermind.engine.spotcheck.SpotCheckWarning`)."""
    stated = known_bounds(campaign)
    known = bounds_known(campaign.game, campaign.guesses)
    if known["below"] is None:  # (the search did not end in time: kept as stated)
        log(f"within {campaign.guesses - 1}: not worked out again in time; kept as stated")
        known.update(below=stated["below"], below_refuted=stated["below_refuted"])
    for name, value in known.items():
        if stated.get(name) != value:
            warnings.warn(
                f"re-check: state.json says {name} {stated.get(name)!r}, worked out again "
                f"here: {value!r}; the state is written again",
                SpotCheckWarning,
                stacklevel=2,
            )
    return known


def _execute(
    campaign: Campaign,
    options: RunOptions,
    time_limit: Optional[float],
    stop_after: int,
    log: Log,
    *,
    watch: Optional[Callable[[list[dict[str, Any]]], None]] = None,
) -> tuple[str, Any, Any, int, int]:
    """The engine's run of the plan as ``options`` say, within ``time_limit``: (how it
    ended, the plan, its search, the units recorded before it, the units it ran).  The checkpoint's origins are kept from the
    moment it is opened (:func:`.origins.track`)."""
    flag = new_flag()
    ran = [0]
    said: dict[str, Any] = {}

    def progress(done: int, total: int) -> None:
        ran[0] = done
        if stop_after and done >= stop_after:
            flag.set()  # a stop request: the engine ends as on Ctrl-C
        _watched(plan, said, watch, log)

    game = campaign.game
    status = "decided"
    fresh = not os.path.exists(campaign.checkpoint)
    with open_run(
        game,
        kind="bound",
        params=checkpoint_params_of(campaign),
        options=options,
    ) as engine:
        engine.store.foreign_rows = True  # (made from the shards: a stranger's rows)
        origins.track(campaign.checkpoint, fresh=fresh)
        plan, search = setup(campaign, engine)
        _watched(plan, said, watch, log)  # (the openings decided before: not said again)
        before = len(engine.store)
        log(
            f"{game.name}: within {campaign.guesses}? {len(plan.openings)} openings, "
            f"{before} units recorded"
        )
        try:
            if plan.openings:
                engine.execute(plan, flag, progress, time_limit, options.unit_seconds)
        except TimeLimitReached:
            status = "time-limit"
        except KeyboardInterrupt:
            status = "stopped" if stop_after else "interrupted"
        engine.store.flush()
    return status, plan, search, before, ran[0]


def _watched(plan: Any, said: dict[str, Any], watch: Any, log: Log) -> None:
    """The plan's snapshot to ``watch``; each opening decided since the last look said
    once (the first look, a resume's, says nothing of those decided before)."""
    snap = plan.snapshot()
    first = not said
    for o in snap:
        if o["state"] is not None and not first and said.get(o["opening"]) is None:
            by = o["refuted"]
            what = "proved" if o["state"] else f"refuted: ({by[0]}), {by[1]:,} codes"
            log(f"opening {o['opening']}: {what}")
        said[o["opening"]] = o["state"]
    if watch is not None:
        watch(snap)


def _store_keys(campaign: Campaign) -> set[str]:
    from ...engine.rows import connect_read_only

    conn = connect_read_only(campaign.checkpoint)
    try:
        return {row[0] for row in conn.execute("SELECT key FROM units")}
    finally:
        conn.close()


def _write_witness(campaign: Campaign, plan: Any, search: Any) -> None:
    """The strategy proving the question, checked by the plain scorer, to witness.json."""
    game = campaign.game
    tree = witness_tree(game, plan, search, plan.answer())
    worst = check_strategy(game, tree)
    doc = {
        "pegs": game.n,
        "colours": game.k,
        "variant": game.variant.value,
        "candidates_only": False,
        "max_guesses": worst,
        "tree": tree.to_json(game),
    }
    with OwnDestination(campaign.path("witness.json"), "the campaign's witness") as out:
        out.write(json.dumps(doc) + "\n")


def _witness_again(campaign: Campaign, replay_done: tuple[Any, Any, Any]) -> None:
    """witness.json written again from the checkpoint (``replay_done``: replayed) when
    the question is proved and the folder holds none the stand-alone checker accepts (a
    clone that did not carry it): what the state says a yes rests on is then in the
    folder."""
    plan, _, search = replay_done
    if not plan.openings or not plan.decided() or plan.answer() < 0:
        return
    if os.path.exists(campaign.checkpoint) and not witness_checked(campaign):
        _write_witness(campaign, plan, search)


def export(
    campaign: Campaign,
    known: Optional[dict[str, Any]] = None,
    log: Log = print,
    last_run: Optional[dict[str, Any]] = None,
    *,
    check_again: bool = False,
) -> dict[str, Any]:
    """A shard of the rows no shard holds yet, and the state written again (the last
    run's summary kept); the state.  Under the campaign's lock (the checkpoint made again
    first when it lacks a shard that is here).  The certificates the last state names as
    checked are not checked again, unless ``check_again``."""
    with hold(campaign.folder):
        restore(campaign, log)
        written = []
        if os.path.exists(campaign.checkpoint):  # (none: nothing was ever recorded)
            try:
                written = export_shards(campaign.checkpoint, campaign.shards)
            except sqlite3.Error as e:
                raise _unusable(campaign, e) from None
        for path in written:
            # (named within the campaign's folder: the log travels with it)
            log(f"shard written: shards/{path.name} ({os.lstat(path).st_size:,} bytes)")
        replay_done = replayed(campaign)
        _witness_again(campaign, replay_done)
        checked = None if check_again else _stated(campaign).get("certificates")
        doc = state(
            campaign,
            known if known is not None else known_bounds(campaign),
            checked if isinstance(checked, dict) else None,
            replay_done,
        )
        if last_run is None:
            last_run = _stated(campaign).get("last_run")
        if isinstance(last_run, dict):
            doc["last_run"] = last_run
        shards = shard_paths(campaign.shards)
        doc["shards"] = {"count": len(shards), "bytes": sum(os.lstat(p).st_size for p in shards)}
        write_state(doc, campaign.path("state.json"))
        log(text_table(doc).rstrip())
        return doc
