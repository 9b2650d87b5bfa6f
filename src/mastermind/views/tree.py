"""Strategy trees people can read: JSON, Graphviz DOT (and SVG/PNG/PDF through ``dot``),
and a printable text cheat sheet.

The input is the tree of ``analyze(game, ..., tree=True)``: a :class:`Node` per guess
played, its children keyed by the answers; the winning answer has no child, so a node of
size 1 without children is the winning guess.

>>> from mastermind import Game, analyze
>>> result = analyze(Game(2, 3), "minmax", tree=True)
>>> print(to_text(result, header=False))
11  [9 left]
  0 0  -> 22  [4 left]
            0 0  -> 33  [1 left: it is the secret]
            1 0  -> 23  [2 left]
                      0 2  -> 32  [1 left: it is the secret]
                      2 0  -> solved
            2 0  -> solved
  1 0  -> 12  [4 left]
            0 1  -> 31  [1 left: it is the secret]
            0 2  -> 21  [1 left: it is the secret]
            1 0  -> 13  [1 left: it is the secret]
            2 0  -> solved
  2 0  -> solved
>>> data = to_json(result)
>>> data["tree"]["guess"], list(data["tree"]["children"])
('11', ['0 0', '1 0'])
>>> replay_distribution(data, result.game) == result.distribution
True
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Optional, Protocol

from ..errors import MastermindError, MissingTool
from ..files import Destination
from ..rules import Variant, secrets_text
from ..strategy_tree import Node, Played, replay_counts, replay_line

if TYPE_CHECKING:
    from ..game import GameLike

RENDERED = {".svg": "svg", ".png": "png", ".pdf": "pdf"}
"""File suffixes that :func:`render` asks Graphviz's ``dot`` for."""


class Analysis(Protocol):
    """What the views draw of a strategy played against every secret
    (:class:`mastermind.analysis.exhaustive.Analysis` is one): its game, strategy,
    opening, distribution and tree.  The analyses hand their results down to be drawn;
    nothing here imports them."""

    strategy: Any
    candidates_only: bool
    first_guess: int
    distribution: dict[int, int]
    tree: Optional[Node]

    @property
    def game(self) -> GameLike: ...
    @property
    def total(self) -> int: ...
    @property
    def secrets(self) -> int: ...
    @property
    def max(self) -> int: ...
    @property
    def average(self) -> Fraction: ...


class TreeError(MastermindError):
    """A tree that cannot be exported (no tree, Graphviz missing, bad file)."""


class GraphvizMissing(TreeError, MissingTool):
    """Graphviz's ``dot`` is not installed: a tool missing, not bad input."""


# ---------------------------------------------------------------------- helpers
def score_text(game: GameLike, score: Any) -> str:
    """How a tree writes a score: ``"2 1"`` for Mastermind, blacks and whites in every
    variant (``"2 0"`` in black-peg: the trees written so far read so), the game's own
    ``format_score`` for a custom game."""
    return str(score) if isinstance(game.variant, Variant) else game.format_score(score)


def _tree(result: Analysis) -> Node:
    if result.tree is None:
        raise TreeError("the analysis has no tree: call analyze(..., tree=True)")
    return result.tree


def _texts(game: GameLike) -> dict[Any, str]:
    texts = {s: score_text(game, s) for s in game.slots}
    if len(set(texts.values())) != len(texts):
        raise TreeError(
            "two scores of the game are written alike; give the game a "
            "format_score that tells them apart"
        )
    return texts


def _pool(result: Analysis) -> str:
    return "candidates only" if result.candidates_only else "all guesses allowed"


def _strategy_name(result: Any) -> str:
    """The result's strategy as text (an analysis's Strategy, or a name: "optimal")."""
    return str(getattr(result.strategy, "value", result.strategy))


def summary(result: Analysis) -> str:
    """One line: game, strategy, pool, first guess, and the distribution's totals."""
    game = result.game
    avg = result.average
    return (
        f"{game.name} {result.strategy}, {_pool(result)}, first guess "
        f"{game.format_code(result.first_guess)}: {secrets_text(result.secrets)}, total "
        f"{result.total}, average {float(avg):.4f}, max {result.max}"
    )


# ---------------------------------------------------------------------- JSON
def to_json(result: Analysis) -> dict[str, Any]:
    """The whole strategy as a JSON-ready dict.

    Keys: ``game``, ``variant``, ``pegs``, ``colours`` (null for a custom game),
    ``strategy``, ``candidates_only``, ``first_guess``, ``end_score``, ``secrets``,
    ``total``, ``max``, ``distribution`` and ``tree``.  A tree node is
    ``{"guess": "1122", "candidates": 1296, "children": {"0 0": node, ...}}``: the
    candidates left before the guess, and what to play after each answer; the end score
    has no entry, and a leaf (``candidates`` 1, no ``children``) is the secret itself.
    """
    game = result.game
    texts = _texts(game)

    def node(nd: Node) -> dict[str, Any]:
        out: dict[str, Any] = {"guess": game.format_code(nd.guess), "candidates": nd.size}
        if nd.children:
            out["children"] = {texts[s]: node(c) for s, c in nd.children.items()}
        return out

    out: dict[str, Any] = {
        "game": game.name,
        "variant": game.variant.value,
        "pegs": game.n,
        "colours": game.k,
        "strategy": _strategy_name(result),
        "candidates_only": result.candidates_only,
        "first_guess": game.format_code(result.first_guess),
        "end_score": texts[game.slots[game.win_slot]],
        "secrets": result.secrets,
        "total": result.total,
        "max": result.max,
        "distribution": {str(d): c for d, c in sorted(result.distribution.items())},
        "tree": node(_tree(result)),
    }
    history = getattr(result, "history", None)
    if history:  # a strategy from a position: the guesses played before, and their scores
        out["history"] = [[game.format_code(g), texts[game.slots[s]]] for g, s in history]
    return out


def replay(data: dict[str, Any], game: GameLike, secret: Any) -> list[str]:
    """The guesses an exported tree (:func:`to_json`) plays against ``secret``.

    Raises :class:`TreeError` when the tree has no move for an answer, or is not an
    exported tree (a missing or malformed field, a guess that is no code of ``game``),
    naming what is wrong.
    """
    target = game.secret(secret)
    path = replay_line(_ExportedTree(game, data), data["tree"], target)
    return [node["guess"] for node, _, _ in path]


def replay_distribution(data: dict[str, Any], game: GameLike) -> dict[int, int]:
    """{number of guesses: secrets} from replaying every secret down an exported tree (every
    secret its ``history`` leaves, for a strategy from a position)."""
    secrets = game.candidates((g, game.parse_score(s)) for g, s in data.get("history", ()))
    return replay_counts(_ExportedTree(game, data), data["tree"], (int(v) for v in secrets))


class _ExportedTree:
    """An exported tree (:func:`to_json`) as :func:`replay_line` reads it: nodes are
    objects with a ``"guess"`` text and ``"children"`` by the answers' texts, scored by
    the game; what is malformed is a :class:`TreeError`."""

    def __init__(self, game: GameLike, data: Any):
        if not isinstance(data, dict) or "tree" not in data or "end_score" not in data:
            raise TreeError(
                "not an exported tree: it needs the fields 'tree' and 'end_score' "
                "(as tree.to_json writes them)"
            )
        end = data["end_score"]
        if not isinstance(end, str):
            raise TreeError(
                f"the tree's end_score must be a score's text such as "
                f"{score_text(game, game.slots[game.win_slot])!r}, not {end!r}"
            )
        self.game, self.end = game, end

    def guess(self, node: Any, secret: int, path: list[Played]) -> int:
        if not isinstance(node, dict) or not isinstance(node.get("guess"), str):
            raise TreeError(
                f"the tree's node {_where(path)} has no guess (a node is an object "
                "with a 'guess' text and 'children')"
            )
        try:
            return int(self.game.guess(node["guess"]))
        except MastermindError as e:
            raise TreeError(
                f"the tree's guess {node['guess']!r} {_where(path)} is not a guess of "
                f"{self.game.name}: {e}"
            ) from None

    def score(self, guess: int, secret: int) -> str:
        return score_text(self.game, self.game.score_index(guess, secret))

    def won(self, score: str) -> bool:
        return score == self.end

    def child(self, node: Any, secret: int, path: list[Played]) -> Any:
        children = node.get("children", {})
        if not isinstance(children, dict):
            raise TreeError(
                f"the tree's children after {_played(path)} are not an object of answers to nodes"
            )
        answer = path[-1][2]
        if answer not in children:
            raise TreeError(f"the tree has no move after {_played(path)} answered {answer}")
        return children[answer]

    def endless(self, secret: int, path: list[Played]) -> Exception:
        return TreeError("the tree does not end")


def _played(path: list[Played]) -> str:
    return " ".join(node["guess"] for node, _, _ in path)


def _where(path: list[Played]) -> str:
    return f"after {_played(path)}" if path else "at the root"


# ---------------------------------------------------------------------- text
def to_text(result: Analysis, max_depth: Optional[int] = None, *, header: bool = True) -> str:
    """A printable cheat sheet: the guess to play, then under it each answer and what to
    play next, indented by depth.  ``max_depth`` cuts the sheet after that many guesses
    (``...`` marks what is left out)."""
    return "\n".join(_text_lines(result, max_depth, header=header))


def _text_lines(result: Analysis, max_depth: Optional[int], *, header: bool) -> Iterator[str]:
    game = result.game
    texts = _texts(game)
    win = game.slots[game.win_slot]
    width = max(len(t) for t in texts.values())
    if header:
        yield f"# {summary(result)}"
        yield (
            f"# Play the guess; under it, find the answer you got and play what follows "
            f"the arrow.  {texts[win]} ends the game."
        )

    def label(nd: Node) -> str:
        if nd.size == 1 and not nd.children:
            return f"{game.format_code(nd.guess)}  [1 left: it is the secret]"
        return f"{game.format_code(nd.guess)}  [{nd.size} left]"

    def lines(nd: Node, indent: str, depth: int) -> Iterator[str]:
        if nd.size == 1 and not nd.children:
            return
        if max_depth is not None and depth >= max_depth:
            yield f"{indent}  ..."
            return
        won = nd.size - sum(c.size for c in nd.children.values())  # 1: the guess may win
        answers = [
            (s, nd.children.get(s)) for s in game.slots if s in nd.children or (s == win and won)
        ]
        for s, child in answers:
            head = f"{indent}  {texts[s]:<{width}}  -> "
            if child is None:
                yield head + "solved"
                continue
            yield head + label(child)
            yield from lines(child, " " * len(head), depth + 1)

    root = _tree(result)
    yield label(root)
    yield from lines(root, "", 1)


# ---------------------------------------------------------------------- DOT
def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def to_dot(result: Analysis, max_depth: Optional[int] = None) -> str:
    """The tree as a Graphviz digraph: a box per guess (with the candidates left), an
    edge per answer; the winning guesses are double-bordered.  ``max_depth`` keeps that
    many levels of guesses."""
    game = result.game
    texts = _texts(game)
    out = [
        "digraph strategy {",
        f"  label={_quote(summary(result))};",
        '  labelloc="t";',
        "  rankdir=LR;",
        '  node [shape=box, fontname="monospace"];',
        '  edge [fontname="monospace"];',
    ]
    count = 0

    def emit(nd: Node, depth: int) -> str:
        nonlocal count
        name = f"n{count}"
        count += 1
        leaf = nd.size == 1 and not nd.children
        text = (
            game.format_code(nd.guess) if leaf else f"{game.format_code(nd.guess)}\n{nd.size} left"
        )
        style = ", peripheries=2" if leaf else ""
        out.append(f"  {name} [label={_quote(text)}{style}];")
        if nd.children and max_depth is not None and depth >= max_depth:
            more = f"n{count}"
            count += 1
            out.append(f'  {more} [label="...", shape=plaintext];')
            out.append(f"  {name} -> {more};")
            return name
        for s, child in nd.children.items():
            child_name = emit(child, depth + 1)
            out.append(f"  {name} -> {child_name} [label={_quote(texts[s])}];")
        return name

    emit(_tree(result), 1)
    out.append("}")
    return "\n".join(out) + "\n"


def dot_program() -> Optional[str]:
    """The path of Graphviz's ``dot``, or None when it is not installed."""
    return shutil.which("dot")


def render(dot_text: str, path: str, fmt: Optional[str] = None, timeout: float = 600) -> None:
    """Render DOT text to ``path`` (SVG, PNG or PDF, from the suffix or ``fmt``) with
    Graphviz's ``dot``, written as every output of the package is
    (:class:`mastermind.files.Destination`: whole or not at all); :class:`TreeError`
    with the reason when that cannot be done (:class:`GraphvizMissing` without ``dot``)."""
    fmt = render_format(path, fmt)
    program = find_dot()
    with Destination(path, "the picture") as dest:
        dest.write(draw(dot_text, fmt, timeout, program))


def render_format(path: str, fmt: Optional[str] = None) -> str:
    """The format ``dot`` draws ``path`` in: ``fmt``, else by its suffix."""
    fmt = fmt or RENDERED.get(os.path.splitext(path)[1].lower())
    if fmt is None or fmt not in RENDERED.values():
        raise TreeError(f"cannot render to {path!r}: use a .svg, .png or .pdf file")
    return fmt


def find_dot() -> str:
    """The path of Graphviz's ``dot``; :class:`GraphvizMissing` when it is not installed."""
    program = dot_program()
    if program is None:
        raise GraphvizMissing(
            "Graphviz is not installed (no 'dot' on PATH): install it (e.g. "
            "'apt-get install graphviz') or write the tree with --format dot "
            "and render it elsewhere"
        )
    return program


def draw(dot_text: str, fmt: str, timeout: float = 600, program: Optional[str] = None) -> bytes:
    """The picture ``dot`` draws of DOT text, in ``fmt`` (``svg``, ``png``, ``pdf``): its
    bytes, written to standard output by ``dot`` (never to a file of its choosing)."""
    try:
        run = subprocess.run(
            [program or find_dot(), f"-T{fmt}"],
            input=dot_text.encode("utf-8"),
            capture_output=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        raise TreeError(f"dot took more than {timeout:.0f} s; try --depth") from None
    except OSError as e:
        raise GraphvizMissing(f"cannot run Graphviz's dot ({e.strerror or e})") from None
    if run.returncode != 0:
        lines = run.stderr.decode(errors="replace").strip().splitlines()
        raise TreeError(f"dot failed: {lines[-1] if lines else f'exit status {run.returncode}'}")
    return run.stdout
