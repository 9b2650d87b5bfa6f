"""An optimum campaign's question: its file (``campaign.json``,
:class:`OptimumCampaign`), its folder's files and lock (:func:`hold`), and its plan of
units (:func:`plan_of`)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any, Optional

from ... import checks
from ...checks import ArgumentError
from ...engine import folder as common
from ...engine.folder import FolderFiles
from ...engine.own_files import OwnDestination
from ...game import Game
from ...limits import MAX_OPTIMAL_GUESSES
from ..units import checkpoint_params, plan_optimal

__all__ = ["FILES", "FORMAT", "QUESTION", "OptimumCampaign", "hold", "plan_of"]

FORMAT = 1
"""The version of ``campaign.json``."""

QUESTION = "optimum"
"""What ``campaign.json``'s ``question`` names (a worst-case campaign's has none)."""

MOST_BYTES = 1 << 16
"""The most bytes ``campaign.json`` may hold."""

FILES = common.folder_files("optimum.json", "the campaign's strategy")
"""The files of an optimum campaign's folder (beside ``shards/``), and what each is."""


@contextmanager
def hold(folder: str, *, make: bool = False) -> Iterator[None]:
    """The campaign's folder held by this process, its files checked
    (:func:`mastermind.engine.folder.hold`)."""
    with common.hold(str(folder), FILES, make=make):
        yield


@dataclass(frozen=True)
class OptimumCampaign(FolderFiles):
    """An optimum campaign's question and folder (``campaign.json``): the game, the
    position (``after``: (guess, score) pairs, as the game writes them), the opening
    (``first``), the most guesses, the guess pool, each unit's memo (MB) and budget."""

    folder: str
    pegs: int
    colours: int
    variant: str = "classic"
    after: tuple[tuple[str, str], ...] = ()
    first: Optional[str] = None
    max_guesses: Optional[int] = None
    candidates_only: bool = False
    memory_mb: int = 1024
    unit_seconds: float = 60.0

    @property
    def game(self) -> Game:
        return Game(self.pegs, self.colours, self.variant)

    def played(self) -> list[tuple[int, int]]:
        """The position's (guess, slot) pairs."""
        return checks.history(self.game, self.after, "optimise")[0] if self.after else []

    def secrets(self) -> int:
        """The secrets the position leaves (every secret of the game without one)."""
        if not self.after:
            return int(self.game.secrets.size)
        return int(checks.history(self.game, self.after, "optimise")[1].size)

    def opening(self) -> Optional[int]:
        return None if self.first is None else self.game.guess(self.first)

    def params(self) -> dict[str, Any]:
        """The checkpoint's parameters: those of :func:`~mastermind.optimum.optimal`'s
        units for the same question (its checkpoint and the campaign's are one kind)."""
        return checkpoint_params(
            self.game,
            candidates_only=self.candidates_only,
            max_guesses=self.max_guesses,
            g0=self.opening(),
            played=self.played(),
        )

    def run_of(self) -> dict[str, Any]:
        """The run the campaign's shards must belong to: kind, game and parameters."""
        game = self.game.spec().definition()
        return {"kind": "optimal", "game": game, "params": self.params()}

    @classmethod
    def new(cls, folder: str, **question: Any) -> "OptimumCampaign":
        """A new campaign's question, checked: the game, the position (a history of the
        game, not won), the opening (a code of the game), the most guesses (1 ..
        :data:`~mastermind.limits.MAX_OPTIMAL_GUESSES`, or None), the memo (MB) and
        budget (seconds >= 0)."""
        _known_fields(question)
        game = Game(question["pegs"], question["colours"], question.get("variant", "classic"))
        question["variant"] = game.variant.value
        after = question.get("after") or ()
        played, cands = checks.history(game, after, "optimise") if after else ([], None)
        question["after"] = tuple((game.format_code(g), str(game.slots[s])) for g, s in played)
        if question.get("first") is not None:
            if not isinstance(question["first"], str):
                raise ArgumentError(f"the opening must be a code, not {question['first']!r:.40}")
            question["first"] = game.format_code(game.guess(question["first"]))
        if question.get("max_guesses") is not None:
            question["max_guesses"] = checks.max_guesses(
                question["max_guesses"], 1, MAX_OPTIMAL_GUESSES
            )
        question["candidates_only"] = checks.flag(
            question.get("candidates_only", False), "candidates_only"
        )
        if not question["candidates_only"]:
            checks.guessable(game)
        memory = checks.integer(question.get("memory_mb", cls.memory_mb), "memory (MB)", 1)
        question["memory_mb"] = checks.memory(memory << 20) >> 20
        question["unit_seconds"] = checks.seconds(
            question.get("unit_seconds", cls.unit_seconds), "unit_seconds", zero=True
        )
        return cls(folder=str(folder), **question)

    def to_json(self) -> dict[str, Any]:
        doc = {"format": FORMAT, "question": QUESTION, **asdict(self)}
        doc["after"] = [list(p) for p in self.after]
        del doc["folder"]
        return doc

    def save(self) -> None:
        """``campaign.json`` written whole (never through a link)."""
        Path(self.folder).mkdir(parents=True, exist_ok=True)
        with OwnDestination(self.path("campaign.json"), "the campaign's question") as out:
            out.write(json.dumps(self.to_json(), indent=1) + "\n")

    @classmethod
    def load(cls, folder: str) -> "OptimumCampaign":
        """The campaign of ``folder``, checked as :meth:`new` checks a new one
        (:class:`ArgumentError` when it holds none, or one that is not an optimum
        campaign's)."""
        what = "an optimum campaign's file"
        path, doc = common.read_question(folder, FORMAT, MOST_BYTES, what)
        with common.question_errors(path, what):
            if doc.pop("question", None) != QUESTION:
                raise ArgumentError("not an optimum campaign's ('question' is not 'optimum')")
            for name in ("pegs", "colours"):
                if name not in doc:
                    raise ArgumentError(f"no {name}")
            return cls.new(folder, **doc)


def _known_fields(question: dict[str, Any]) -> None:
    """A campaign's question names its own fields only (``folder`` is not one)."""
    unknown = set(question) - ({f.name for f in fields(OptimumCampaign)} - {"folder"})
    if unknown:
        names = ", ".join(sorted(map(str, unknown)))[:80]
        raise ArgumentError(f"an optimum campaign has no {names}")


def plan_of(campaign: OptimumCampaign, recorded: set[str]) -> Any:
    """The campaign's plan (:func:`~mastermind.optimum.units.plan_optimal`), the
    checkpoint's keys ``recorded`` offered first."""
    return plan_optimal(
        campaign.game,
        campaign.max_guesses,
        candidates_only=campaign.candidates_only,
        g0=campaign.opening(),
        memory=campaign.memory_mb << 20,
        recorded=recorded,
        played=campaign.played(),
    )
