"""What the two campaign commands share (``mastermind campaign``, a worst-case question;
``mastermind optimum-campaign``, an expected-case optimum): the time-stamped log lines,
the JSON output, the campaign's folder held while a command works on it, the campaign read
or made from the options, the state's table or a one-line error, and the projection's
worker counts.  Each command passes in its own family's functions (imported when the
action runs, so that ``--help`` loads none of them)."""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from collections.abc import Callable
from typing import Any, Optional, TextIO

from .common import EXIT_OK, UsageError, integer, jobs_option, number, output_options

MOST_WORKER_COUNTS = 64
"""How many worker counts one ``projection`` may be asked for."""


def folder_actions(sub: Any, workers: str) -> None:
    """The actions both campaign commands have beside ``run``: ``projection`` (``workers``:
    the default worker counts) and ``export``."""
    pr = sub.add_parser("projection", help="the core-hours still needed, and on W workers")
    pr.add_argument("folder", metavar="DIR")
    pr.add_argument(
        "--workers", default=workers, help=f"worker counts, each at least 1 (default {workers})"
    )
    pr.add_argument(
        "--record",
        type=number,
        default=0.0,
        metavar="S",
        help="the client's seconds (>= 0) to record one unit, in the wall times (default 0)",
    )
    output_options(pr)
    e = sub.add_parser("export", help="a shard of the rows no shard holds yet, and state.json")
    e.add_argument("folder", metavar="DIR")


def how_to_run(r: argparse.ArgumentParser) -> None:
    """``run``'s options of when to stop and where the units run."""
    r.add_argument("--time-limit", type=number, default=None, metavar="S", help="stop after S s")
    r.add_argument(
        "--stop-after-units", type=integer, default=0, metavar="N", help="stop once N units ran"
    )
    jobs_option(r)
    r.add_argument(
        "--scheduler",
        metavar="ADDRESS|local:N",
        help="run the units on a Dask cluster: a scheduler's address, or local:N worker "
        "processes here (docs/distributed.md); the answer is the same",
    )


def log(line: str) -> None:
    """One line of a campaign's log on standard error, with the time (UTC)."""
    sys.stderr.write(time.strftime("%H:%M:%S ", time.gmtime()) + line + "\n")


def finite(doc: Any) -> Any:
    """``doc`` with every number JSON cannot hold (NaN, infinities) as None (null)."""
    if isinstance(doc, float) and not math.isfinite(doc):
        return None
    if isinstance(doc, dict):
        return {k: finite(v) for k, v in doc.items()}
    if isinstance(doc, list):
        return [finite(v) for v in doc]
    return doc


def write_json(doc: Any, out: TextIO) -> None:
    """``doc`` as one line of JSON (strict: no NaN)."""
    json.dump(finite(doc), out, allow_nan=False)
    out.write("\n")


def has_campaign(folder: str) -> bool:
    return os.path.lexists(os.path.join(folder, "campaign.json"))


def held(args: argparse.Namespace, new: Callable[[], Any], hold: Callable[..., Any]) -> Any:
    """The campaign's folder held by this command (``hold``): made for ``run`` of a new
    campaign, once its question is checked (``new()``: a question refused makes no
    folder)."""
    make = args.action == "run" and not has_campaign(args.folder)
    if make:
        new()
    return hold(args.folder, make=make)


def campaign_of(
    args: argparse.Namespace,
    load: Callable[[str], Any],
    new: Callable[[], Any],
    differ: Callable[[Any], list[str]],
) -> Any:
    """The campaign of DIR (``load``), or one made from the options when it has none
    (``new``, only for ``run``, under the campaign's lock).  ``differ`` names the options
    that disagree with an existing campaign, which are refused."""
    if has_campaign(args.folder):
        campaign = load(args.folder)
        wrong = differ(campaign)
        if wrong:
            raise UsageError(f"{args.folder} is a campaign of its own: " + "; ".join(wrong))
        return campaign
    if args.action != "run":
        raise UsageError(f"{args.folder}: no campaign here (no campaign.json)")
    campaign = new()
    campaign.save()
    return campaign


def write_state(
    args: argparse.Namespace,
    doc: Optional[dict[str, Any]],
    out: TextIO,
    table: Callable[[dict[str, Any]], str],
) -> int:
    """``status DIR``'s output: the state as JSON (``--json``) or as its table.  No state
    yet, or a state.json that does not hold a campaign's state, is one line."""
    from ..engine.folder import CampaignFileError

    if doc is None:
        raise UsageError(f"{args.folder}: no state.json yet (give --replay)")
    if args.json:
        write_json(doc, out)
        return EXIT_OK
    try:
        out.write(table(doc))
        return EXIT_OK
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as e:
        raise CampaignFileError(
            f"{os.path.join(args.folder, 'state.json')}: not a campaign's state "
            f"({type(e).__name__}: {str(e)[:80]}); give --replay to work it out again"
        ) from None


def worker_counts(text: str, most: int) -> list[int]:
    """``--workers``: worker counts separated by commas, each 1 .. ``most``."""
    try:
        workers = [integer(w) for w in text.split(",")]
    except ValueError:
        raise UsageError(
            f"--workers must be numbers separated by commas, not {text!r:.60}"
        ) from None
    if not 1 <= len(workers) <= MOST_WORKER_COUNTS or not all(1 <= w <= most for w in workers):
        raise UsageError(
            f"--workers must be 1 to {MOST_WORKER_COUNTS} worker counts, each 1 to {most:,}"
        )
    return workers


def projection(
    args: argparse.Namespace,
    out: TextIO,
    *,
    most: int,
    campaign: Callable[[], Any],
    restore: Callable[[Any, Callable[[str], None]], Any],
    project: Callable[..., dict[str, Any]],
    text: Callable[[dict[str, Any]], str],
    hold: Callable[[], Any],
) -> int:
    """``projection DIR``: the campaign restored from its folder, and what is left of it
    on each of ``--workers`` worker counts (``project``)."""
    workers = worker_counts(args.workers, most)
    if not 0 <= args.record < float("inf"):
        raise UsageError("--record must be a number of seconds >= 0")
    with hold():
        question = campaign()
        restore(question, log)
        doc = project(question, workers, record=args.record)
    if args.json:
        write_json(doc, out)
    else:
        out.write(text(doc))
    return EXIT_OK


def given_values(given: dict[str, Optional[Any]]) -> dict[str, Any]:
    """The options given (those not None)."""
    return {k: v for k, v in given.items() if v is not None}
