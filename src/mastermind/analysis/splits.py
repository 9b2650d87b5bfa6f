"""A walk unit that split (:func:`mastermind.analysis.unit_work.walk_unit` past its
budget) and its answer put back together: the sub-units its split makes
(:func:`child_groups`), their answers folded into the parent's (:func:`merge_split`),
exactly the answer of the unit walked whole; and what a walk unit answers
(:func:`answer_of`).  The plan (:mod:`mastermind.analysis.units`) and the workers
(:mod:`mastermind.analysis.unit_work`) both use these."""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

__all__ = ["UNIT_FLOOR", "answer_of", "child_groups", "merge_split"]

UNIT_FLOOR = 64
"""Candidates a unit gathers at least (subtrees this small are grouped)."""


def answer_of(dists: Any, recs: Optional[list]) -> dict[str, Any]:
    """A unit's answer: the distribution rows and, for a tree, the records."""
    out: dict[str, Any] = {"dists": np.asarray(dists, dtype=np.int64)}
    if recs is not None:
        out["recs"] = (
            np.concatenate(recs).astype(np.int32) if recs else np.zeros((0, 5), dtype=np.int32)
        )
        out["rec_counts"] = np.array([r.shape[0] for r in recs], dtype=np.int64)
    return out


def child_groups(split: dict[str, Any]) -> list[tuple[int, int]]:
    """The sub-units of a split, as runs (lo, hi) of the subtrees it left: below a node
    the unit played (its parts, in score order), neighbours together until a run holds
    :data:`UNIT_FLOOR` candidates (a unit of a few candidates costs more to send than to
    walk); a unit of several subtrees that split hands each back alone (so that a split
    always makes smaller units, whatever the budget)."""
    sizes = [int(x) for x in np.asarray(split["rsizes"]).tolist()]
    if int(split["guess"]) < 0:
        return [(i, i + 1) for i in range(len(sizes))]
    groups: list[tuple[int, int]] = []
    lo, size = 0, 0
    for i, n in enumerate(sizes):
        size += n
        if size >= UNIT_FLOOR:
            groups.append((lo, i + 1))
            lo, size = i + 1, 0
    if lo < len(sizes):
        groups.append((lo, len(sizes)))
    return groups


def merge_split(
    key: str, args: dict[str, Any], split: dict[str, Any], answers: dict[str, dict[str, Any]]
) -> Optional[dict[str, Any]]:
    """The answer of unit ``key`` (arguments ``args``) that split, once every sub-unit
    has its own (None before): the walked subtrees' and the sub-units' rows in order,
    folded back into the split node when the unit had split one level down (its guess,
    its win, its records on top).  Exactly the answer of the unit walked whole."""
    done = int(split["done"])
    groups = child_groups(split)
    if len(answers) < len(groups):
        return None
    tree = bool(args["tree"])
    rows = list(np.asarray(split["dists"]))
    recs: list[np.ndarray] = []
    if tree:
        cuts = np.cumsum(split["rec_counts"])[:-1]
        recs = [r for r in np.split(split["recs"], cuts)] if done else []
    for lo, hi in groups:
        answer = answers[f"{key}/{done + lo}"]
        rows.extend(np.asarray(answer["dists"])[: hi - lo])
        if tree:
            cuts = np.cumsum(answer["rec_counts"])[:-1]
            recs.extend(np.split(np.asarray(answer["recs"]), cuts))
    width = max(r.size for r in rows) if rows else 1
    dists = np.zeros((len(rows), width), dtype=np.int64)
    for i, r in enumerate(rows):
        dists[i, : r.size] = r
    g = int(split["guess"])
    if g >= 0:  # one subtree, split below its node: fold the rows back into it
        depth = int(split["depth"])
        row = dists.sum(axis=0)
        if row.size <= depth:
            row = np.concatenate([row, np.zeros(depth + 1 - row.size, dtype=np.int64)])
        row[depth] += int(split["won"])
        dists = row[None, :]
        if tree:
            top = np.array([[-1, -1, g, int(args["sizes"][0]), depth]], dtype=np.int32)
            parts = [top]
            offset = 1
            for slot, r in zip(np.asarray(split["wslots"]).tolist(), recs):
                r = np.array(r, dtype=np.int32, copy=True)
                root = r[:, 0] < 0
                r[~root, 0] += offset
                r[root, 0] = 0
                r[root, 1] = slot
                parts.append(r)
                offset += r.shape[0]
            recs = [np.concatenate(parts)]
    return answer_of(dists, recs if tree else None)
