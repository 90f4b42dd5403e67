"""Python's ``round(x, ndigits)`` over arrays: the generators' timestamps, rounded as they always were.

``numpy.round`` scales, rounds half to even and scales back, so where the scaled value lies within its
own rounding error of a half it can round the other way than Python's ``round``, which rounds the
exact binary value correctly.  Scaling back agrees (an integer over a power of ten is one correctly
rounded division either way), so only those values differ: :func:`python_round` rounds them with
Python itself.
"""

from __future__ import annotations

import numpy as np


def python_round(x, ndigits: int) -> np.ndarray:
    """``[round(v, ndigits) for v in x]`` as a float64 array (see the module docstring)."""
    x = np.asarray(x, dtype=np.float64)
    out = np.round(x, ndigits)
    y = x * 10.0**ndigits
    with np.errstate(invalid="ignore"):
        doubtful = (np.abs(y - np.floor(y) - 0.5) <= np.spacing(np.abs(y))) | ~(np.abs(y) < 2.0**52)
    for i in np.flatnonzero(doubtful).tolist():
        out[i] = round(float(x[i]), ndigits)
    return out
