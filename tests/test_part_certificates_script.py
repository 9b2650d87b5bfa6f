"""scripts/worstcase/part_certificates.py on a small campaign: it certifies every refuted
part, checks each file with the stand-alone checker, fills the index and enters each
file in state.json, so that the campaign's export counts the parts as certified."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import mastermind

SRC = str(Path(mastermind.__file__).resolve().parents[1])
SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "worstcase" / "part_certificates.py"


def run(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=SRC)
    done = subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, env=env, timeout=600
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done


@pytest.mark.skipif(not os.path.exists("/usr/bin/time"), reason="the script measures with time -v")
def test_the_script_certifies_every_refuted_part_and_the_export_counts_them(tmp_path):
    c = tmp_path / "c47"
    run("-m", "mastermind", "campaign", "run", str(c), "-n", "4", "-k", "7", "--guesses", "5")
    before = json.loads((c / "state.json").read_text())["summary"]
    assert before["value"] == 6 and before["rests_on"]["here"] == before["refuted"]
    run(str(SCRIPT), str(c), "--refuted", "--jobs", "1", "--time-limit", "300")
    index = json.loads((c / "certificates" / "index.json").read_text())
    sums = json.loads((c / "state.json").read_text())["certificates"]
    assert len(index) == len(sums) == before["refuted"]
    for part, row in index.items():
        path = c / "certificates" / row["file"]
        assert row["file"].endswith(".cert.xz") and path.read_bytes()[:6] == b"\xfd7zXZ\x00"
        assert sums[row["file"]] == hashlib.sha256(path.read_bytes()).hexdigest()
        assert f"after {part} cannot all be found within 4 more guesses: proved" in row["summary"]
    run("-m", "mastermind", "campaign", "export", str(c))
    after = json.loads((c / "state.json").read_text())["summary"]
    assert after["rests_on"]["certified"] == before["refuted"] and after["value"] == 6
