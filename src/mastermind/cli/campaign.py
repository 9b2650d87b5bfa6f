"""``mastermind campaign``: a worst-case question decided over many runs, in a folder
that carries its state (:mod:`mastermind.worstcase.campaign`): ``run``, ``status``,
``projection``, ``export``, ``recheck``."""

from __future__ import annotations

import argparse
import os
from typing import TYPE_CHECKING, Any, Optional, TextIO

from .. import checks
from .campaign_folder import (
    folder_actions,
    given_values,
    held,
    how_to_run,
    log,
    write_json,
    write_state,
)
from .common import (
    EXIT_OK,
    EXIT_UNFINISHED,
    checked,
    integer,
    jobs_option,
    number,
    output_options,
)
from .progress import ProgressBar

if TYPE_CHECKING:
    from ..worstcase.campaign.question import Campaign

DEFAULTS: dict[str, Any] = {"pegs": 5, "colours": 8, "variant": "classic", "guesses": 6}
"""A new campaign's question unless the options say otherwise: whether p(5,8) is 6."""


def configure(p: argparse.ArgumentParser) -> None:
    p.description = (
        "Decide whether every secret can be found within D guesses (for [5,8] and D = 6: "
        "whether p(5,8) is 6 or 7) over as many runs as it takes. DIR holds the whole "
        "state: the question (campaign.json), the checkpoint's rows as append-only "
        "shards (shards/, what git carries), where it stands (state.json) and the "
        "checkpoint (made again from the shards where there is none). A run resumes "
        "where the last stopped, however it stopped (Ctrl-C, SIGTERM, a killed machine, "
        "--time-limit); it exports a shard before it ends. "
        "Trust: DIR is what git carries between people, so its files are read as a "
        "stranger's: a link, a FIFO or a device among them is refused, never followed; "
        "shards are read typed and bounded, and one that cannot be read is named and "
        "left out (its units run again). A shard's answers are taken as recorded: whoever "
        "can commit to DIR can forge one, as anyone can who runs a worker "
        "(docs/distributed.md, 'The trust model'). One command at a time works on DIR "
        "(run, export, projection, status --replay take its lock, campaign.lock): a "
        "second is refused at once."
    )
    p.epilog = (
        "Examples: 'mastermind campaign run results/p58 --time-limit 3600', "
        "'mastermind campaign status results/p58', 'mastermind campaign run c46 -n 4 "
        "-k 6 --guesses 5' (a new campaign). Exit status of run: 0 decided, 1 stopped "
        "before, 2 bad input, 4 a re-check (--recheck, recheck) found an answer wrong. "
        "docs/bounds.md tells the p(5,8) campaign's story."
    )
    sub = p.add_subparsers(dest="action", metavar="ACTION", required=True, parser_class=type(p))
    _run_options(sub.add_parser("run", help="go on until decided (or stopped)"))
    s = sub.add_parser("status", help="where the campaign stands (from state.json)")
    s.add_argument("folder", metavar="DIR")
    s.add_argument("--markdown", action="store_true", help="the table of docs/bounds.md")
    s.add_argument(
        "--replay",
        action="store_true",
        help="work the state out again from the checkpoint (made from the shards if "
        "missing: minutes for a big campaign) and write state.json",
    )
    output_options(s)
    folder_actions(sub, "1,16,64,512")
    _recheck_options(sub.add_parser("recheck", help="re-check here what the decision rests on"))
    p.set_defaults(func=run)


def _recheck_options(rc: argparse.ArgumentParser) -> None:
    rc.description = (
        "Work out again here the facts around the question (d - 1 guesses, the minmax "
        "strategy, the counting bound), check the part certificates of DIR/certificates/ "
        "again, and run again, in one piece, the answers the decision rests on that were "
        "not computed here (imported from the shards, or of unknown origin): for a 'no', "
        "one refuted part of each opening. An answer found wrong is replaced by its "
        "re-run's (one line each, exit status 4); then state.json is written again."
    )
    rc.add_argument("folder", metavar="DIR")
    rc.add_argument(
        "--fraction",
        type=number,
        default=1.0,
        metavar="F",
        help="re-check this share of those answers, picked at random (default 1: all)",
    )
    jobs_option(rc)


def _run_options(r: argparse.ArgumentParser) -> None:
    r.add_argument("folder", metavar="DIR")
    q = r.add_argument_group("the question (a new campaign; an existing one keeps its own)")
    q.add_argument("-n", type=integer, help=f"pegs (default {DEFAULTS['pegs']})")
    q.add_argument("-k", type=integer, help=f"colours (default {DEFAULTS['colours']})")
    q.add_argument("--variant", help="the game's variant (default classic)")
    q.add_argument("--guesses", type=integer, metavar="D", help="within D guesses (default 6)")
    q.add_argument("--memory", type=integer, metavar="MB", help="each unit's memo (default 1024)")
    q.add_argument(
        "--unit-seconds", type=number, metavar="S", help="a unit's budget before it splits (60)"
    )
    q.add_argument(
        "--focus",
        metavar="CODE",
        help="the opening whose parts go first, smallest first, or 'engine' (the engine's "
        "order: opening by opening, each's parts largest first); default: every opening side "
        "by side, one part of each at a time, its largest first, the costliest openings first",
    )
    how_to_run(r)
    r.add_argument(
        "--recheck",
        type=number,
        default=0.0,
        metavar="FRACTION",
        help="spot-checks, as for a cluster: re-run this fraction of the units (0 to 1) "
        "here, whether a worker or the checkpoint gave the answer; and once decided, "
        "re-run that fraction of the answers the decision rests on that were imported "
        "from the shards (a refutation cannot be checked otherwise). A wrong answer is "
        "one line, replaced by the re-run's, and the exit status is 4",
    )
    r.add_argument(
        "--batch",
        type=integer,
        default=1,
        metavar="N",
        help="send the units to the workers N at a time, one task each (default 1): on a "
        "cluster, the tiny units then cost the scheduler one task per N; the same answers",
    )
    output_options(r)


def run(args: argparse.Namespace, out: TextIO) -> int:
    actions = {
        "run": _run,
        "status": _status,
        "projection": _projection,
        "export": _export,
        "recheck": _recheck,
    }
    return actions[args.action](args, out)


def _given(args: argparse.Namespace) -> dict[str, Any]:
    """The question's options given (None: not given)."""
    return {
        "pegs": getattr(args, "n", None),
        "colours": getattr(args, "k", None),
        "variant": getattr(args, "variant", None),
        "guesses": getattr(args, "guesses", None),
        "memory_mb": getattr(args, "memory", None),
        "unit_seconds": getattr(args, "unit_seconds", None),
        "focus": getattr(args, "focus", None),
    }


def _campaign(args: argparse.Namespace) -> "Campaign":
    """The campaign of DIR, made from the options when it has none (``run``, under the
    campaign's lock); options that disagree with an existing campaign are refused."""
    from ..worstcase.campaign.question import Campaign
    from .campaign_folder import campaign_of

    given = given_values(_given(args))

    def differ(campaign: Campaign) -> list[str]:
        return [
            f"{k} {v} (the campaign's: {getattr(campaign, k)})"
            for k, v in given.items()
            if v != getattr(campaign, k)
        ]

    return campaign_of(args, Campaign.load, lambda: _new_campaign(args.folder, given), differ)


def _new_campaign(folder: str, given: dict[str, Any]) -> "Campaign":
    """A new campaign's question from the options (checked: nothing is made yet)."""
    from ..worstcase.campaign.question import Campaign

    return Campaign.new(folder, **{**DEFAULTS, **given_values(given)})


def _held(args: argparse.Namespace) -> Any:
    """The campaign's folder held by this command (:func:`hold`): made for ``run`` of a
    new campaign, once its question is checked."""
    from ..worstcase.campaign.folder import hold

    return held(args, lambda: _new_campaign(args.folder, _given(args)), hold)


def _run(args: argparse.Namespace, out: TextIO) -> int:
    from ..worstcase.campaign.run import run as run_campaign

    fraction = _fraction(args.recheck, "--recheck")
    bar = ProgressBar("", unit="openings decided")
    with _held(args):
        campaign = _campaign(args)
        try:
            outcome = run_campaign(
                campaign,
                recheck=fraction,
                jobs=args.jobs or 1,
                scheduler=args.scheduler,
                time_limit=args.time_limit,
                stop_after=args.stop_after_units,
                batch=args.batch,
                log=log,
                watch=lambda snap: _show(bar, snap),
            )
        finally:
            bar.close()
    if args.json:
        write_json(outcome._asdict(), out)
    else:
        out.write(
            f"{outcome.status}: {outcome.ran} units run, {outcome.after} recorded "
            f"({outcome.before} before), {outcome.seconds:.1f} s\n"
        )
    return EXIT_OK if outcome.status == "decided" else EXIT_UNFINISHED


def _show(bar: ProgressBar, snap: list[dict[str, Any]]) -> None:
    """The progress bar (on a terminal): the openings decided, and the parts running
    (for one that split, its guesses refuted of those it has)."""
    running = []
    for o in snap:
        for p in o["running"]:
            g = p["guesses"]
            guesses = f" {g[0]}/{sum(g)} refuted" if g else ""
            running.append(f"{o['opening']} ({p['score']}) {p['size']:,}{guesses}")
    refuted = sum(o["state"] is False for o in snap)
    if any(o["state"] is True for o in snap):  # one opening solvable: the question is decided
        bar.describe(f"{refuted} refuted; an opening solvable: decided")
        bar(len(snap), len(snap))
        return
    bar.describe(f"{refuted} refuted; " + ("; ".join(running) or "starting"))
    bar(sum(o["state"] is not None for o in snap), len(snap))


def _status(args: argparse.Namespace, out: TextIO) -> int:
    from ..worstcase.campaign.folder import CampaignFileError, check_files
    from ..worstcase.campaign.state import markdown_table, read_state, text_table

    doc: Optional[dict[str, Any]]
    if args.replay:
        from ..worstcase.campaign.run import export, restore

        with _held(args):
            campaign = _campaign(args)
            restore(campaign, log)  # (what it says is said; the export's own lines not)
            doc = export(campaign, log=lambda line: None)
    else:
        if os.path.isdir(args.folder):
            check_files(args.folder)
        campaign = _campaign(args)
        try:
            doc = read_state(campaign)
        except CampaignFileError as e:
            raise CampaignFileError(f"{e}; give --replay to work it out again") from None
    return write_state(args, doc, out, markdown_table if args.markdown else text_table)


def _projection(args: argparse.Namespace, out: TextIO) -> int:
    from ..worstcase.campaign.projection import MOST_WORKERS, projection
    from ..worstcase.campaign.run import restore
    from .campaign_folder import projection as command

    return command(
        args,
        out,
        most=MOST_WORKERS,
        campaign=lambda: _campaign(args),
        restore=restore,
        project=projection,
        text=_projection_text,
        hold=lambda: _held(args),
    )


def _projection_text(doc: dict) -> str:
    lines = [
        f"spent: {doc['spent_core_hours']} core-hours; {doc['open_questions']} questions "
        f"open (budget {doc['budget_s']:g} s a unit)",
        f"{'left':>4} {'units':>7} {'split':>6} {'solv':>6} {'ref':>6} {'solv s':>8} "
        f"{'ref s':>8} {'split%':>6} {'G':>7} {'P':>5} {'R':>6} {'solvable q':>11} "
        f"{'refuted q':>11}",
    ]
    for e, m in doc["levels"].items():
        lines.append(
            f"{e:>4} {m['units']:>7} {m['split']:>6} {m['solvable']:>6} {m['refuted']:>6} "
            f"{m['mean_solvable_s']:>8} {m['mean_refuted_s']:>8} "
            f"{100 * m['split_share']:>5.1f}% {m['guesses_per_split']:>7} "
            f"{m['parts_per_guess']:>5} {m['refuted_guesses_per_split']:>6} "
            f"{m['solvable_question_s']:>11} {m['refuted_question_s']:>11}"
        )
    low, high = doc["p_low"], doc["p_high"]
    if low:
        lines.append(
            f"the lower value (opening {low['opening']}, {low['open_parts']} open parts "
            f"solvable): at least {low['core_hours']} core-hours"
        )
    lines.append(
        f"the higher value (a part refuted in each of {high['openings']} openings): at "
        f"least {high['core_hours']} core-hours"
    )
    for w, s in doc["measured_units_on_workers"].items():
        lines.append(
            f"  the recorded units on {w:>5} workers: {s['wall_s']} s wall, speed-up {s['speedup']}"
        )
    return "\n".join(lines) + "\n"


def _fraction(value: float, option: str) -> float:
    """A share of the answers to re-check, 0 to 1 (:func:`mastermind.checks.recheck`)."""
    return checked(checks.recheck, value, "recheck", option)


def _recheck(args: argparse.Namespace, out: TextIO) -> int:
    from ..worstcase.campaign.run import recheck
    from ..worstcase.campaign.state import text_table

    fraction = _fraction(args.fraction, "--fraction")
    with _held(args):
        done, doc = recheck(_campaign(args), fraction, jobs=args.jobs or 1, log=log)
    out.write(f"re-checked {done.checked} answers here: {done.wrong} wrong\n")
    out.write(text_table(doc))
    return EXIT_OK


def _export(args: argparse.Namespace, out: TextIO) -> int:
    from ..worstcase.campaign.run import export

    with _held(args):
        export(_campaign(args), log=log)
    return EXIT_OK
