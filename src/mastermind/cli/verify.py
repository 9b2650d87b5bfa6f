"""``mastermind verify``: check a worst-case certificate or a strategy tree file with the
package's independent checker (:mod:`mastermind.verify`)."""

from __future__ import annotations

import argparse
import json
import os
import time
from typing import Any, TextIO

from .common import EXIT_OK, integer, output_options
from .progress import ProgressBar

EXIT_REJECTED = 1  # the file is read, and does not prove what it says
EXIT_CANNOT_CHECK = 2  # the file cannot be read, is malformed, or is of a game not handled


def configure(p: argparse.ArgumentParser) -> None:
    p.description = (
        "Check FILE against the rules of the game alone, without the search "
        "that made it: a certificate written by 'mastermind bound --certificate' "
        "(proves lower <= p(n,k) <= upper), or a strategy tree written by "
        "--witness or --tree (JSON, maybe gzip- or xz-compressed: the number of guesses "
        "it needs against every secret, an upper bound on the optimum). The file "
        "may come from anyone: it is read within caps (8 GB decompressed, 32 MB a "
        "line, JSON 256 deep, 100 guesses) and every field must have its type. "
        "Exit status 0 when the file proves what it says; 1 when it is read and "
        "a step fails (REJECTED, the first such step); 2 when it cannot be checked "
        "(CANNOT CHECK: missing or unreadable, not gzip, xz or JSON, past a cap, a "
        "field of the wrong type, a custom game's tree). With --json one object "
        "in every case."
    )
    p.epilog = (
        "Example: 'mastermind bound -n 4 -k 7 --certificate p47.gz' then "
        "'mastermind verify p47.gz'. The format and why the check is sound: "
        "docs/certificates.md."
    )
    p.add_argument("file", metavar="FILE", help="the certificate or strategy tree to check")
    output_options(p)
    p.add_argument(
        "-j",
        "--jobs",
        type=integer,
        default=1,
        metavar="N",
        help="processes to split a certificate's claims across, 1..64 (default 1); "
        "the verdict does not depend on it",
    )
    p.add_argument(
        "--no-progress",
        action="store_true",
        help="never show the progress bar (shown on a terminal after a second)",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace, out: TextIO) -> int:
    from ..verify import MalformedFile, VerifyError, verify_file

    path = args.file
    start = time.monotonic()
    bar = ProgressBar(
        f"checking {os.path.basename(path)}",
        unit="bytes",
        enabled=False if args.no_progress or args.jobs != 1 else None,
    )
    try:
        verdict = verify_file(path, progress=bar, jobs=args.jobs)
    except VerifyError as e:
        bar.close()
        checked = not isinstance(e, MalformedFile)
        reason = " ".join(str(e).split())
        if args.json:
            json.dump({"file": path, "proved": False, "checked": checked, "reason": reason}, out)
            out.write("\n")
        else:
            out.write(f"{path}: {'REJECTED' if checked else 'CANNOT CHECK'}: {reason}\n")
        return EXIT_REJECTED if checked else EXIT_CANNOT_CHECK
    bar.close()
    _report(path, verdict, time.monotonic() - start, args.json, out)
    return EXIT_OK


def _report(path: str, verdict: Any, seconds: float, as_json: bool, out: TextIO) -> None:
    if as_json:
        doc = {
            "file": path,
            "proved": True,
            "checked": True,
            "summary": verdict.summary,
            "lower": verdict.lower,
            "upper": verdict.upper,
            "claims": verdict.claims,
            "seconds": round(seconds, 3),
        }
        if verdict.total is not None:
            doc.update(
                total=verdict.total,
                distribution={str(d): c for d, c in verdict.distribution.items()},
            )
        json.dump(doc, out)
        out.write("\n")
    else:
        out.write(f"{verdict.summary}\n")
        out.write(f"checked in {seconds:.1f} s by the independent checker\n")
