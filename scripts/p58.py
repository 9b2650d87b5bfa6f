"""p(5,8), the worst case of [5,8], decided resumably by the package's engine.

p(5,8) is 6 or 7: 5 guesses never suffice (``solution_exists(Game(5, 8), 5)`` is False,
a fraction of a second) and the minmax strategy needs 7.  6 suffice exactly when one of
the 7 openings (one per symmetry class, as the kernel's search ranks them) has every
part of its partition solvable within 5 more guesses.  Each (opening, part, 5 guesses
left) question is a unit of :mod:`mastermind.worstcase.units` (``exists_unit``, the same
key, input and answer as ``worst_case``'s units), run on the engine with a unit budget:
a unit past it splits into its guesses' parts within 4, recursively, and the SQLite
checkpoint records every answered unit (a solvable one with its witness records) and
every split, so a stopped run (Ctrl-C, SIGTERM, ``--time-limit``) resumes where it
stopped, on this machine or any other (the file is the state; ``mastermind bound -n 5
-k 8 --checkpoint FILE`` reads the same file).

The only difference from ``worst_case``'s own plan is the order in which the root's
units are offered (``--focus``): the engine's order tries the openings one after the
other, each one's parts largest first (the first to be refuted); ``--focus CODE`` offers
that opening's parts first, smallest first (the first to be solved), then the others in
the engine's order.  The answer does not depend on the order: the question at the root
is decided when one opening has every part solvable (p = 6, the witness is put together,
checked by ``check_strategy`` and written) or every opening has a refuted part (p = 7).

    python scripts/p58.py run [--time-limit S] [--unit-seconds S] [--jobs N | --scheduler ADDR]
    python scripts/p58.py status [--json]
    python scripts/p58.py projection [--json] [--workers 1,16,64,512]
    python scripts/p58.py export FILE.jsonl.gz / import FILE.jsonl.gz

``status`` replays the checkpoint through the same plan (no search: every unit not
recorded is counted as open) and writes ``state.json`` beside it; ``projection`` turns
the units measured into the core-hours still needed (docs/bounds.md says how);
``export``/``import`` move the checkpoint's rows to and from a compressed JSON lines file.
``-n``/``-k``/``--guesses`` run the same question on another game (the tests use [4,6]).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import time
from pathlib import Path
from typing import Optional

from p58_plan import (
    MEMORY_MB,
    ROOT,
    UNIT_SECONDS,
    bounds_known,
    decided_value,
    setup,
    witness_tree,
)
from p58_rows import export_rows, import_rows, read_header
from p58_state import markdown_table, print_table, projection, recorded_since, state, write_state

from mastermind.engine.run import open_run
from mastermind.errors import MastermindError
from mastermind.game import Game
from mastermind.stopping import TimeLimitReached, new_flag
from mastermind.worstcase.bounds import check_strategy
from mastermind.worstcase.units import checkpoint_params

RESULTS = ROOT / "results" / "p58"


# --------------------------------------------------------------------------- the run
def make_game(args: argparse.Namespace) -> Game:
    return Game(args.n, args.k)


def checkpoint_path(args: argparse.Namespace) -> str:
    return args.checkpoint or str(RESULTS / f"p{args.n}{args.k}.sqlite")


def export_path(args: argparse.Namespace) -> str:
    """The compressed rows kept in git beside the checkpoint (pNK.jsonl.gz)."""
    return str(Path(checkpoint_path(args)).with_suffix(".jsonl.gz"))


def restore(args: argparse.Namespace) -> None:
    """No checkpoint but its export beside it (a fresh clone): the checkpoint made again."""
    if not os.path.exists(checkpoint_path(args)) and os.path.exists(export_path(args)):
        args.file = export_path(args)
        if cmd_import(args) != 0:
            raise SystemExit(2)  # (said why)


def state_path(args: argparse.Namespace) -> str:
    return args.state or str(Path(checkpoint_path(args)).with_name("state.json"))


def cmd_run(args: argparse.Namespace) -> int:
    signal.signal(signal.SIGINT, signal.default_int_handler)  # also when started with &
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    game = make_game(args)
    path = checkpoint_path(args)
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    restore(args)
    memory = args.memory << 20
    known = bounds_known(game, args.guesses)
    t0 = time.monotonic()
    status = "decided"
    flag = new_flag()
    ran = [0]

    def progress(done: int, total: int) -> None:
        ran[0] = done
        if args.stop_after_units and done >= args.stop_after_units:
            flag.set()  # a stop request: the engine ends as on Ctrl-C

    with open_run(
        game,
        kind="bound",
        params=checkpoint_params(candidates_only=False, symmetry=True, memory=memory),
        scheduler=args.scheduler,
        client=None,
        threads=args.jobs,
        checkpoint=path,
    ) as run:
        plan, search = setup(game, args.guesses, run, memory, args.unit_seconds, args.focus)
        log(
            f"{game.name}: within {args.guesses}? {len(plan.openings)} openings, "
            f"checkpoint {path} ({len(run.store)} units recorded)"
        )
        before = len(run.store)
        wall0 = time.time()
        try:
            if plan.openings:
                run.execute(plan, flag, progress, args.time_limit, args.unit_seconds)
        except TimeLimitReached:
            status = "time-limit"
        except KeyboardInterrupt:
            status = "interrupted"
        run.store.flush()  # (read below through a connection of its own)
        counts = {
            "ran": recorded_since(path, wall0),
            "recorded_before": before,
            "recorded_after": len(run.store),
        }
        answer = None
        if not plan.openings:
            answer = False
        elif plan.decided():
            answer = plan.answer() >= 0
        if answer:
            tree = witness_tree(game, plan, search, plan.answer())
            worst = check_strategy(game, tree)
            Path(path).with_name("witness.json").write_text(
                json.dumps(
                    {
                        "pegs": game.n,
                        "colours": game.k,
                        "variant": game.variant.value,
                        "candidates_only": False,
                        "max_guesses": worst,
                        "tree": tree.to_json(game),
                    }
                )
                + "\n"
            )
    log(
        f"{status}: {counts['ran']} units run, {counts['recorded_after']} recorded "
        f"({counts['recorded_before']} before), {time.monotonic() - t0:.1f} s"
    )
    args.file = export_path(args)
    cmd_export(args)
    doc = state(game, args.guesses, path, args.focus, known, args.memory)
    doc["last_run"] = {"status": status, "seconds": round(time.monotonic() - t0, 1), **counts}
    write_state(doc, state_path(args))
    print_table(doc, sys.stdout)
    if answer is not None:
        log(f"p({game.n},{game.k}) = {decided_value(args.guesses, answer, known)}")
    return 0 if status == "decided" else 1


def cmd_status(args: argparse.Namespace) -> int:
    game = make_game(args)
    path = checkpoint_path(args)
    restore(args)
    if not os.path.exists(path):
        sys.stderr.write(f"p58: no checkpoint {path}\n")
        return 2
    old = {}
    if os.path.exists(state_path(args)):
        old = json.loads(Path(state_path(args)).read_text())
    known = old.get("known") if old.get("guesses") == args.guesses else None
    known = known or bounds_known(game, args.guesses)
    doc = state(game, args.guesses, path, args.focus, known, args.memory)
    if "last_run" in old:
        doc["last_run"] = old["last_run"]
    if args.write:
        write_state(doc, state_path(args))
    if args.json:
        json.dump(doc, sys.stdout)
        sys.stdout.write("\n")
    elif args.markdown:
        sys.stdout.write(markdown_table(doc))
    else:
        print_table(doc, sys.stdout)
    return 0


def cmd_projection(args: argparse.Namespace) -> int:
    game = make_game(args)
    path = checkpoint_path(args)
    restore(args)
    workers = [int(w) for w in args.workers.split(",")]
    doc = projection(game, args.guesses, path, args.focus, args.memory, workers, args.unit_seconds)
    if args.json:
        json.dump(doc, sys.stdout)
        sys.stdout.write("\n")
        return 0
    print(
        f"spent: {doc['spent_core_hours']} core-hours; {doc['open_questions']} questions "
        f"open (budget {doc['budget_s']:g} s a unit)"
    )
    print(
        f"{'left':>4} {'units':>6} {'split':>5} {'solv':>5} {'ref':>5} {'solv s':>8} "
        f"{'ref s':>8} {'split%':>6} {'G':>7} {'P':>5} {'R':>6} {'solvable q':>11} "
        f"{'refuted q':>11}"
    )
    for e, m in doc["levels"].items():
        print(
            f"{e:>4} {m['units']:>6} {m['split']:>5} {m['solvable']:>5} {m['refuted']:>5} "
            f"{m['mean_solvable_s']:>8} {m['mean_refuted_s']:>8} "
            f"{100 * m['split_share']:>5.1f}% {m['guesses_per_split']:>7} "
            f"{m['parts_per_guess']:>5} {m['refuted_guesses_per_split']:>6} "
            f"{m['solvable_question_s']:>11} "
            f"{m['refuted_question_s']:>11}"
        )
    if doc["p6"]:
        p6 = doc["p6"]
        print(
            f"p = 6 (opening {p6['opening']}, {p6['open_parts']} open parts solvable): "
            f"at least {p6['core_hours']} core-hours"
        )
    p7 = doc["p7"]
    print(
        f"p = 7 (one part refuted in each of {p7['openings']} openings): at least "
        f"{p7['core_hours']} core-hours"
    )
    for w, s in doc["measured_units_on_workers"].items():
        print(
            f"  the recorded units on {w:>5} workers: {s['wall_s']} s wall, speed-up {s['speedup']}"
        )
    return 0


# --------------------------------------------------------------------------- export / import
def cmd_export(args: argparse.Namespace) -> int:
    """Every row of the checkpoint (header, units, splits) as compressed JSON lines."""
    n = export_rows(checkpoint_path(args), args.file)
    sys.stderr.write(f"{n} units written to {args.file}\n")
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    """A checkpoint made again from an export (refused if the file exists)."""
    from mastermind.version import __version__

    path = checkpoint_path(args)
    if os.path.exists(path):
        sys.stderr.write(f"p58: {path} exists; give another --checkpoint\n")
        return 2
    try:
        version = read_header(args.file).get("version")
        if version != __version__:
            sys.stderr.write(
                f"p58: {args.file} was written by mastermind {version}, this is {__version__}\n"
            )
            return 2
        n = import_rows(args.file, path)
    except (OSError, EOFError, ValueError) as e:  # RowsError among them
        sys.stderr.write(f"p58: {e}\n")
        return 2
    sys.stderr.write(f"{n} units imported into {path}\n")
    return 0


# --------------------------------------------------------------------------- main
def log(msg: str) -> None:
    print(time.strftime("%H:%M:%S ", time.gmtime()) + msg, flush=True)


def main(argv: Optional[list[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)

    def common(p: argparse.ArgumentParser) -> None:
        p.add_argument("-n", type=int, default=5, help="pegs (default 5)")
        p.add_argument("-k", type=int, default=8, help="colours (default 8)")
        p.add_argument(
            "--guesses",
            type=int,
            default=6,
            help="the question: can every secret be found within this many (default 6)",
        )
        p.add_argument("--checkpoint", help="default results/p58/pNK.sqlite")
        p.add_argument("--state", help="default state.json beside the checkpoint")
        p.add_argument(
            "--memory",
            type=int,
            default=MEMORY_MB,
            metavar="MB",
            help=f"each unit's memo (default {MEMORY_MB}; part of the checkpoint's header)",
        )
        p.add_argument(
            "--focus",
            default="11234",
            help="the opening whose parts go first, smallest first ('engine': "
            "the engine's order; default 11234)",
        )
        p.add_argument(
            "--unit-seconds",
            type=float,
            default=UNIT_SECONDS,
            help=f"a unit's budget before it splits (default {UNIT_SECONDS:g})",
        )

    p = sub.add_parser("run", help="decide, resuming from the checkpoint")
    common(p)
    p.add_argument("--time-limit", type=float, default=None, metavar="S")
    p.add_argument("--jobs", type=int, default=1, help="threads here (default 1)")
    p.add_argument("--scheduler", default=None, help="a Dask scheduler or local:N")
    p.add_argument(
        "--stop-after-units",
        type=int,
        default=0,
        metavar="N",
        help="stop (as on Ctrl-C) once N units have run",
    )
    p.set_defaults(func=cmd_run)
    p = sub.add_parser("status", help="the state per opening and part")
    common(p)
    p.add_argument("--json", action="store_true")
    p.add_argument("--markdown", action="store_true", help="the table of docs/bounds.md")
    p.add_argument("--write", action="store_true", help="also write state.json")
    p.set_defaults(func=cmd_status)
    p = sub.add_parser("projection", help="core-hours to finish, from the units measured")
    common(p)
    p.add_argument("--json", action="store_true")
    p.add_argument("--workers", default="1,16,64,512")
    p.set_defaults(func=cmd_projection)
    p = sub.add_parser("export", help="the checkpoint as compressed JSON lines")
    common(p)
    p.add_argument("file")
    p.set_defaults(func=cmd_export)
    p = sub.add_parser("import", help="a checkpoint made from an export")
    common(p)
    p.add_argument("file")
    p.set_defaults(func=cmd_import)
    args = ap.parse_args(argv)
    if args.focus != "engine" and (args.n, args.k) != (5, 8) and args.focus == "11234":
        args.focus = "engine"  # the default focus is a [5,8] code
    try:
        return int(args.func(args))
    except MastermindError as e:  # a checkpoint of another run, a bad code: one line
        sys.stderr.write(f"p58: {e}\n")
        return 2


if __name__ == "__main__":
    sys.exit(main())
