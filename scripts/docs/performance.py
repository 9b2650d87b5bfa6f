"""The figures of docs/performance.md, measured: the benchmarks, the peers, the machine.

Runs the benchmarks the page reports under pytest-benchmark (bench/test_bench_analysis.py
and bench/test_bench_kernel.py, without the ``-m slow`` ones: a few minutes), then, if
given, the peers on [5,8] minmax with one thread, round by round: this package's
``analyze(Game(5, 8), "minmax", jobs=1)`` (the game built before), then each peer, so that
all see the same phases of a shared machine.  Saves it all with the machine (``lscpu``'s
model name, the CPUs this process may use, the widest SIMD of the CPU's flags, the date,
the last commit of the package's sources, the load average before and after) in a JSON
file, and rewrites the page's blocks between ``<!-- performance:begin NAME -->`` and
``<!-- performance:end -->`` (NAME: machine, analyses, peers), leaving the prose.

The peers are built outside this repository and never committed here:

* ``--mmstrat``: fancidev/mastermind's mmstrat, its 2012 code (the build in
  bench/vs_mmstrat.py), run as ``mmstrat -r p5c8r -s minmax -S -mt 1``: the process's
  wall time (its start-up takes milliseconds), its total from the summary.
* ``--mikemag``: mikemag/Mastermind's CPU solver (``SolverCPUFaster``, one thread) built
  for [5,8] with Knuth's rule (minmax): its main.cpp's single-game settings set to 5 pins
  and 8 colours, ``g++ -std=c++20 -O3 -DNDEBUG -march=native main.cpp score.cpp utils.cpp
  -lcpuid`` (Debian: nlohmann-json3-dev, libcpuid-dev), mastermind_config.h made from its
  ``.in``.  Run in a scratch folder with the valid_solutions.json and ACReduced.json found
  beside the binary; the time and total are the ones it records (its solve, not its
  start-up, which parses JSON files).

Without a peer's option, the page's peers block is kept as it is.

    python scripts/docs/performance.py                  # measure, save, rewrite the page
    python scripts/docs/performance.py --mmstrat MM --mikemag MK --rounds 3
    python scripts/docs/performance.py --from bench/results/performance.json   # re-render
    python scripts/docs/performance.py --from bench/results/performance.json --check
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "performance.md"
SAVED = ROOT / "bench" / "results" / "performance.json"
BENCHES = ["bench/test_bench_analysis.py", "bench/test_bench_kernel.py"]
SECRETS_5_8 = 32768


# ---------------------------------------------------------------------- measuring


def lscpu() -> dict[str, str]:
    """``lscpu``'s fields (or /proc/cpuinfo's, where lscpu is missing)."""
    try:
        out = subprocess.run(
            ["lscpu"], capture_output=True, text=True, check=True, env={"LC_ALL": "C"}
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        out = Path("/proc/cpuinfo").read_text().split("\n\n")[0]
    fields = {}
    for line in out.splitlines():
        key, _, value = line.partition(":")
        fields[key.strip().lower()] = value.strip()
    return fields


def machine() -> dict:
    """What the page says of the machine, the load average before the runs included."""
    cpu = lscpu()
    flags = set(cpu.get("flags", "").split())
    simd = next((n for f, n in [("avx512f", "AVX-512"), ("avx2", "AVX2")] if f in flags), None)
    git = ["git", "-C", str(ROOT)]
    commit = subprocess.run(  # the last commit of the package's sources
        [*git, "log", "-1", "--format=%h", "--", "src", "setup.py"], capture_output=True, text=True
    ).stdout.strip()
    changed = subprocess.run(
        [*git, "status", "--porcelain", "--", "src", "setup.py"], capture_output=True, text=True
    ).stdout.strip()
    return {
        "model": cpu.get("model name", "an unnamed CPU"),
        "cpus": len(os.sched_getaffinity(0)),
        "simd": simd or "neither AVX2 nor AVX-512",
        "date": datetime.date.today().isoformat(),
        "commit": commit + (" with uncommitted changes" if changed else ""),
        "load": [round(os.getloadavg()[0], 1)],
    }


def pytest_machine(raw: dict) -> dict:
    """The machine as a JSON of pytest-benchmark's own records it (``--benchmark-json``)."""
    cpu = raw.get("machine_info", {}).get("cpu", {})
    flags = set(cpu.get("flags", []))
    simd = next((n for f, n in [("avx512f", "AVX-512"), ("avx2", "AVX2")] if f in flags), None)
    return {
        "model": cpu.get("brand_raw", "an unnamed CPU"),
        "cpus": cpu.get("count", "?"),
        "simd": simd or "not recorded",
        "date": raw.get("datetime", "?")[:10],
        "commit": raw.get("commit_info", {}).get("id", "?")[:7],
        "load": ["not recorded"],
    }


def run_benchmarks() -> list[dict]:
    """The page's benchmarks, run once; their statistics without the rounds' data."""
    import mastermind

    env = dict(os.environ, PYTHONPATH=str(Path(mastermind.__file__).resolve().parents[1]))
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "bench.json"
        subprocess.run(
            [sys.executable, "-m", "pytest", *BENCHES, "--benchmark-only", "-q"]
            + ["-p", "no:cacheprovider", f"--benchmark-json={out}"],
            cwd=ROOT,
            env=env,
            check=True,
        )
        return slim(json.loads(out.read_text()))


def slim(raw: dict) -> list[dict]:
    """pytest-benchmark's benchmarks, each without the time of every round."""
    keep = ("min", "median", "mean", "max", "rounds")
    return [
        {
            "name": b["name"],
            "params": b.get("params") or {},
            "stats": {k: b["stats"][k] for k in keep},
            "extra_info": b.get("extra_info") or {},
        }
        for b in raw["benchmarks"]
    ]


def run_mmstrat(binary: str) -> tuple[float, int]:
    """(seconds, total) of mmstrat's minmax strategy on [5,8], one thread."""
    start = time.perf_counter()
    done = subprocess.run(
        [binary, "-r", "p5c8r", "-s", "minmax", "-S", "-mt", "1"],
        capture_output=True,
        text=True,
        check=True,
    )
    seconds = time.perf_counter() - start
    found = re.search(r"minmax\s+(\d+)", done.stdout)
    if found is None:
        sys.exit(f"no total in mmstrat's output:\n{done.stdout}{done.stderr}")
    return seconds, int(found.group(1))


def run_mikemag(binary: str) -> tuple[float, int]:
    """(seconds, total) of mikemag's CPU solver as it records them."""
    with tempfile.TemporaryDirectory() as tmp:
        for name in ("valid_solutions.json", "ACReduced.json"):
            beside = Path(binary).resolve().parent / name
            if beside.exists():
                shutil.copy(beside, tmp)
        subprocess.run(
            [str(Path(binary).resolve())], cwd=tmp, capture_output=True, text=True, check=True
        )
        records = json.loads((Path(tmp) / "mastermind_run_stats.json").read_text())
    run = next(r["run"] for r in records if "run" in r)
    if (run["Pin Count"], run["Color Count"], run["Strategy"]) != (5, 8, "Knuth"):
        sys.exit(f"{binary} is not built for [5,8] Knuth: {run}")
    return run["Elapsed (s)"], run["Total Turns"]


def run_peers(peers: dict[str, str], rounds: int) -> dict:
    """Each round: ours, then every peer; seconds and totals of each."""
    from mastermind import Game, analyze

    game = Game(5, 8)
    runs: dict[str, dict] = {name: {"seconds": []} for name in ["ours", *peers]}
    for r in range(rounds):
        start = time.perf_counter()
        runs["ours"]["total"] = analyze(game, "minmax", jobs=1).total
        runs["ours"]["seconds"].append(time.perf_counter() - start)
        for name, binary in peers.items():
            seconds, runs[name]["total"] = {"mmstrat": run_mmstrat, "mikemag": run_mikemag}[name](
                binary
            )
            runs[name]["seconds"].append(seconds)
        said = ", ".join(f"{n} {v['seconds'][-1]:.2f} s" for n, v in runs.items())
        print(f"round {r + 1}/{rounds}: {said}", file=sys.stderr, flush=True)
    return runs


# ---------------------------------------------------------------------- the page


def number(t: float, unit: str) -> str:
    """A time in seconds written in ``unit`` (s or ms): 125, 12.9, 1.16, 0.60; 12, 2.6."""
    if unit == "ms":
        return f"{t * 1e3:.0f}" if t >= 0.01 else f"{t * 1e3:.2g}"
    return f"{t:.0f}" if t >= 100 else f"{t:.1f}" if t >= 10 else f"{t:.2f}"


def seconds(t: float) -> str:
    """A time as the page writes it: 12.9 s, 1.16 s, 0.60 s, 12 ms, 2.6 ms, 0.75 ms."""
    unit = "s" if t >= 0.1 else "ms"
    return f"{number(t, unit)} {unit}"


def span(values: list[float]) -> str:
    """The range of some times below a second, in milliseconds: 0.75-2.6 ms."""
    lo, hi = number(min(values), "ms"), number(max(values), "ms")
    return f"{hi} ms" if lo == hi else f"{lo}-{hi} ms"


def rate(r: float) -> str:
    """A rate as 1.3e9."""
    mantissa, exponent = f"{r:.1e}".split("e")
    return f"{mantissa}e{int(exponent)}"


def best_median(stats: dict) -> str:
    """Best / median, both in the unit of the best: 1.51 s / 1.64 s, 58 ms / 104 ms."""
    unit = "s" if stats["min"] >= 0.1 else "ms"
    return " / ".join(f"{number(stats[k], unit)} {unit}" for k in ("min", "median"))


def machine_block(m: dict) -> str:
    """The machine line: model, CPUs, SIMD, date, commit, load."""
    load = " at the start, ".join(str(x) for x in m["load"])
    busy = (
        ": more runnable processes than CPUs, other work ran beside these runs, which are"
        " slower than on a quiet machine, the ones on both cores the most."
    )
    return (
        f"Measured by `python scripts/docs/performance.py` on {m['model']} ({m['cpus']} CPUs "
        f"for the process; widest SIMD: {m['simd']}), {m['date']}, package commit "
        f"`{m['commit']}`; load average {load}{' at the end' if len(m['load']) > 1 else ''}"
        + (busy if isinstance(m["cpus"], int) and max(m["load"]) > m["cpus"] else ".")
    )


def find(benchmarks: list[dict], name: str, **params: str) -> list[dict]:
    """The statistics and extra information of the benchmarks of ``name`` with ``params``."""
    return [
        b
        for b in benchmarks
        if b["name"].split("[")[0] == name
        and all(b["params"].get(k) == v for k, v in params.items())
    ]


def analyses_block(benchmarks: list[dict]) -> str:
    """The table of the analyses and the kernel, from the benchmarks."""
    rows = ["| run | time (best / median of the rounds) |", "| --- | --- |"]
    (one,) = find(benchmarks, "test_analyze_5_8_minmax_one_thread")
    for strategy in ("minmax", "entropy", "parts", "expected-size"):
        (b,) = find(benchmarks, "test_analyze_5_8", strategy=strategy)
        info = b["extra_info"]
        what = f"[5,8] {strategy} (first guess {info['first_guess']}), total {info['total']}"
        extra = ""
        if strategy == "minmax":
            what += f", {SECRETS_5_8} secrets, max {max(map(int, info['distribution']))}"
            extra = f" (one thread: {best_median(one['stats'])})"
        rows.append(f"| {what} | {best_median(b['stats'])}{extra} |")
    small = [b["stats"] for b in find(benchmarks, "test_analyze_4_6")]
    first = [b["stats"] for b in find(benchmarks, "test_analyze_4_6", strategy="first-candidate")]
    rest = [s for s in small if s not in first]
    rows.append(
        f"| [4,6], any strategy, either guess pool | {span([s['min'] for s in rest])} / "
        f"{span([s['median'] for s in rest])} (first-candidate: "
        f"{span([s['min'] for s in first])} / {span([s['median'] for s in first])}) |"
    )
    (tables,) = find(benchmarks, "test_histograms_pairs_per_second", which="5x8")
    pairs, stats = tables["extra_info"]["pairs"], tables["stats"]
    rows.append(
        "| kernel: full partition tables, (guess, candidate) pairs per second, one thread, "
        f"[5,8] | {rate(pairs / stats['min'])} / {rate(pairs / stats['median'])} |"
    )
    for b in find(benchmarks, "test_best_guess_scan_5_8"):
        rows.append(
            f"| kernel: the {b['params']['kind']} rule's scan of the 32768 guesses over about 2000 "
            f"candidates, one thread, [5,8] | {best_median(b['stats'])} |"
        )
    return "\n".join(rows)


PEERS = {
    "ours": 'this package, `analyze(Game(5, 8), "minmax", jobs=1)`',
    "mmstrat": "fancidev/mastermind `mmstrat` (its 2012 code), `-s minmax -mt 1`",
    "mikemag": "mikemag/Mastermind CPU solver (`SolverCPUFaster`, Knuth's rule)",
}


def peers_block(peers: dict) -> str:
    """The table of [5,8] minmax, one thread, ours and the peers', from the same rounds."""
    runs = peers["runs"]
    ours = runs["ours"]["seconds"]
    rows = [
        f"| [5,8] minmax, one thread ({len(ours)} rounds, taken in turn) | total | "
        "time (best / median) | ours / theirs (median of the rounds) |",
        "| --- | ---: | --- | ---: |",
    ]
    for name, run in runs.items():
        t = run["seconds"]
        ratio = statistics.median(a / b for a, b in zip(ours, t))
        shown = "" if name == "ours" else f"{ratio:.2f}"
        rows.append(
            f"| {PEERS[name]} | {run['total']} | {seconds(min(t))} / "
            f"{seconds(statistics.median(t))} | {shown} |"
        )
    return "\n".join(rows)


def rewrite(page: str, blocks: dict[str, str]) -> str:
    """The page with each named block between its markers replaced."""
    for name, body in blocks.items():
        pattern = re.compile(
            rf"(<!-- performance:begin {name} -->\n).*?(<!-- performance:end -->)", re.DOTALL
        )
        if pattern.search(page) is None:
            sys.exit(f"no block {name!r} in the page (<!-- performance:begin {name} -->)")
        page = pattern.sub(lambda m, body=body: f"{m.group(1)}\n{body}\n\n{m.group(2)}", page)
    return page


def render(data: dict, page: str) -> str:
    """The page with the figures of ``data`` (the peers' block only if it has peers)."""
    blocks = {
        "machine": machine_block(data["machine"]),
        "analyses": analyses_block(data["benchmarks"]),
    }
    if data.get("peers"):
        blocks["peers"] = peers_block(data["peers"])
    return rewrite(page, blocks)


# ---------------------------------------------------------------------- the command


def measure(args: argparse.Namespace) -> dict:
    """Run everything once; the data the page is rendered from."""
    data = {"command": " ".join(["python", "scripts/docs/performance.py", *sys.argv[1:]])}
    data["machine"] = machine()
    data["benchmarks"] = run_benchmarks()
    peers = {n: getattr(args, n) for n in ("mmstrat", "mikemag") if getattr(args, n)}
    if peers:
        data["peers"] = {"runs": run_peers(peers, args.rounds)}
    data["machine"]["load"].append(round(os.getloadavg()[0], 1))
    return data


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--from", dest="source", type=Path, help="render from this saved JSON")
    ap.add_argument("--mmstrat", help="path of fancidev's mmstrat binary")
    ap.add_argument("--mikemag", help="path of mikemag's [5,8] Knuth CPU binary")
    ap.add_argument("--rounds", type=int, default=3, help="rounds of the peers' comparison")
    ap.add_argument("--json", type=Path, default=SAVED, help="where a run saves its figures")
    ap.add_argument("--page", type=Path, default=PAGE, help="the page to rewrite")
    ap.add_argument("--check", action="store_true", help="only say whether the page is current")
    args = ap.parse_args(argv)
    if args.source:
        data = json.loads(args.source.read_text())
        data.setdefault("machine", pytest_machine(data))
    else:
        data = measure(args)
        args.json.write_text(json.dumps(data, indent=1) + "\n")
        print(f"written: {args.json}")
    old = args.page.read_text()
    new = render(data, old)
    if args.check:
        print(f"{args.page} is " + ("up to date" if new == old else "out of date"))
        return 0 if new == old else 1
    args.page.write_text(new)
    print(f"written: {args.page}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
