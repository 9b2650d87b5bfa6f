"""``mastermind optimum-campaign``: an expected-case optimum worked out over many runs,
in a folder that carries its state (:mod:`mastermind.optimum.campaign`): ``run``,
``status``, ``projection``, ``export``."""

from __future__ import annotations

import argparse
import os
from typing import TYPE_CHECKING, Any, Optional, TextIO

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
    UsageError,
    integer,
    number,
    output_options,
)

if TYPE_CHECKING:
    from ..optimum.campaign.question import OptimumCampaign


def configure(p: argparse.ArgumentParser) -> None:
    p.description = (
        "Work out the least total number of guesses of a game (or of the position after "
        "--after, or with the opening --first) over as many runs as it takes, as units "
        "of the optimal search that split past their budget. DIR holds the whole state, "
        "laid out as a worst-case campaign's ('mastermind campaign'): the question "
        "(campaign.json), the checkpoint's rows as append-only shards (shards/, what git "
        "carries), where it stands (state.json: each opening's and part's exact total or "
        "proved lower bound), the optimal strategy once proved (optimum.json, replayed "
        "secret by secret before it is written) and the checkpoint (made again from the "
        "shards where there is none). A run resumes where the last stopped, however it "
        "stopped (Ctrl-C, SIGTERM, a killed machine, --time-limit), never solving a "
        "recorded part again, and exports a shard before it ends. DIR's files are read as "
        "a stranger's (a link, a FIFO or a device is refused; a shard that cannot be read "
        "is named and its units run again); one command at a time works on DIR."
    )
    p.epilog = (
        "Examples: 'mastermind optimum-campaign run c44 -n 4 -k 4' (a new campaign), "
        "'mastermind optimum-campaign run results/optimum_5_8/11234-21 -n 5 -k 8 --after "
        "\"11234=2 1\" --time-limit 3600', 'mastermind optimum-campaign status DIR'. Exit "
        "status of run: 0 the optimum proved, 1 stopped before, 2 bad input. "
        "docs/optimal.md tells the [5,8] and [5,7] campaigns' story."
    )
    sub = p.add_subparsers(dest="action", metavar="ACTION", required=True, parser_class=type(p))
    _run_options(sub.add_parser("run", help="go on until the optimum is proved (or stopped)"))
    s = sub.add_parser("status", help="where the campaign stands (from state.json)")
    s.add_argument("folder", metavar="DIR")
    s.add_argument(
        "--replay",
        action="store_true",
        help="work the state out again from the checkpoint (made from the shards if "
        "missing) and write state.json",
    )
    output_options(s)
    folder_actions(sub, "1,64,512")
    p.set_defaults(func=run)


def _run_options(r: argparse.ArgumentParser) -> None:
    r.add_argument("folder", metavar="DIR")
    q = r.add_argument_group("the question (a new campaign; an existing one keeps its own)")
    q.add_argument("-n", type=integer, help="pegs (default 4)")
    q.add_argument("-k", type=integer, help="colours (default 6)")
    q.add_argument("--variant", help="the game's variant (default classic)")
    q.add_argument(
        "--after",
        action="append",
        metavar="GUESS=SCORE",
        help="a guess played and its score (repeatable): the optimum from that position on",
    )
    q.add_argument("--first", metavar="CODE", help="the opening guess")
    q.add_argument("--max-guesses", type=integer, metavar="D", help="within D guesses")
    q.add_argument(
        "--candidates-only", action="store_true", default=None, help="only candidates played"
    )
    q.add_argument("--memory", type=integer, metavar="MB", help="each unit's memo (default 1024)")
    q.add_argument(
        "--unit-seconds", type=number, metavar="S", help="a unit's budget before it splits (60)"
    )
    how_to_run(r)
    output_options(r)


def run(args: argparse.Namespace, out: TextIO) -> int:
    actions = {"run": _run, "status": _status, "projection": _projection, "export": _export}
    return actions[args.action](args, out)


def _after(items: Optional[list[str]]) -> Optional[list[list[str]]]:
    """``--after GUESS=SCORE`` pairs (None: not given)."""
    if not items:
        return None
    out = []
    for item in items:
        guess, sep, score = item.partition("=")
        if not sep:
            raise UsageError(f"--after takes GUESS=SCORE, such as 1123='1 0', not {item!r:.40}")
        out.append([guess.strip(), score.strip()])
    return out


def _given(args: argparse.Namespace) -> dict[str, Any]:
    """The question's options given (None: not given)."""
    after = _after(getattr(args, "after", None))
    return {
        "pegs": getattr(args, "n", None),
        "colours": getattr(args, "k", None),
        "variant": getattr(args, "variant", None),
        "after": after,
        "first": getattr(args, "first", None),
        "max_guesses": getattr(args, "max_guesses", None),
        "candidates_only": getattr(args, "candidates_only", None),
        "memory_mb": getattr(args, "memory", None),
        "unit_seconds": getattr(args, "unit_seconds", None),
    }


def _new(folder: str, given: dict[str, Any]) -> "OptimumCampaign":
    """A new campaign's question from the options (checked: nothing is made yet)."""
    from ..optimum.campaign.question import OptimumCampaign

    return OptimumCampaign.new(folder, **{"pegs": 4, "colours": 6, **given_values(given)})


def _campaign(args: argparse.Namespace) -> "OptimumCampaign":
    """The campaign of DIR, made from the options when it has none (``run``, under the
    campaign's lock); options that disagree with an existing campaign are refused."""
    from ..optimum.campaign.question import OptimumCampaign
    from .campaign_folder import campaign_of

    given = given_values(_given(args))

    def differ(campaign: OptimumCampaign) -> list[str]:
        base = campaign.to_json()
        del base["format"], base["question"]
        mine = _new(args.folder, {**base, **given})  # (the options as the campaign reads them)
        return [
            f"{k} (the campaign's: {getattr(campaign, k)})"
            for k in given
            if getattr(mine, k) != getattr(campaign, k)
        ]

    return campaign_of(args, OptimumCampaign.load, lambda: _new(args.folder, given), differ)


def _held(args: argparse.Namespace) -> Any:
    """The campaign's folder held by this command: made for ``run`` of a new campaign,
    once its question is checked."""
    from ..optimum.campaign.question import hold

    return held(args, lambda: _new(args.folder, _given(args)), hold)


def _run(args: argparse.Namespace, out: TextIO) -> int:
    from ..optimum.campaign.run import run as run_campaign

    with _held(args):
        outcome = run_campaign(
            _campaign(args),
            jobs=args.jobs or 1,
            scheduler=args.scheduler,
            time_limit=args.time_limit,
            stop_after=args.stop_after_units,
            log=log,
        )
    if args.json:
        write_json(outcome._asdict(), out)
    else:
        if outcome.status == "no-strategy":
            answer = "no strategy at all (proved)"
        elif outcome.total is not None:
            answer = f"optimum {outcome.total}"
        elif outcome.lower is not None:
            answer = f"at least {outcome.lower} (proved)"
        else:
            answer = "no bound proved yet"
        out.write(
            f"{outcome.status}: {answer}; {outcome.ran} units run, {outcome.after} recorded "
            f"({outcome.before} before), {outcome.seconds:.1f} s\n"
        )
    return EXIT_OK if outcome.status in ("exact", "no-strategy") else EXIT_UNFINISHED


def _status(args: argparse.Namespace, out: TextIO) -> int:
    from ..engine.folder import check_files
    from ..optimum.campaign.question import FILES
    from ..optimum.campaign.state import read_state, text_table

    doc: Optional[dict[str, Any]]
    if args.replay:
        from ..optimum.campaign.run import export

        with _held(args):
            doc = export(_campaign(args), log=lambda line: None)
    else:
        if os.path.isdir(args.folder):
            check_files(args.folder, FILES)
        campaign = _campaign(args)
        doc = read_state(campaign)
    return write_state(args, doc, out, text_table)


def _projection(args: argparse.Namespace, out: TextIO) -> int:
    from ..optimum.campaign.projection import MOST_WORKERS, projection
    from ..optimum.campaign.run import restore
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


def _projection_text(doc: dict[str, Any]) -> str:
    m = doc["model"]
    lines = [
        f"spent: {doc['spent_core_hours']} core-hours in {doc['units']} units; "
        f"{doc['open_units']} units open (budget {doc['budget_s']:g} s a unit)",
        "cost of a part: "
        + (
            f"{m['a']:.3g} * size^{m['b']:.2f} CPU-s ({m['points']} parts solved, "
            f"spread {m['spread']:.1f}x)"
            if m
            else "no part solved yet"
        ),
        f"left: {doc['left_core_hours']['least']} core-hours (the least opening's open "
        f"parts), {doc['left_core_hours']['all_openings']} (every opening in the running)",
    ]
    pc = doc.get("pace")
    if pc and pc["openings_worked"]:
        lines.append(
            f"pace: {pc['seconds_per_opening']:g} worker-s per opening worked on and "
            f"decided ({pc['openings_worked']} so far); {pc['openings_left']} openings in "
            f"the running not decided: {pc['left_core_hours']} core-hours at that pace"
        )
    elif pc:
        lines.append(f"pace: no opening decided yet ({pc['openings_left']} in the running)")
    for key, sp in doc.get("split_paces", {}).items():
        per = sp["seconds_per_opening"]
        lines.append(
            f"  inside {key} (split): {sp['openings_worked']} guesses decided"
            + (f", {per:g} worker-s each" if per is not None else "")
            + f"; {sp['openings_left']} not decided"
            + (f": {sp['left_core_hours']} core-hours at that pace" if per is not None else "")
        )
    for w, h in doc["left_wall_hours_on_workers"].items():
        paced = f"; at the pace, {h['pace']} h" if "pace" in h else ""
        if "split_paces" in h:
            paced += f"; the split parts at their pace, {h['split_paces']} h"
        lines.append(
            f"  on {w:>5} workers: {h['least']} h ({h['all_openings']} h) of wall time{paced}"
        )
    for w, s in doc["measured_units_on_workers"].items():
        lines.append(
            f"  the recorded units on {w:>5} workers: {s['wall_s']} s wall, speed-up {s['speedup']}"
        )
    return "\n".join(lines) + "\n"


def _export(args: argparse.Namespace, out: TextIO) -> int:
    from ..optimum.campaign.run import export

    with _held(args):
        export(_campaign(args), log=log)
    return EXIT_OK
