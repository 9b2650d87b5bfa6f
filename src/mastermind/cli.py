"""The ``mastermind`` command.  ``main(argv)`` is testable in-process and returns the exit
status: 0 done, 1 unfinished (interrupted), 2 bad input."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Sequence
from typing import NoReturn, Optional, TextIO

from .analysis import analyze, first_guess_table, solve
from .game import Game, Variant
from .play import register as register_play
from .strategies import Strategy, first_guess

EXIT_OK, EXIT_UNFINISHED, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    """Bad input from the command line: reported on one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see '{self.prog} --help')")


# ---------------------------------------------------------------------- shared options
def game_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("game")
    g.add_argument("-n", "--pegs", type=int, default=4, metavar="N",
                   help="positions in a code, 1..8 (default 4)")
    g.add_argument("-k", "--colours", "--colors", dest="colours", type=int, default=6,
                   metavar="K", help="colours, 1..16 (default 6)")
    g.add_argument("--variant", default="classic", choices=[v.value for v in Variant],
                   help="classic (default): repetition everywhere; distinct: secrets without "
                        "repeated colours; bulls-and-cows: no repetition anywhere; "
                        "black-peg: blacks only; permutation: n = k, no repetition")


def strategy_options(p: argparse.ArgumentParser) -> None:
    s = p.add_argument_group("strategy")
    s.add_argument("-s", "--strategy", default="minmax", choices=[x.value for x in Strategy],
                   help="minmax (Knuth, default), entropy, parts (most parts), expected-size "
                        "(Irving), first-candidate")
    s.add_argument("--candidates-only", action="store_true",
                   help="guess only codes that can still be the secret (default: any code)")
    s.add_argument("--first", metavar="CODE",
                   help="the opening guess, e.g. 1122 (default: the strategy's own choice)")


def output_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="print one JSON object instead of text")


def make_game(args: argparse.Namespace) -> Game:
    return Game(args.pegs, args.colours, args.variant)


# ---------------------------------------------------------------------- progress
class ProgressBar:
    """A progress bar on stderr, shown only on a terminal and only after ``delay`` seconds."""

    def __init__(self, label: str, stream: TextIO = sys.stderr, delay: float = 1.0,
                 enabled: Optional[bool] = None):
        self.label = label
        self.stream = stream
        self.start = time.monotonic()
        self.delay = delay
        self.enabled = stream.isatty() if enabled is None else enabled
        self.shown = False

    def __call__(self, done: int, total: int) -> None:
        elapsed = time.monotonic() - self.start
        if not self.enabled or elapsed < self.delay:
            return
        frac = done / total if total else 1.0
        width = 30
        bar = "#" * int(frac * width) + "-" * (width - int(frac * width))
        eta = elapsed / frac - elapsed if frac > 0 else 0.0
        self.stream.write(f"\r{self.label} [{bar}] {frac:6.1%} {done:,}/{total:,} "
                          f"secrets, {elapsed:.1f}s elapsed, ~{eta:.0f}s left ")
        self.stream.flush()
        self.shown = True

    def close(self) -> None:
        if self.shown:
            self.stream.write("\n")
            self.stream.flush()


# ---------------------------------------------------------------------- commands
def cmd_analyze(args: argparse.Namespace, out: TextIO) -> int:
    game = make_game(args)
    bar = ProgressBar(f"{game.name} {args.strategy}", enabled=False if args.no_progress else None)
    try:
        result = analyze(game, args.strategy, candidates_only=args.candidates_only,
                         first=args.first, tree=args.tree, jobs=args.jobs, progress=bar)
    finally:
        bar.close()
    if args.json:
        json.dump(result.to_json(), out)
        out.write("\n")
        return EXIT_OK
    pool = "candidates only" if args.candidates_only else "all guesses allowed"
    out.write(f"{game.name} {result.strategy}, {pool}, first guess "
              f"{game.format_code(result.first_guess)}\n\n")
    out.write(" guesses   secrets\n")
    for d, c in sorted(result.distribution.items()):
        out.write(f"{d:8d}  {c:8d}\n")
    avg = result.average
    out.write(f"\n{result.secrets} secrets, total {result.total}, average {float(avg):.4f} "
              f"({avg.numerator}/{avg.denominator}), max {result.max}"
              f"   [{result.seconds:.3f} s]\n")
    if args.tree and result.tree is not None:
        out.write("\n(tree: use --json to get it)\n")
    return EXIT_OK


def cmd_solve(args: argparse.Namespace, out: TextIO) -> int:
    game = make_game(args)
    steps = solve(game, args.secret, args.strategy, candidates_only=args.candidates_only,
                  first=args.first)
    if args.json:
        json.dump({
            "pegs": game.n, "colours": game.k, "variant": game.variant.value,
            "strategy": args.strategy, "candidates_only": args.candidates_only,
            "secret": game.format_code(game.secret(args.secret)),
            "guesses": len(steps),
            "steps": [{"guess": s.guess_text, "black": s.score.black, "white": s.score.white,
                       "remaining": s.remaining} for s in steps],
        }, out)
        out.write("\n")
        return EXIT_OK
    width = max(5, len(steps[0].guess_text))
    out.write(f"{game.name} {args.strategy}, secret {game.format_code(game.secret(args.secret))}\n\n")
    out.write(f"  #  {'guess':<{width}}  score  left\n")
    for i, s in enumerate(steps, 1):
        out.write(f"{i:3d}  {s.guess_text:<{width}}  {str(s.score):<5}  {s.remaining}\n")
    out.write(f"\nsolved in {len(steps)} guess{'es' if len(steps) != 1 else ''}\n")
    return EXIT_OK


def cmd_first_guesses(args: argparse.Namespace, out: TextIO) -> int:
    game = make_game(args)
    rows = first_guess_table(game)
    openings = {s.value: game.format_code(first_guess(game, s)) for s in Strategy
                if s is not Strategy.FIRST_CANDIDATE}
    if args.json:
        json.dump({
            "pegs": game.n, "colours": game.k, "variant": game.variant.value,
            "secrets": int(game.secrets.size),
            "classes": [{"guess": r.code, "max_part": r.values.max_part,
                         "entropy": r.values.entropy, "expected_size": r.values.expected_size,
                         "parts": r.values.parts, "table": list(r.table)} for r in rows],
            "openings": openings,
        }, out)
        out.write("\n")
        return EXIT_OK
    width = max(5, game.n if game.k <= 9 else 3 * game.n)
    out.write(f"{game.name}: first-guess classes over {game.secrets.size} secrets\n\n")
    out.write(f"{'guess':<{width}}  {'max part':>8}  {'entropy':>7}  {'exp. size':>9}  "
              f"{'parts':>5}  opened by\n")
    for r in rows:
        by = ", ".join(s for s, c in openings.items() if c == r.code)
        out.write(f"{r.code:<{width}}  {r.values.max_part:8d}  {r.values.entropy:7.3f}  "
                  f"{r.values.expected_size:9.1f}  {r.values.parts:5d}  {by}\n")
    return EXIT_OK


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="mastermind",
        description="Analyse generalized [n,k]-Mastermind: play the classic one-step "
                    "strategies against one secret or against every secret.",
        epilog="Codes are written 1122 (colours 1..k; separate them, '1 10 3 2', when "
               "k >= 10). Examples: 'mastermind analyze', 'mastermind analyze -n 5 -k 8 "
               "--strategy entropy --json', 'mastermind solve 6543'.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    p = sub.add_parser("analyze", aliases=["analyse"],
                       help="play a strategy against every secret: the distribution of guesses",
                       description="Play a strategy against every secret and report how many "
                                   "secrets are found with 1, 2, 3... guesses.")
    game_options(p)
    strategy_options(p)
    output_options(p)
    p.add_argument("--tree", action="store_true",
                   help="include the strategy tree (guess per node) in the JSON output")
    p.add_argument("-j", "--jobs", type=int, default=None, metavar="N",
                   help="threads to use (default: all cores); the result does not depend on it")
    p.add_argument("--no-progress", action="store_true", help="never show the progress bar")
    p.set_defaults(func=cmd_analyze)

    p = sub.add_parser("solve", help="play a strategy against one secret, step by step",
                       description="Show each guess, its score and the candidates left.")
    p.add_argument("secret", metavar="SECRET", help="the secret code, e.g. 6543")
    game_options(p)
    strategy_options(p)
    output_options(p)
    p.set_defaults(func=cmd_solve)

    p = sub.add_parser("first-guesses",
                       help="the four valuations of every first-guess symmetry class",
                       description="For each class of opening guesses (1111, 1112, 1122, ...), "
                                   "the largest part, entropy, expected size and number of "
                                   "parts, and which strategy opens with it.")
    game_options(p)
    output_options(p)
    p.set_defaults(func=cmd_first_guesses)

    for register in _more_commands():
        register(sub)
    return parser


def _more_commands() -> list:
    """``register(subparsers)`` functions of the commands that live in other modules; each
    adds its parser and sets ``func(args, out) -> exit status``."""
    from . import bounds
    from .tree import register as tree_command
    return [register_play, tree_command, bounds.register]


def main(argv: Optional[Sequence[str]] = None, out: Optional[TextIO] = None) -> int:
    out = sys.stdout if out is None else out
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if args.command is None:
            parser.print_help(out)
            return EXIT_USAGE
        if getattr(args, "jobs", None) is not None and args.jobs < 1:
            raise UsageError("--jobs must be at least 1")
        return int(args.func(args, out))
    except UsageError as e:
        print(f"mastermind: error: {e}", file=sys.stderr)
        return EXIT_USAGE
    except (ValueError, OverflowError) as e:
        print(f"mastermind: error: {e}", file=sys.stderr)
        return EXIT_USAGE
    except MemoryError:
        print("mastermind: error: out of memory: try a smaller game", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("\nmastermind: interrupted; nothing was finished", file=sys.stderr)
        sys.stderr.flush()
        os._exit(EXIT_UNFINISHED)  # worker threads may still be inside the kernel
    except BrokenPipeError:  # e.g. `mastermind analyze | head`
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_OK

