"""``mastermind bound``: the exact minimal worst case, with its witness and its proof."""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import TYPE_CHECKING, Any, Optional, TextIO

from ..files import check_output
from ..limits import DEFAULT_MEMORY_MB
from ..rules import guesses_text
from .common import (
    EXIT_OK,
    EXIT_UNFINISHED,
    OutputError,
    UsageError,
    check_files,
    check_memory,
    check_scheduler,
    check_time_limit,
    distributed_options,
    game_options,
    integer,
    jobs_option,
    kept_note,
    make_game,
    number,
    output_file,
    output_options,
    recheck,
    unit_errors,
    unit_seconds,
    unit_seconds_option,
    units_text,
    uses_units,
)
from .progress import ProgressBar
from .render import print_table, wants_colour

if TYPE_CHECKING:
    from ..game import Game


def configure(p: argparse.ArgumentParser) -> None:
    p.description = (
        "Prove the minimal worst case p(n,k): a strategy that always finds the "
        "secret within p guesses exists (the witness), and none within p-1 (an "
        "exhaustive search with sound pruning only). On time-out or Ctrl-C the "
        "bounds proved so far are printed and the exit status is 1."
    )
    game_options(p)
    output_options(p)
    p.add_argument(
        "--candidates-only",
        action="store_true",
        help="only codes that can still be the secret may be played",
    )
    p.add_argument(
        "--time-limit",
        type=number,
        default=None,
        metavar="S",
        help="stop after S seconds (the whole command: the cheap proofs first, "
        "then the heuristic upper bound, then the search) and report the "
        "bounds proved so far",
    )
    p.add_argument(
        "--witness",
        metavar="FILE",
        help="write the strategy tree reaching the upper bound (JSON) to FILE",
    )
    p.add_argument(
        "--certificate",
        metavar="FILE",
        help="also write a certificate of both bounds (gzip-compressed JSON lines; "
        "xz-compressed for a name ending .xz) to FILE, for 'mastermind verify FILE' to check without the search "
        "(every code allowed as a guess; docs/certificates.md)",
    )
    p.add_argument(
        "--memory",
        type=integer,
        default=DEFAULT_MEMORY_MB,
        metavar="MB",
        help=f"memory for the search's memo in MB (default {DEFAULT_MEMORY_MB})",
    )
    jobs_option(p)
    distributed_options(p)
    unit_seconds_option(p)
    p.add_argument(
        "--no-progress",
        action="store_true",
        help="never show the progress bar (shown for units of work)",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace, out: TextIO) -> int:
    """0 when the optimum is proved (and every file asked for is written), 1 when
    stopped early or a file could not be written (the bounds are printed all the same)."""
    start = time.monotonic()
    _check(args)
    with output_file(args.witness, "--witness") as dest:
        game = _game(args)
        result = _search(args, game, start)
        witness_error = _write_witness(args, game, result, dest)
    _report(args, result, out)
    kept_note(args, result.exact)
    failed = [e for e in (witness_error, result.certificate_error) if e is not None]
    for error in failed:
        sys.stderr.write(f"mastermind: error: {error}\n")
    if args.certificate is not None and result.certificate is None and not failed:
        sys.stderr.write(
            f"mastermind: nothing written to {args.certificate}: stopped "
            "before the certificate was complete\n"
        )
    if failed or (args.certificate is not None and result.certificate is None):
        return EXIT_UNFINISHED
    return EXIT_OK if result.exact else EXIT_UNFINISHED


def _check(args: argparse.Namespace) -> None:
    """Every option checked before any work; the certificate's path follows the rules of
    the other outputs (mastermind.files)."""
    check_time_limit(args)
    check_memory(args)
    check_scheduler(args)
    unit_seconds(args)
    recheck(args)
    check_files(args, **{"--witness": args.witness, "--certificate": args.certificate})
    if args.certificate is not None:
        check_output(args.certificate, "--certificate")


def _game(args: argparse.Namespace) -> Any:
    """The game, refused when it cannot be bounded (or certified) as asked."""
    game = make_game(args)
    if not game.secrets_are_guesses and not args.candidates_only:
        raise UsageError(f"in {game.name} some secrets cannot be guessed")
    if args.certificate is not None:
        from ..worstcase.certify import check_certifiable

        check_certifiable(game, candidates_only=args.candidates_only, path=args.certificate)
    return game


def _search(args: argparse.Namespace, game: Game, start: float) -> Any:
    """The worst case, within what is left of ``--time-limit``."""
    from ..worstcase.bounds import worst_case

    left = (
        None if args.time_limit is None else max(args.time_limit - (time.monotonic() - start), 1e-3)
    )
    bar = ProgressBar(
        f"{game.name} worst case",
        unit="units",
        enabled=False if args.no_progress or not uses_units(args) else None,
    )
    try:
        with unit_errors(args):
            return worst_case(
                game,
                candidates_only=args.candidates_only,
                time_limit=left,
                memory=args.memory << 20,
                jobs=args.jobs,
                scheduler=args.scheduler,
                checkpoint=args.checkpoint,
                progress=bar if uses_units(args) else None,
                unit_seconds=unit_seconds(args),
                recheck=recheck(args),
                certificate=args.certificate,
            )
    finally:
        bar.close()


def _write_witness(args: argparse.Namespace, game: Game, result: Any, dest: Any) -> Optional[str]:
    """The witness written to ``dest`` (when asked); why it could not be, or None."""
    from ..worstcase.bounds import StrategyCheckError, check_strategy

    if dest is None:
        return None
    if result.witness is None:  # stopped too early for one
        dest.discard()
        sys.stderr.write(
            f"mastermind: nothing written to {args.witness}: the search was "
            "stopped before it found a strategy\n"
        )
        return None
    try:
        worst = check_strategy(game, result.witness, candidates_only=args.candidates_only)
    except StrategyCheckError as e:  # the search's own witness: a bug, not bad input
        raise AssertionError(f"the witness the search built fails its check: {e}") from e
    doc = {
        "pegs": game.n,
        "colours": game.k,
        "variant": game.variant.value,
        "candidates_only": args.candidates_only,
        "max_guesses": worst,
        "tree": result.witness.to_json(game),
    }
    try:
        dest.write(json.dumps(doc) + "\n")
        dest.commit()
    except OutputError as e:  # (the bounds are reported all the same)
        dest.discard()
        return str(e)
    return None


def _report(args: argparse.Namespace, result: Any, out: TextIO) -> None:
    """The result: JSON, a table on a terminal, or plain text."""
    if args.json:
        json.dump(result.to_json(), out)
        out.write("\n")
    elif wants_colour(out):
        _table(result, args.candidates_only, out)
    else:
        _text(result, args.candidates_only, out)


def _text(result: Any, candidates_only: bool, out: TextIO) -> None:
    """The result as plain text (a pipe, a file)."""
    pool = "candidates only" if candidates_only else "all guesses allowed"
    out.write(f"{result.game.name}, {pool}\n")
    out.write(f"{result.summary()}\n")
    out.write(f"lower bound by {result.lower_proof}, upper bound by {result.upper_source}\n")
    for guesses, exists, nodes, seconds in _steps(result.steps):
        out.write(
            f"  at most {guesses_text(guesses) + ':':<12} {_EXISTS[exists]:<10} "
            f"{nodes:>12,} nodes "
            f"{seconds:10.2f} s\n"
        )
    out.write(f"{result.nodes:,} nodes searched in {result.seconds:.2f} s\n")
    if result.units is not None:
        out.write(f"{units_text(result.units, result.units_resumed)}\n")
    if result.certificate is not None:
        out.write(f"{_certificate_text(result.certificate)}\n")
    if not result.exact:
        out.write(f"stopped: {result.status}\n")


_EXISTS = {True: "exists", False: "none", None: "unfinished"}


def _steps(steps: Any) -> list[tuple[int, Optional[bool], int, float]]:
    """(guesses, answer, nodes, seconds) of each number of guesses searched, once: a
    search stopped early (a quick first try) and taken up again later is one row, with
    its answer and the nodes and seconds of both."""
    rows: dict[int, tuple[int, Optional[bool], int, float]] = {}
    for s in steps:
        _, exists, nodes, seconds = rows.get(s.guesses, (s.guesses, None, 0, 0.0))
        answer = s.exists if s.exists is not None else exists
        rows[s.guesses] = (s.guesses, answer, nodes + s.nodes, seconds + s.seconds)
    return list(rows.values())


def _certificate_text(c: Any) -> str:
    claims = f"{c.claims:,} claim{'' if c.claims == 1 else 's'}"
    return (
        f"certificate: {c.path} ({claims}, {c.size:,} bytes, "
        f"{c.seconds:.1f} s); check it with 'mastermind verify {c.path}'"
    )


def _table(result: Any, candidates_only: bool, out: TextIO) -> None:
    """The result on a terminal: the searches as a rich table."""
    what = _EXISTS
    pool = "candidates only" if candidates_only else "all guesses allowed"
    rows = [
        [str(d), what[exists], f"{nodes:,}", f"{seconds:.2f}"]
        for d, exists, nodes, seconds in _steps(result.steps)
    ]
    caption = (
        f"lower bound by {result.lower_proof}, upper bound by {result.upper_source}; "
        f"{result.nodes:,} nodes searched in {result.seconds:.2f} s"
        + ("" if result.units is None else f"\n{units_text(result.units, result.units_resumed)}")
        + ("" if result.certificate is None else f"\n{_certificate_text(result.certificate)}")
        + ("" if result.exact else f"\nstopped: {result.status}")
    )
    print_table(
        out,
        ["at most", "strategy", "nodes", "seconds"],
        rows,
        numeric={"at most", "nodes", "seconds"},
        title=f"{result.game.name}, {pool}: {result.summary()}",
        caption=caption,
    )
