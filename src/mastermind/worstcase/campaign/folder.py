"""A campaign's folder as input from strangers: the files it holds (:data:`FILES`),
looked at before anything is read or written, and the lock that lets one command at a
time work on it (:func:`hold`).  The machinery is the engine's
(:mod:`mastermind.engine.folder`), shared with the optimum's campaign; this module names
the worst-case campaign's files.

Git carries the folder between people, so any of its names may hold what someone
committed: a symbolic link (to a file of the user's, to ``/dev/zero``), a FIFO, a device.
Every command looks at each name first, without following it (:func:`check_files`): a
link or anything but a regular file (a folder, for ``shards/``) is refused in one line
(:class:`~mastermind.engine.own_files.UnsafeFile`), before anything is opened, SQLite's
checkpoint and journal included.  The files are then read without following a link and
up to a cap (:func:`read_json`), and written whole through
:class:`~mastermind.engine.own_files.OwnDestination` (``run.log`` appended with
``O_NOFOLLOW``).

The lock (``campaign.lock``, :class:`~mastermind.engine.run_lock.RunLock`) is taken
before anything is restored or written: two runs started together on a fresh clone do
not both make the checkpoint; the second is refused at once (:class:`CampaignBusy`),
naming the first.  It is held by the process, so the library's functions, which take it
too, may be called under the command line's own.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

from ...engine import folder as common
from ...engine.folder import CampaignBusy, CampaignFileError, read_json

__all__ = [
    "FILES",
    "CampaignBusy",
    "CampaignFileError",
    "check_files",
    "hold",
    "read_json",
]

FILES = common.folder_files("witness.json", "the campaign's witness")
"""The files of a campaign's folder (beside ``shards/``), and what each is."""

LOCK = common.LOCK
"""The lock's name (:func:`~mastermind.engine.run_lock.lock_path` adds ``.lock``)."""


def check_files(folder: str) -> None:
    """Every name of the campaign's folder a regular file or nothing (``shards/`` a
    folder or nothing), looked at without following it; :class:`UnsafeFile` otherwise."""
    common.check_files(folder, FILES)


@contextmanager
def hold(folder: str, *, make: bool = False) -> Iterator[None]:
    """The campaign's folder held by this process (made first with ``make``) and its
    files checked (:func:`check_files`); :class:`CampaignBusy` when another run holds
    it.  Held already by this process: held once more (let go by the outermost)."""
    with common.hold(os.fspath(folder), FILES, make=make):
        yield
