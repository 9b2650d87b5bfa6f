"""``mastermind verify``: check a worst-case certificate or a strategy tree file with the
package's independent checker (:mod:`mastermind.verify`)."""

from __future__ import annotations

import argparse
import json
import os
import time
from typing import TextIO

from .common import EXIT_OK, UsageError, output_options
from .progress import ProgressBar

EXIT_REJECTED = 1  # the file does not prove what it says


def configure(p: argparse.ArgumentParser) -> None:
    p.description = (
        "Check FILE against the rules of the game alone, without the search "
        "that made it: a certificate written by 'mastermind bound --certificate' "
        "(proves lower <= p(n,k) <= upper), or a strategy tree written by "
        "--witness or --tree (JSON, maybe gzip-compressed: the number of guesses "
        "it needs against every secret, an upper bound on the optimum). Exit "
        "status 0 when the file proves what it says, 1 with the first step that "
        "fails, 2 when the file cannot be read."
    )
    p.epilog = (
        "Example: 'mastermind bound -n 4 -k 7 --certificate p47.gz' then "
        "'mastermind verify p47.gz'. The format and why the check is sound: "
        "docs/certificates.md."
    )
    p.add_argument("file", metavar="FILE", help="the certificate or strategy tree to check")
    output_options(p)
    p.add_argument(
        "--no-progress",
        action="store_true",
        help="never show the progress bar (shown on a terminal after a second)",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace, out: TextIO) -> int:
    from ..verify import VerifyError, verify_file

    path = args.file
    if not os.path.exists(path):
        raise UsageError(f"{path}: no such file")
    if os.path.isdir(path):
        raise UsageError(f"{path} is a directory")
    if not os.access(path, os.R_OK):
        raise UsageError(f"{path}: permission denied")
    start = time.monotonic()
    bar = ProgressBar(
        f"checking {os.path.basename(path)}",
        unit="claims",
        enabled=False if args.no_progress else None,
    )
    try:
        verdict = verify_file(path, progress=bar)
    except VerifyError as e:
        bar.close()
        if args.json:
            json.dump({"file": path, "proved": False, "reason": str(e)}, out)
            out.write("\n")
        else:
            out.write(f"{path}: REJECTED: {e}\n")
        return EXIT_REJECTED
    bar.close()
    seconds = time.monotonic() - start
    if args.json:
        doc = {
            "file": path,
            "proved": True,
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
    return EXIT_OK
