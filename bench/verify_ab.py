"""The stand-alone checker of a git revision against this checkout's, on one certificate.

    python bench/verify_ab.py FILE [--base REV] [--claims N] [--rounds 2]

The checker (``src/mastermind/verify.py``) is one file that imports nothing of the
package, so the base is that file as ``git show REV:src/mastermind/verify.py`` gives
it, loaded beside this checkout's.  Each round checks the first N claims of FILE with
the base, then with this checkout (in one process each, in turn), and takes the CPU
seconds of the checks alone (the file read aside).  Printed: each side's seconds per
round and the median ratio new / base (below 1: this checkout is faster).  Both must
accept the same claims.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

CHECK = """
import importlib.util, itertools, json, sys, time
spec = importlib.util.spec_from_file_location("checker", sys.argv[1])
v = importlib.util.module_from_spec(spec)
sys.modules["checker"] = v
spec.loader.exec_module(v)
records = v.read_records(sys.argv[2])
rules, _, _, _, version = v._header(next(records))
claims, done = v.Claims(rules, version), 0
start = time.process_time()
for record in itertools.islice(records, int(sys.argv[3])):
    if "claim" not in record:
        break
    claims.check(record)
    done += 1
print(json.dumps({"claims": done, "seconds": time.process_time() - start}))
"""


def _run(checker: str, path: str, most: int) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", CHECK, checker, path, str(most)],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("file", help="a certificate (.cert.gz)")
    parser.add_argument("--base", default="HEAD", help="the revision to compare with")
    parser.add_argument("--claims", type=int, default=1000, help="claims checked a run")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    base_text = subprocess.run(
        ["git", "-C", ROOT, "show", f"{args.base}:src/mastermind/verify.py"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    new = os.path.join(ROOT, "src", "mastermind", "verify.py")
    ratios = []
    with tempfile.TemporaryDirectory() as tmp:
        base = os.path.join(tmp, "verify_base.py")
        with open(base, "w") as f:
            f.write(base_text)
        for r in range(args.rounds):
            a, b = _run(base, args.file, args.claims), _run(new, args.file, args.claims)
            if a["claims"] != b["claims"]:
                sys.exit(f"the two checkers accepted {a['claims']} and {b['claims']} claims")
            ratios.append(b["seconds"] / a["seconds"])
            print(
                f"round {r + 1}: {a['claims']:,} claims, base {a['seconds']:.2f} CPU-s, "
                f"new {b['seconds']:.2f} CPU-s, ratio {ratios[-1]:.3f}",
                flush=True,
            )
    print(
        f"median ratio new / base: {statistics.median(ratios):.3f} ({args.base} -> this checkout)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
