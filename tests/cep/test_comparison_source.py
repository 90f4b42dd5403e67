"""cep.conditions.comparison_source: the one Python source of a comparison, used by every code generator."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from cep.conditions import COMPARISON_OPS, Attr, BinOp, Comparison, Const, Neg, comparison_source
from cep.events import Event

VALUES = st.sampled_from([-2.0, -1.0, 0.0, 0.5, 1.0, 3.0])


def expressions(var: str):
    leaves = st.one_of(st.just(Attr(var, "x")), st.just(Attr(var, "y")), VALUES.map(Const))
    return st.recursive(
        leaves,
        lambda inner: st.one_of(
            st.builds(BinOp, st.sampled_from(["+", "-", "*", "/"]), inner, inner),
            st.builds(Neg, inner),
        ),
        max_leaves=4,
    )


def _render(a: Attr) -> str:
    return f"E[{a.var!r}].attrs[{a.name!r}]"


def test_equality_is_written_as_python_equality():
    c = Comparison("=", Attr("a", "x"), BinOp("/", Attr("b", "y"), Const(2.0)))
    assert comparison_source(c, lambda a: f"{a.var}_{a.name}") == "(a_x == (b_y / 2.0))"


@given(st.sampled_from(COMPARISON_OPS), expressions("a"), expressions("b"), VALUES, VALUES, VALUES, VALUES)
def test_the_source_evaluates_as_the_comparison_does(op, left, right, ax, ay, bx, by):
    c = Comparison(op, left, right)
    binding = {"a": Event("A", 0.0, {"x": ax, "y": ay}), "b": Event("B", 1.0, {"x": bx, "y": by})}
    try:
        got = eval(comparison_source(c, _render), {"E": binding})  # noqa: S307 - our own generated source
    except ZeroDivisionError:
        got = False
    assert got == c.evaluate(binding)
