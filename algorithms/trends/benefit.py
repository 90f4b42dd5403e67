"""The dynamic sharing benefit of a burst (HAMLET Definition 4.2, Equation 7).

With ``b`` events in the burst, ``n`` events per window, ``s_p`` snapshots propagated and ``s_c``
created for the burst, ``k`` queries, ``g`` events per graphlet and ``t`` event types per query::

    Shared(G_E, Q_E)      = b * n * s_p + s_c * k * g * t
    NonShared(G_E^i, Q_E) = k * b * n
    Benefit(G_E, Q_E)     = NonShared - Shared          (share iff > 0)

Equations 8-10 of the paper are the tests: +12 (share), -32 (split), +44 (merge).

**Benefit models** (:data:`BENEFIT_MODELS`; the optimizer's ``benefit_model``, recorded in the HAMLET
experiments' rows).  :data:`EQUATION_7` (the default) is Equation 7 as published, whatever the queries'
aggregates.  :data:`TUPLE_WIDTH` is our extension for aggregates other than COUNT(*) (Section 2.1;
:mod:`evaluators.trends.coefficients`): Equation 7 counts one value moved per unit, a count, but with
other aggregates the executor moves tuples -- a shared graphlet propagates coefficients of width
``w = 1 +`` the distinct aggregates of the shared type among the sharing queries, and a query's own
graphlet and its snapshot values are its aggregate state, ``1 +`` its aggregates wide.  So the extension
charges the propagation term ``w`` per unit and turns ``k`` (one value per query) into ``kw``, the sum of
the queries' state widths.  For COUNT(*) queries (``w = 1``, ``kw = k``) the two models are the same.
"""

from __future__ import annotations

#: Equation 7 as published (the default)
EQUATION_7 = "equation7"
#: Equation 7 with the widths of aggregate tuples charged (module docstring)
TUPLE_WIDTH = "tuple-width"
BENEFIT_MODELS = (EQUATION_7, TUPLE_WIDTH)
DEFAULT_BENEFIT_MODEL = EQUATION_7


def shared_cost(*, b: int, n: int, s_p: int, s_c: int, k: int, g: int, t: int, w: int = 1, kw: int | None = None) -> int:
    """Cost of processing a burst in one graphlet shared by ``k`` queries (Eq. 7, first line);
    ``w`` the coefficient width, ``kw`` the queries' summed state widths (module docstring)."""
    return b * n * s_p * w + s_c * (k if kw is None else kw) * g * t


def nonshared_cost(*, k: int, b: int, n: int, kw: int | None = None) -> int:
    """Cost of processing a burst in one graphlet per query (Eq. 7, second line); ``kw`` the
    queries' summed state widths (``k`` for COUNT(*) queries)."""
    return (k if kw is None else kw) * b * n


def benefit(*, b: int, n: int, s_p: int, s_c: int, k: int, g: int, t: int, w: int = 1, kw: int | None = None) -> int:
    """NonShared - Shared (Eq. 7): positive when sharing the burst pays."""
    return nonshared_cost(k=k, b=b, n=n, kw=kw) - shared_cost(b=b, n=n, s_p=s_p, s_c=s_c, k=k, g=g, t=t, w=w, kw=kw)
