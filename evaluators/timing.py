"""What a timed run needs around it: the cyclic garbage collector paused."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def no_cyclic_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector for the block, and restore it after (if it was enabled).

    The evaluators build no reference cycles (partial matches are tuples of ints, freed by reference
    counting), but the collector, triggered by the many tuples a run allocates, would rescan the
    long-lived ones again and again and charge that to whatever code triggered it: with it the
    4-variable AND benchmark of the JQPG evaluators ran 2.3 times slower (62.7 ms instead of
    27.4 ms), and the NEXT engine's per-operator CPU times would include the scans."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
