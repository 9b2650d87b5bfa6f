"""A campaign's runs: its checkpoint made again from the shards where there is none
(:func:`restore`), a run that goes on from where the last one stopped and ends however
it is stopped with everything it finished recorded, exported and summed up
(:func:`run`), and an export on its own (:func:`export`)."""

from __future__ import annotations

import json
import os
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple, Optional

from ...analysis.exhaustive import analyze
from ...checks import ArgumentError
from ...engine.run import open_run
from ...engine.shards import Imported, behind, export_shards, import_shards, shard_paths
from ...engine.spotcheck import SpotCheckWarning
from ...game import Game
from ...stopping import TimeLimitReached, new_flag
from ..bounds import check_strategy, counting_bound, solution_exists
from ..search import SearchUnfinished
from . import origins
from .question import Campaign, checkpoint_params_of, setup, witness_tree
from .recheck import recheck as recheck_deciding
from .state import state, text_table, write_state

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
    when it is behind them (a newer shard came with the files: it is kept aside as
    ``checkpoint.sqlite.behind``); each shard left out is said (its units run again)."""
    if not shard_paths(campaign.shards):
        return None
    if os.path.exists(campaign.checkpoint):
        if not behind(campaign.checkpoint, campaign.shards):
            return None
        aside = campaign.checkpoint + ".behind"
        os.replace(campaign.checkpoint, aside)
        log(f"{campaign.folder}: the checkpoint is behind the shards: kept as {aside}")
    expected = _stated(campaign).get("shards", {}).get("count", 0)
    got = import_shards(campaign.shards, campaign.checkpoint, expected)
    origins.mark_imported(campaign.checkpoint)  # (its rows: imported, not computed here)
    for line in got.problems:
        log(f"{campaign.folder}: {line}")
    log(f"checkpoint made again from {got.shards} shards: {got.units} units")
    return got


def _stated(campaign: Campaign) -> dict[str, Any]:
    """The campaign's ``state.json`` as the last run or export left it ({} for none)."""
    try:
        doc = json.loads(Path(campaign.path("state.json")).read_text())
        return doc if isinstance(doc, dict) else {}
    except (OSError, ValueError):
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
) -> Outcome:
    """Go on with the campaign until it is decided, ``time_limit`` seconds pass,
    ``stop_after`` units have run, or it is stopped (Ctrl-C; the command line makes
    SIGTERM one); then export a shard, write the state and the witness of a proof.  What
    it says goes to ``log`` and to the campaign's ``run.log``.  ``batch``: units sent to
    a worker as one task (:mod:`mastermind.engine.batching`).

    ``recheck`` (a fraction, 0 to 1): spot-checks, as on a cluster (that share of the
    units the workers run or the checkpoint gives is run again here and compared), and,
    once the question is decided, that share of the answers the decision rests on that
    were not computed here re-checked (:func:`.recheck.recheck`); an answer found wrong
    is replaced and the run goes on.  Each one found wrong is a
    :class:`~mastermind.engine.spotcheck.SpotCheckWarning`."""
    log = _also_to_file(log, campaign.path("run.log"))
    restore(campaign, log)
    known = known_bounds(campaign)
    t0 = time.monotonic()
    ran = before = -1
    while True:
        left = None if time_limit is None else max(0.0, time_limit - (time.monotonic() - t0))
        status, plan, search, first, more = _execute(
            campaign, jobs, scheduler, left, stop_after, log, batch=batch, recheck=recheck
        )
        before, ran = (first if before < 0 else before), max(ran, 0) + more
        share = _share(campaign, plan, known, recheck, log) if status == "decided" else 0.0
        if share <= 0 or not recheck_deciding(campaign, share, jobs=jobs, log=log).wrong:
            break
        log("answers the decision rested on were wrong: the run goes on")
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
    the state)."""
    log = _also_to_file(log, campaign.path("run.log"))
    restore(campaign, log)
    if not os.path.exists(campaign.checkpoint):
        raise ArgumentError(f"{campaign.folder}: nothing to re-check (no run yet)")
    origins.track(campaign.checkpoint, fresh=False)
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
    done = recheck_deciding(campaign, fraction, jobs=jobs, log=log)
    log(f"re-checked {done.checked} answers here: {done.wrong} wrong")
    doc = export(campaign, known, log, check_again=True)
    return done, doc


def _also_to_file(log: Log, path: str) -> Log:
    """``log``, each line also appended to ``path`` with the time (UTC)."""

    def both(line: str) -> None:
        log(line)
        with open(path, "a") as f:
            f.write(time.strftime("%Y-%m-%d %H:%M:%S ", time.gmtime()) + line + "\n")

    return both


def _execute(
    campaign: Campaign,
    jobs: int,
    scheduler: Optional[str],
    time_limit: Optional[float],
    stop_after: int,
    log: Log,
    *,
    batch: int = 1,
    recheck: float = 0.0,
) -> tuple[str, Any, Any, int, int]:
    """The engine's run of the plan: (how it ended, the plan, its search, the units
    recorded before it, the units it ran).  The checkpoint's origins are kept from the
    moment it is opened (:func:`.origins.track`)."""
    flag = new_flag()
    ran = [0]

    def progress(done: int, total: int) -> None:
        ran[0] = done
        if stop_after and done >= stop_after:
            flag.set()  # a stop request: the engine ends as on Ctrl-C

    game = campaign.game
    status = "decided"
    fresh = not os.path.exists(campaign.checkpoint)
    with open_run(
        game,
        kind="bound",
        params=checkpoint_params_of(campaign),
        scheduler=scheduler,
        client=None,
        threads=jobs,
        checkpoint=campaign.checkpoint,
        batch=batch,
        recheck=recheck,
    ) as engine:
        origins.track(campaign.checkpoint, fresh=fresh)
        plan, search = setup(campaign, engine)
        before = len(engine.store)
        log(
            f"{game.name}: within {campaign.guesses}? {len(plan.openings)} openings, "
            f"{before} units recorded"
        )
        try:
            if plan.openings:
                engine.execute(plan, flag, progress, time_limit, campaign.unit_seconds)
        except TimeLimitReached:
            status = "time-limit"
        except KeyboardInterrupt:
            status = "stopped" if stop_after else "interrupted"
        engine.store.flush()
    return status, plan, search, before, ran[0]


def _store_keys(campaign: Campaign) -> set[str]:
    from ...engine.checkpoint import connect_read_only

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
    Path(campaign.path("witness.json")).write_text(json.dumps(doc) + "\n")


def export(
    campaign: Campaign,
    known: Optional[dict[str, Any]] = None,
    log: Log = print,
    last_run: Optional[dict[str, Any]] = None,
    *,
    check_again: bool = False,
) -> dict[str, Any]:
    """A shard of the rows finished since the last one, and the state written again (the
    last run's summary kept); the state.  The certificates the last state names as
    checked are not checked again, unless ``check_again``."""
    written = export_shards(campaign.checkpoint, campaign.shards)
    for path in written:
        # (named within the campaign's folder: the log travels with it)
        log(f"shard written: shards/{path.name} ({path.stat().st_size:,} bytes)")
    checked = None if check_again else _stated(campaign).get("certificates")
    doc = state(
        campaign,
        known if known is not None else known_bounds(campaign),
        checked if isinstance(checked, dict) else None,
    )
    last_run = last_run if last_run is not None else _stated(campaign).get("last_run")
    if last_run is not None:
        doc["last_run"] = last_run
    shards = shard_paths(campaign.shards)
    doc["shards"] = {"count": len(shards), "bytes": sum(p.stat().st_size for p in shards)}
    write_state(doc, campaign.path("state.json"))
    log(text_table(doc).rstrip())
    return doc
