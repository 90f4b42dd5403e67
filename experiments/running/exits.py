"""No code the harness runs may end its process: a planner that calls ``sys.exit(0)`` or ``os._exit(0)``
would otherwise end ``plan`` or a run with the status it chose -- success while cells were never run or
stored (README, "Benchmark your own planner").

:func:`refusing_exit` turns either call, made while its block runs, into :class:`cep.errors.ExitRefused`
naming the call and where it was made: one line and exit status 2 on the command line, the cell's failure
in a run (:func:`experiments.running.runners.guarded`).  What ends a process from outside Python (a
signal, a crash, the kernel's out-of-memory killer) cannot be refused; a run checks at its end that every
cell it was to run is stored or recorded as failed (:mod:`experiments.running.execution`).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager

from cep.errors import ExitRefused


def _where(frame) -> str:
    return f"{frame.f_code.co_filename}:{frame.f_lineno}" if frame is not None else "an unknown place"


def _last_frame(tb):
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return tb.tb_frame if tb is not None else None


@contextmanager
def refusing_exit(what: str) -> Iterator[None]:
    """While the block runs, ``os._exit(n)`` raises :class:`ExitRefused` instead of ending the process, and
    a ``SystemExit`` (``sys.exit(n)``) leaving the block becomes one; ``what`` names the work in the message.
    Blocks nest (the innermost names the work); the real ``os._exit`` is back when the outermost ends.  A process
    forked inside the block still ends with ``os._exit``, as multiprocessing's children do."""
    real = os._exit
    pid = os.getpid()

    def refuse(status=0):
        if os.getpid() != pid:  # a child forked inside the block (multiprocessing's fork) ends as it always has
            real(status)
        raise ExitRefused(f"{what}: os._exit({status!r}) called at {_where(sys._getframe(1))}; the harness's code may not end "
                          "its process (raise an exception instead)")

    os._exit = refuse
    try:
        yield
    except SystemExit as e:
        raise ExitRefused(f"{what}: sys.exit({e.code!r}) called at {_where(_last_frame(e.__traceback__))}; the harness's code "
                          "may not end its process (raise an exception instead)") from None
    finally:
        os._exit = real
