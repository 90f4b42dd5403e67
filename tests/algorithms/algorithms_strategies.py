"""Hypothesis strategies shared by the planner tests: random clauses with random statistics."""

from __future__ import annotations

import itertools

from hypothesis import strategies as st

from cep import Statistics, parse_pattern, to_dnf

STRATEGY_TEXT = {
    "any": "",
    "next": " STRATEGY skip-till-next-match",
    "strict": " STRATEGY strict-contiguity",
    "partition": " STRATEGY partition-contiguity BY x",
}


@st.composite
def clause_and_stats(
    draw,
    *,
    min_n: int = 1,
    max_n: int = 6,
    shapes=("SEQ", "AND", "NESTED"),
    negation: bool = True,
    kleene: bool = True,
    strategies=("any", "next", "strict", "partition"),
    count_windows: bool = True,
    zero_selectivities: bool = True,
):
    """A random simple pattern (one DNF clause) and statistics for it: rates, selectivities of its
    conditions (pairs, filters, now and then a triple), time or count window, optional NOT and KL."""
    n = draw(st.integers(min_n, max_n))
    names = [f"v{i}" for i in range(n)]
    kinds = [draw(st.sampled_from(["pos"] * 5 + (["kl", "klb"] if kleene else []))) for _ in names]

    def item(i: int) -> str:
        ev = f"T{i} {names[i]}"
        if kinds[i] == "kl":
            return f"KL({ev})"
        if kinds[i] == "klb":
            return f"KL({ev}){{1,{draw(st.integers(1, 4))}}}"
        return ev

    items = [item(i) for i in range(n)]
    shape = draw(st.sampled_from(shapes)) if n >= 3 else draw(st.sampled_from([s for s in shapes if s != "NESTED"] or ["SEQ"]))
    negs = []
    if negation and draw(st.booleans()):
        negs.append("N0 w0")
        at = draw(st.integers(0, len(items)))
        items.insert(at, "NOT(N0 w0)")
    if shape == "NESTED":
        cut = draw(st.integers(2, n - 1))
        body = f"AND(SEQ({', '.join(items[:cut])}), {', '.join(items[cut:])})"
    else:
        body = f"{shape}({', '.join(items)})"

    pair_pool = list(itertools.combinations(range(n), 2))
    pairs = draw(st.lists(st.sampled_from(pair_pool), unique=True, max_size=len(pair_pool))) if pair_pool else []
    filters = draw(st.lists(st.sampled_from(range(n)), unique=True, max_size=n))
    conds = [f"v{i}.x < v{j}.x" for i, j in pairs] + [f"v{i}.x > 3" for i in filters]
    keys = [f"v{i},v{j}" for i, j in pairs] + [f"v{i}" for i in filters]
    if n >= 3 and draw(st.booleans()):
        i, j, k = sorted(draw(st.lists(st.sampled_from(range(n)), min_size=3, max_size=3, unique=True)))
        conds.append(f"v{i}.x + v{j}.x < v{k}.x")
        keys.append(f"v{i},v{j},v{k}")
    if negs and draw(st.booleans()):
        j = draw(st.sampled_from(range(n)))
        conds.append(f"w0.x = v{j}.x")
        keys.append(f"v{j},w0")

    if count_windows and draw(st.booleans()):
        window = f"{draw(st.integers(2, 60))} events"
    else:
        window = f"{draw(st.integers(1, 30))} seconds"
    strategy = draw(st.sampled_from(strategies))
    text = f"PATTERN {body}"
    if conds:
        text += " WHERE " + " AND ".join(conds)
    text += f" WITHIN {window}{STRATEGY_TEXT[strategy]}"
    sp = to_dnf(parse_pattern(text))[0]

    rate = st.floats(0.01, 5.0, allow_nan=False)
    rates = {f"T{i}": draw(rate) for i in range(n)}
    if negs:
        rates["N0"] = draw(rate)
    if draw(st.booleans()):
        rates["OTHER"] = draw(rate)  # a type of the stream outside the pattern (count windows)
    low = 0.0 if zero_selectivities else 1e-4
    sel = st.one_of(st.floats(low, 1.0, allow_nan=False), st.sampled_from([1e-3, 0.5, 1.0]))
    sels = {k: draw(sel) for k in keys}
    return sp, Statistics(rates, sels)


def all_bushy_trees(leaves):
    """Every binary tree over a set of leaves (unordered children counted once)."""
    leaves = list(leaves)
    if len(leaves) == 1:
        yield leaves[0]
        return
    first, rest = leaves[0], leaves[1:]
    for r in range(0, len(rest)):
        for combo in itertools.combinations(rest, r):
            left = [first, *combo]
            right = [x for x in rest if x not in combo]
            for lt in all_bushy_trees(left):
                for rt in all_bushy_trees(right):
                    yield (lt, rt)


def all_sequence_trees(leaves):
    """Every binary tree whose in-order leaf sequence is ``leaves``."""
    leaves = list(leaves)
    if len(leaves) == 1:
        yield leaves[0]
        return
    for k in range(1, len(leaves)):
        for lt in all_sequence_trees(leaves[:k]):
            for rt in all_sequence_trees(leaves[k:]):
                yield (lt, rt)
