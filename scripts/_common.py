"""What the research scripts share: :func:`log`, a progress line stamped with the time of
day.

A script runs as ``python scripts/<folder>/<name>.py``, with only its own folder on the
path; it imports this module after putting the scripts' folder there too::

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # scripts/: _common
    from _common import log  # noqa: E402
"""

from __future__ import annotations

import sys
import time
from typing import Optional, TextIO


def log(msg: str, *, stream: Optional[TextIO] = None, also: Optional[str] = None) -> None:
    """``msg`` after the time of day (``HH:MM:SS``), flushed at once, on ``stream``
    (standard output by default); ``also``: a file it is appended to as well."""
    line = time.strftime("%H:%M:%S ") + msg
    print(line, file=sys.stdout if stream is None else stream, flush=True)
    if also:
        with open(also, "a") as f:
            print(line, file=f)
