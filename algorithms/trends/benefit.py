"""The dynamic sharing benefit of a burst (HAMLET Definition 4.2, Equation 7).

With ``b`` events in the burst, ``n`` events per window, ``s_p`` snapshots propagated and ``s_c``
created for the burst, ``k`` queries, ``g`` events per graphlet and ``t`` event types per query::

    Shared(G_E, Q_E)      = b * n * s_p + s_c * k * g * t
    NonShared(G_E^i, Q_E) = k * b * n
    Benefit(G_E, Q_E)     = NonShared - Shared          (share iff > 0)

Equations 8-10 of the paper are the tests: +12 (share), -32 (split), +44 (merge).
"""

from __future__ import annotations


def shared_cost(*, b: int, n: int, s_p: int, s_c: int, k: int, g: int, t: int) -> int:
    """Cost of processing a burst in one graphlet shared by ``k`` queries (Eq. 7, first line)."""
    return b * n * s_p + s_c * k * g * t


def nonshared_cost(*, k: int, b: int, n: int) -> int:
    """Cost of processing a burst in one graphlet per query (Eq. 7, second line)."""
    return k * b * n


def benefit(*, b: int, n: int, s_p: int, s_c: int, k: int, g: int, t: int) -> int:
    """NonShared - Shared (Eq. 7): positive when sharing the burst pays."""
    return nonshared_cost(k=k, b=b, n=n) - shared_cost(b=b, n=n, s_p=s_p, s_c=s_c, k=k, g=g, t=t)
