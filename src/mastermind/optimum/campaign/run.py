"""An optimum campaign's runs: its checkpoint made again from the shards where there is
none (:func:`restore`), a run that goes on from where the last one stopped and ends,
however it is stopped, with everything it finished recorded, exported and summed up
(:func:`run`), and an export on its own (:func:`export`)."""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Callable
from typing import Any, NamedTuple, Optional, cast

from ...engine.folder import also_to_file, shard_count
from ...engine.options import RunOptions
from ...engine.own_files import OwnDestination
from ...engine.run import open_run
from ...engine.shards import (
    Imported,
    export_shards,
    restore_checkpoint,
    shard_paths,
    unusable,
)
from ...errors import MastermindError
from ...stopping import TimeLimitReached, new_flag
from ...views.tree import replay_distribution, to_json
from ..search import optimum_from
from .question import OptimumCampaign, hold, plan_of
from .state import read_state, state, text_table, write_state

__all__ = ["Outcome", "export", "restore", "run"]

Log = Callable[[str], None]


class Outcome(NamedTuple):
    """How a run ended: ``status`` (exact, no-strategy: none within the most guesses,
    time-limit, interrupted, stopped), the units it ran, the units recorded before and
    after it, its seconds, and the answer: the total when exact, else the proved lower
    bound (None: none proved yet)."""

    status: str
    ran: int
    before: int
    after: int
    seconds: float
    total: Optional[int]
    lower: Optional[int]


def restore(campaign: OptimumCampaign, log: Log) -> Optional[Imported]:
    """The checkpoint made again from the shards where there is none, or where it lacks
    one of them (:func:`mastermind.engine.shards.restore_checkpoint`).  Under the
    campaign's lock."""
    with hold(campaign.folder):
        return restore_checkpoint(
            campaign.checkpoint,
            campaign.shards,
            campaign.run_of(),
            shard_count(_stated(campaign)),
            lambda line: log(f"{campaign.folder}: {line}"),
        )


def _stated(campaign: OptimumCampaign) -> dict[str, Any]:
    """``state.json`` as the last run or export left it ({} for none, or one that
    cannot be read: every run and export writes it again)."""
    try:
        return read_state(campaign) or {}
    except MastermindError:
        return {}


def run(
    campaign: OptimumCampaign,
    *,
    jobs: int = 1,
    scheduler: Optional[str] = None,
    time_limit: Optional[float] = None,
    stop_after: int = 0,
    log: Log = print,
) -> Outcome:
    """Go on with the campaign until its optimum is proved, ``time_limit`` seconds pass,
    ``stop_after`` units have run, or it is stopped (Ctrl-C; the command line makes
    SIGTERM one); then export a shard, write the state, and the optimal strategy once it
    is proved (``optimum.json``).  What it says goes to ``log`` and to ``run.log``.  The
    campaign's lock is held throughout."""
    with hold(campaign.folder):
        log = also_to_file(log, campaign.path("run.log"))
        restore(campaign, log)
        t0 = time.monotonic()
        status, plan, before, ran = _execute(campaign, jobs, scheduler, time_limit, stop_after, log)
        seconds = round(time.monotonic() - t0, 1)
        outcome = Outcome(status, ran, before, before, seconds, None, None)
        try:
            if status == "exact" and plan.done():
                _write_optimum(campaign, plan)
            doc = export(campaign, log, last_run=outcome._asdict())
        except KeyboardInterrupt:
            log(
                "interrupted before the export ended: the units finished are in the "
                "checkpoint, the next run or export exports them"
            )
            raise
        s = doc["summary"]
        if status == "exact" and s.get("feasible") is False:
            status = "no-strategy"
        return outcome._replace(status=status, after=s["units"], total=s["total"], lower=s["lower"])


def _execute(
    campaign: OptimumCampaign,
    jobs: int,
    scheduler: Optional[str],
    time_limit: Optional[float],
    stop_after: int,
    log: Log,
) -> tuple[str, Any, int, int]:
    """The engine's run of the plan: (how it ended, the plan, the units recorded before
    it, the units it ran)."""
    flag = new_flag()
    ran = [0]

    def progress(done: int, total: int) -> None:
        ran[0] = done
        if stop_after and done >= stop_after:
            flag.set()  # a stop request: the engine ends as on Ctrl-C

    status = "exact"
    want = campaign.run_of()
    options = RunOptions(
        jobs,
        scheduler=scheduler,
        checkpoint=campaign.checkpoint,
        unit_seconds=campaign.unit_seconds,
    )
    with open_run(
        campaign.game, kind=want["kind"], params=want["params"], options=options
    ) as engine:
        engine.store.foreign_rows = True  # (made from the shards: a stranger's rows)
        before = len(engine.store)
        plan = plan_of(campaign, engine.store.keys())
        log(f"{campaign.game.name}: {_what(campaign)}; {before} units recorded")
        budget = options.unit_seconds if hasattr(plan, "expand") else None
        try:
            engine.execute(plan, flag, progress, time_limit, budget)
        except TimeLimitReached:
            status = "time-limit"
        except KeyboardInterrupt:
            status = "stopped" if stop_after else "interrupted"
        engine.store.flush()
    return status, plan, before, ran[0]


def _what(campaign: OptimumCampaign) -> str:
    where = " after " + ", ".join(f"{g} = ({s})" for g, s in campaign.after)
    first = f", opening {campaign.first}" if campaign.first else ""
    return "the optimum" + (where if campaign.after else "") + first


def _write_optimum(campaign: OptimumCampaign, plan: Any) -> None:
    """The optimal strategy, replayed secret by secret to its total before it is written
    to ``optimum.json`` (``mastermind tree --format json``'s format)."""
    game = campaign.game
    answer = plan.answer(done=True)
    if answer is None or answer.recs is None:
        return
    result = optimum_from(
        game,
        candidates_only=campaign.candidates_only,
        max_guesses=campaign.max_guesses,
        g0=campaign.opening(),
        seed=None,
        found=answer,
        status="exact",
        deadline_passed=False,
        nodes=0,
        seconds=0.0,
        secrets=campaign.secrets(),
        history=campaign.played(),
    )
    doc = to_json(cast(Any, result))  # (an Optimum has a strategy's fields)
    dist = replay_distribution(doc, game)
    if sum(d * c for d, c in dist.items()) != answer.value:  # pragma: no cover - a bug
        raise RuntimeError("the optimal strategy put together does not replay to its total")
    with OwnDestination(campaign.path("optimum.json"), "the campaign's strategy") as out:
        out.write(json.dumps(doc) + "\n")


def export(
    campaign: OptimumCampaign, log: Log = print, last_run: Optional[dict[str, Any]] = None
) -> dict[str, Any]:
    """A shard of the rows no shard holds yet, and the state written again (the last
    run's summary kept); the state.  Under the campaign's lock."""
    with hold(campaign.folder):
        restore(campaign, log)
        written = []
        if os.path.exists(campaign.checkpoint):  # (none: nothing was ever recorded)
            try:
                written = export_shards(campaign.checkpoint, campaign.shards)
            except sqlite3.Error as e:
                raise unusable(campaign.checkpoint, e) from None
        for path in written:
            log(f"shard written: shards/{path.name} ({os.lstat(path).st_size:,} bytes)")
        doc = state(campaign)
        if last_run is None:
            last_run = _stated(campaign).get("last_run")
        if isinstance(last_run, dict):
            doc["last_run"] = last_run
        shards = shard_paths(campaign.shards)
        doc["shards"] = {"count": len(shards), "bytes": sum(os.lstat(p).st_size for p in shards)}
        write_state(doc, campaign.path("state.json"))
        log(text_table(doc, brief=True).rstrip())
        return doc
