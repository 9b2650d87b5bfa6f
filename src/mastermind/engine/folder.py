"""A campaign's folder as input from strangers, whatever its question: the files it
holds (a table of names given by the campaign), looked at before anything is read or
written (:func:`check_files`), the lock that lets one command at a time work on it
(:func:`hold`), and its JSON files read bounded (:func:`read_json`); its checkpoint is
made again from its shards by :func:`mastermind.engine.shards.restore_checkpoint`.

Git carries the folder between people, so any of its names may hold what someone
committed: a symbolic link (to a file of the user's, to ``/dev/zero``), a FIFO, a device.
Every command looks at each name first, without following it: a link or anything but a
regular file (a folder, for ``shards/``) is refused in one line
(:class:`~mastermind.engine.own_files.UnsafeFile`), before anything is opened, SQLite's
checkpoint and journal included.  The files are then read without following a link and
up to a cap, and written whole through
:class:`~mastermind.engine.own_files.OwnDestination`.

The lock (``campaign.lock``, :class:`~mastermind.engine.run_lock.RunLock`) is taken
before anything is restored or written: two runs started together on a fresh clone do
not both make the checkpoint; the second is refused at once (:class:`CampaignBusy`),
naming the first.  It is held by the process, so the library's functions, which take it
too, may be called under the command line's own.

The worst-case campaign (:mod:`mastermind.worstcase.campaign`) and the optimum's
(:mod:`mastermind.optimum.campaign`) each name their files and use these.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Optional

from ..checks import ArgumentError
from ..errors import MastermindError
from ..files import FileError
from .own_files import UnsafeFile, append_own, check_own, read_own
from .run_lock import RunLock, UnsafeLockFile

__all__ = [
    "LOCK",
    "CampaignBusy",
    "CampaignFileError",
    "FolderFiles",
    "also_to_file",
    "question_errors",
    "read_question",
    "shard_count",
    "check_files",
    "folder_files",
    "hold",
    "read_json",
]

LOCK = "campaign"
"""The lock's name (:func:`~mastermind.engine.run_lock.lock_path` adds ``.lock``)."""


def folder_files(strategy: str, about: str) -> dict[str, str]:
    """The files of a campaign's folder (beside ``shards/``), and what each is: its
    question, state and log, its checkpoint with SQLite's files beside it, its lock, and
    the family's own ``strategy`` file (``about`` says what it holds)."""
    return {
        "campaign.json": "the campaign's question",
        "state.json": "the campaign's state",
        strategy: about,
        "run.log": "the campaign's log",
        "checkpoint.sqlite": "the campaign's checkpoint",
        "checkpoint.sqlite-journal": "the checkpoint's journal",
        "checkpoint.sqlite-wal": "the checkpoint's log",
        "checkpoint.sqlite-shm": "the checkpoint's shared memory",
        "checkpoint.sqlite.lock": "the checkpoint's lock",
        "checkpoint.sqlite.behind": "the checkpoint kept aside",
        f"{LOCK}.lock": "the campaign's lock",
    }


class FolderFiles:
    """The paths of a campaign's files, from its ``folder`` (a field of the campaign's
    question, which mixes this in)."""

    folder: str

    def path(self, name: str) -> str:
        """A file of the campaign's folder."""
        return str(Path(self.folder) / name)

    @property
    def checkpoint(self) -> str:
        return self.path("checkpoint.sqlite")

    @property
    def shards(self) -> str:
        return self.path("shards")


class CampaignBusy(MastermindError):
    """A campaign's folder another run works on."""


class CampaignFileError(MastermindError):
    """A file of a campaign's folder that cannot be used as it is: one line naming it."""


def check_files(folder: str, files: Mapping[str, str]) -> None:
    """Every name of ``files`` (name -> what it is) in the campaign's folder a regular
    file or nothing (``shards/`` a folder or nothing), looked at without following it;
    :class:`UnsafeFile` otherwise."""
    for name, what in files.items():
        check_own(os.path.join(folder, name), what)
    check_own(os.path.join(folder, "shards"), "the campaign's shards", folder=True)


_HELD: dict[str, list[Any]] = {}  # the folders this process holds: [lock, depth]


@contextmanager
def hold(folder: str, files: Mapping[str, str], *, make: bool = False) -> Iterator[None]:
    """The campaign's folder held by this process (made first with ``make``) and its
    files checked (:func:`check_files`); :class:`CampaignBusy` when another run holds
    it.  Held already by this process: held once more (let go by the outermost)."""
    key = os.path.realpath(folder)
    if key in _HELD:
        _HELD[key][1] += 1
        try:
            yield
        finally:
            _HELD[key][1] -= 1
        return
    if make:
        try:
            os.makedirs(folder, exist_ok=True)
        except OSError as e:
            raise FileError(f"cannot make {folder}: {e.strerror or e}") from None
    elif not os.path.isdir(folder):
        raise ArgumentError(f"{folder}: no campaign here (no such folder)")
    lock = RunLock(os.path.join(folder, LOCK))
    try:
        holder = lock.acquire()
    except UnsafeLockFile as e:
        raise UnsafeFile(str(e)) from None
    if holder is not None:
        raise CampaignBusy(f"{folder} is in use by another run ({holder}): wait for it to end")
    _HELD[key] = [lock, 1]
    try:
        check_files(folder, files)
        yield
    finally:
        del _HELD[key]
        lock.release()


def also_to_file(log: Callable[[str], None], path: str) -> Callable[[str], None]:
    """``log``, each line also appended to the campaign's log at ``path`` with the time
    (UTC), never through a link."""

    def both(line: str) -> None:
        log(line)
        stamp = time.strftime("%Y-%m-%d %H:%M:%S ", time.gmtime())
        append_own(path, stamp + line + "\n", "the campaign's log")

    return both


def read_question(folder: str, fmt: int, most: int, what: str) -> tuple[str, dict[str, Any]]:
    """(the path, the fields but ``format``) of ``folder``'s ``campaign.json``, at most
    ``most`` bytes, an object of the file format ``fmt``.  None there, or a file that is
    not ``what`` ("a campaign's file"), is an :class:`ArgumentError` of one line."""
    path = str(Path(folder) / "campaign.json")
    try:
        doc = read_json(path, "the campaign's question", most)
    except MastermindError as e:
        raise ArgumentError(str(e)) from None
    if doc is None:
        raise ArgumentError(f"{folder}: no campaign here (no campaign.json)")
    with question_errors(path, what):
        if not isinstance(doc, dict) or any(not isinstance(k, str) for k in doc):
            raise ArgumentError("not an object")
        if doc.pop("format", None) != fmt:
            raise ArgumentError("another version of the file, or none")
    return path, doc


@contextmanager
def question_errors(path: str, what: str) -> Iterator[None]:
    """What goes wrong reading the question at ``path`` as one line: ``PATH: not WHAT
    (why)``, an :class:`ArgumentError`."""
    try:
        yield
    except MastermindError as e:
        raise ArgumentError(f"{path}: not {what} ({e})") from None
    except (TypeError, ValueError, OverflowError, RecursionError) as e:
        text = " ".join(str(e).split())[:120]
        raise ArgumentError(f"{path}: not {what} ({text})") from None


def shard_count(state: dict[str, Any]) -> int:
    """The shards the last export left, as the campaign's state says (0 when it does
    not)."""
    shards = state.get("shards")
    count = shards.get("count") if isinstance(shards, dict) else None
    return count if type(count) is int and 0 <= count <= 1 << 30 else 0


def _no_constant(name: str) -> None:
    """NaN and Infinity, which JSON does not have, read as null."""
    return None


def read_json(path: str, what: str, most: int) -> Optional[Any]:
    """The JSON document of ``path`` (None when there is none): read without following
    a link, at most ``most`` bytes, NaN and Infinity read as null;
    :class:`CampaignFileError` for one that is not JSON (naming the file)."""
    data = read_own(path, what, most)
    if data is None:
        return None
    deep = CampaignFileError(f"{path}: {what} is nested too deep to be one")
    try:
        doc = json.loads(data, parse_constant=_no_constant)
    except RecursionError:
        raise deep from None
    except ValueError as e:  # (UnicodeDecodeError among them)
        raise CampaignFileError(f"{path}: {what} is not JSON ({_first_line(e)})") from None
    if _deeper(doc, MOST_DEPTH):
        raise deep
    return doc


MOST_DEPTH = 32
"""The deepest nesting of a campaign's JSON file (``state.json`` has 5 levels)."""


def _deeper(doc: Any, most: int) -> bool:
    """Whether ``doc`` nests lists and objects more than ``most`` deep (walked without
    recursion)."""
    stack = [(doc, 0)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, (dict, list)):
            if depth >= most:
                return True
            items = value.values() if isinstance(value, dict) else value
            stack.extend((v, depth + 1) for v in items)
    return False


def _first_line(e: BaseException) -> str:
    text = " ".join(str(e).split())
    return text if len(text) <= 120 else text[:117] + "..."
