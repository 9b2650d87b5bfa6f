"""bench/cuts_check.py, the script that re-decides second guesses of the p(5,8) campaign's
refuted parts with the colour-multiset counts and the label-matrix ranking off and on, run
end to end on [3,5]: every question the same answers and nodes both ways, and each
verdict the plain exhaustive search's."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import reference as ref

import mastermind
from mastermind import Game
from mastermind.strategy_tree import split_by_score

ROOT = Path(__file__).resolve().parents[1]


def test_the_cuts_script_agrees_with_itself_and_the_brute_force():
    env = dict(os.environ, PYTHONPATH=str(Path(mastermind.__file__).resolve().parents[1]))
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "cuts_check.py"), "-n", "3", "-k", "5",
         "--guesses", "4", "--part", "111:0 0", "--part", "123:0 1", "--sample", "8",
         "--seed", "3", "--json"],
        capture_output=True, text=True, env=env, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr + done.stdout
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    rows, end = lines[:-1], lines[-1]
    assert end["agree"] and len(rows) == 6 + 8  # (111 = (0 0) leaves 6 second guesses)
    assert not any(r["capped"] for r in rows)
    assert all(r["same_answers"] and r["same_nodes"] for r in rows)
    verdicts = {all(r["answers"]) for r in rows}
    assert verdicts == {True, False}  # refuted and solvable second guesses both
    game = Game(3, 5)
    brute = ref.WorstCase(*ref.game_rules(game))
    for r in rows:
        opening, score = r["part"].split(":")
        part = np.asarray(game.filter(game.secrets, opening, score), dtype=np.int32)
        parts = [p for s, p in split_by_score(game, game.code(r["guess"]), part)
                 if s != game.win_slot and p.size >= 3]  # fmt: skip
        parts.sort(key=lambda p: -p.size)
        assert len(parts) == r["parts"]
        for p, ok in zip(parts, r["answers"]):
            assert ok is (brute.least([int(c) for c in p]) <= 3), (r, p)
        assert r["answers"][-1] is False or len(r["answers"]) == len(parts)
