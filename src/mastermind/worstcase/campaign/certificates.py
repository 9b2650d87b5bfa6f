"""Part certificates in a campaign's folder (``certificates/*.cert.gz`` or ``*.cert.xz``, made by
:func:`mastermind.worstcase.certify.write_part_certificate`): each one that the
stand-alone checker (:mod:`mastermind.verify`) accepts proves that the secrets one
opening's score leaves cannot all be found within its guesses, whatever the shards say.

A certificate checked once is known by its SHA-256 (``state.json`` keeps them, so that
a status need not check again a file it has checked); :func:`certified` with no such
record checks every file.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import TYPE_CHECKING, Optional

from ...verify import VerifyError, read_records, verify_file

if TYPE_CHECKING:
    from .question import Campaign

__all__ = ["certified"]


def _part_of(campaign: Campaign, path: Path) -> Optional[tuple[int, int, int]]:
    """(opening, slot, guesses) a part certificate is about, from its first record;
    None for a file that is no part certificate of one opening of this game."""
    game = campaign.game
    try:
        records = read_records(str(path))
        try:
            head = next(records, None)
        finally:
            getattr(records, "close", lambda: None)()  # (the file, closed at once)
    except VerifyError:
        return None
    if not isinstance(head, dict) or not isinstance(head.get("part"), dict):
        return None
    said = head.get("game")
    if not isinstance(said, dict) or (
        said.get("pegs"),
        said.get("colours"),
        said.get("variant", "classic"),
    ) != (
        game.n,
        game.k,
        game.variant.value,
    ):
        return None
    history, guesses = head["part"].get("history"), head["part"].get("guesses")
    try:
        [[rank, [black, white]]] = history
        colours = [(rank // game.k ** (game.n - 1 - j)) % game.k + 1 for j in range(game.n)]
        slot = [(s.black, s.white) for s in game.slots].index((black, white))
        return game.code(colours), slot, int(guesses)
    except Exception:  # not [[code, [black, white]]], a code the game cannot play, ...
        return None


def certified(
    campaign: Campaign, known: Optional[dict[str, str]] = None
) -> tuple[dict[tuple[int, int], str], dict[str, str]]:
    """The parts the folder's certificates prove cannot be solved within the d - 1
    guesses the question leaves: (opening, slot) -> the file's name; and the SHA-256 of
    every file accepted (``known``: those of files checked before, not checked again)."""
    folder = Path(campaign.path("certificates"))
    parts: dict[tuple[int, int], str] = {}
    sums: dict[str, str] = {}
    if not folder.is_dir():
        return parts, sums
    for path in sorted(folder.glob("*.cert.[gx]z")):
        about = _part_of(campaign, path)
        if about is None or about[2] < campaign.guesses - 1:
            continue
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        if (known or {}).get(path.name) != digest and not _accepted(path):
            continue
        parts[(about[0], about[1])] = path.name
        sums[path.name] = digest
    return parts, sums


def _accepted(path: Path) -> bool:
    try:
        verify_file(str(path))
        return True
    except VerifyError:
        return False
