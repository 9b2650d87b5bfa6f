"""The one strategy replay (mastermind.strategy_tree.replay_line): the checker of Node trees
and the replay of exported trees both play through it, and both stop a line of play at
the same named limit with their own error."""

import pytest

from mastermind import Game
from mastermind.limits import MAX_REPLAY_GUESSES
from mastermind.strategy_tree import Node, replay_counts, replay_line
from mastermind.views.tree import TreeError, replay
from mastermind.worstcase.check import StrategyCheckError, check_strategy


def looping_node(game: Game) -> Node:
    """A tree that plays 11 again after every answer: it never ends for 12, 21 or 22."""
    root = Node(game.code("11"), game.size)
    root.children = {s: root for i, s in enumerate(game.slots) if i != game.win_slot}
    return root


def test_the_checker_stops_an_endless_tree_at_the_limit():
    game = Game(2, 2)
    with pytest.raises(StrategyCheckError) as e:
        check_strategy(game, looping_node(game))
    message = str(e.value)
    assert message.startswith("secret 12: after 11 scored 1 0, 11 scored 1 0")
    assert message.endswith(f": more than {MAX_REPLAY_GUESSES} guesses")
    assert message.count("11 scored") == MAX_REPLAY_GUESSES + 1


def test_the_exported_tree_replay_stops_an_endless_tree_at_the_same_limit():
    game = Game(2, 2)
    node: dict = {"guess": "11"}
    node["children"] = {"1 0": node, "0 0": node}  # (a Python cycle: no file can hold one)
    with pytest.raises(TreeError, match="the tree does not end"):
        replay({"tree": node, "end_score": "2 0"}, game, "12")
    assert replay({"tree": node, "end_score": "2 0"}, game, "11") == ["11"]


class Chain:
    """A tree of nested (guess, next) pairs: guess g is the win for secret g."""

    def guess(self, node, secret, path):
        return node[0]

    def score(self, guess, secret):
        return guess == secret

    def won(self, score):
        return score

    def child(self, node, secret, path):
        if node[1] is None:
            raise LookupError(f"no move after {len(path)} guesses")
        return node[1]

    def endless(self, secret, path):
        return OverflowError(f"{len(path)} guesses")


def chain(length: int):
    tree = None
    for g in reversed(range(length)):
        tree = (g, tree)
    return tree


def test_a_line_is_stopped_only_when_unfinished_after_more_guesses_than_the_limit():
    tree = chain(MAX_REPLAY_GUESSES)
    line = replay_line(Chain(), tree, MAX_REPLAY_GUESSES - 1)
    assert [g for _, g, _ in line] == list(range(MAX_REPLAY_GUESSES))
    assert replay_counts(Chain(), tree, [0, 5, MAX_REPLAY_GUESSES - 1]) == {
        1: 1,
        6: 1,
        MAX_REPLAY_GUESSES: 1,
    }
    with pytest.raises(LookupError, match=f"no move after {MAX_REPLAY_GUESSES} guesses"):
        replay_line(Chain(), tree, MAX_REPLAY_GUESSES)
    longer = chain(MAX_REPLAY_GUESSES + 2)
    assert len(replay_line(Chain(), longer, MAX_REPLAY_GUESSES)) == MAX_REPLAY_GUESSES + 1
    with pytest.raises(OverflowError, match=f"^{MAX_REPLAY_GUESSES + 1} guesses"):
        replay_line(Chain(), longer, MAX_REPLAY_GUESSES + 1)  # unfinished after more
