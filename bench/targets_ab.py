"""Compare the kernel's scans between builds or targets, by interleaved CPU times.

    python bench/targets_ab.py ROUNDS LABEL=CHECKOUT[:NAME=VALUE...] ... [--threads N]

e.g. ``python bench/targets_ab.py 10 native=/tmp/wt-native avx512=. avx2=.:MASTERMIND_SIMD=avx2``.
Each round starts one fresh process per side (the order reversed every other round), with
``PYTHONPATH`` set to that checkout's ``src`` and the side's variables set; the process
times, in CPU seconds (every thread), the choice-rule scan of [5,8]'s 32768 guesses over
2000 candidates for each valuation and 20 histogram tables of 256 guesses against every
secret, keeping the least of five runs.  Printed: each side's median over rounds of its
ratio to the first side in the same round (below 1: faster), and the first side's times.
CPU time with few threads is the figure other load on a shared machine disturbs least.

Give every side a checkout path of the same length (symlinks: /tmp/A -> one checkout,
/tmp/B -> the other) and run it from the same directory: the scans' speed was measured to
move by up to 10% either way with the size of the process's environment alone (PWD,
PYTHONPATH: the stack's alignment), which otherwise reads as a difference of builds.
"""

import json
import os
import statistics
import subprocess
import sys

CHILD = """
import json, sys, time
import numpy as np
from mastermind import Game
from mastermind.kernel import _core
from mastermind.analysis import _scan
threads = int(sys.argv[1])
g = Game(5, 8)
rng = np.random.default_rng(2)
cands = np.unique(rng.integers(0, g.size, 2000)).astype(np.int32)
guesses = np.unique(rng.integers(0, g.size, 256)).astype(np.int32)
kinds = {"minmax": _core.VAL_MINMAX, "entropy": _core.VAL_ENTROPY,
         "expected-size": _core.VAL_EXPECTED, "parts": _core.VAL_PARTS}
def least(f):
    f()
    times = []
    for _ in range(5):
        c = time.process_time()
        f()
        times.append(time.process_time() - c)
    return min(times)
out = {n: least(lambda: _scan.best_guess(g.kernel, g.guesses, cands, k, threads))
       for n, k in kinds.items()}
out["histograms"] = least(lambda: [g.kernel.histograms(guesses, g.secrets) for _ in range(20)])
print(json.dumps(out))
"""


def main() -> None:
    args = sys.argv[1:]
    threads = 1
    if "--threads" in args:
        i = args.index("--threads")
        threads = int(args[i + 1])
        del args[i : i + 2]
    rounds, sides = int(args[0]), []
    for spec in args[1:]:
        label, rest = spec.split("=", 1)
        tree, *env = rest.split(":")
        sides.append((label, os.path.abspath(tree), dict(e.split("=", 1) for e in env)))
    times: dict[str, list[dict[str, float]]] = {label: [] for label, _, _ in sides}
    for r in range(rounds):
        for label, tree, env in sides if r % 2 == 0 else sides[::-1]:
            print(f"round {r + 1}/{rounds}: {label}", file=sys.stderr)
            done = subprocess.run(
                [sys.executable, "-c", CHILD, str(threads)],
                check=True,
                capture_output=True,
                text=True,
                env=dict(
                    os.environ,
                    PYTHONPATH=os.path.join(tree, "src"),
                    OMP_NUM_THREADS=str(threads),
                    **env,
                ),
            )
            times[label].append(json.loads(done.stdout))
    first = sides[0][0]
    names = list(times[first][0])
    print(f"{'side':<10}" + "".join(f"{n:>15}" for n in names))
    for label, _, _ in sides[1:]:
        ratios = [
            statistics.median(o[n] / b[n] for b, o in zip(times[first], times[label]))
            for n in names
        ]
        print(f"{label:<10}" + "".join(f"{x:15.3f}" for x in ratios))
    print(
        f"{first + ' s':<10}" + "".join(f"{min(b[n] for b in times[first]):15.4f}" for n in names)
    )


if __name__ == "__main__":
    main()
