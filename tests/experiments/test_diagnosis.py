"""The cause classes of a diagnosis (experiments/reporting/diagnosis.py), fed constructed model, paper-density
and work effects through the rule set: a claim the model predicts only at the paper's density is "regime",
at neither "model", and without a paper-density fact "regime or model" saying why."""

from __future__ import annotations

import numpy as np
import pytest

from experiments.reporting import model_paper
from experiments.reporting.diagnosis import (
    ENGINE,
    ENGINE_OR_GENUINE,
    GENUINE,
    MODEL,
    NOT_MODELLED,
    REGIME,
    REGIME_OR_MODEL,
    Facts,
    classify,
)
from experiments.reporting.rules import BEATS, HOLDS, NO_EFFECT, at_least, ratio_interval


def _effect(gain: float, n: int = 12, spread: float = 0.02):
    """A claim "at least BEATS" judged on n units whose ratios lie around ``gain``."""
    rng = np.random.default_rng(int(gain * 1000) + n)
    return at_least(ratio_interval(list(gain * np.exp(rng.normal(0.0, spread, n)))), BEATS)


TIE, GAIN = _effect(1.0), _effect(3.0)


def test_the_constructed_effects_decide_as_intended():
    assert GAIN.verdict == HOLDS and TIE.verdict == NO_EFFECT


def test_predicted_only_at_the_papers_density_is_regime():
    cause, text = classify(Facts(TIE, GAIN, None, paper_note="rates x580"))
    assert cause == REGIME
    assert "model at our density" in text and "at the paper's density (rates x580)" in text


def test_predicted_at_neither_density_is_model():
    cause, _ = classify(Facts(TIE, TIE, GAIN))
    assert cause == MODEL  # the work cannot rescue a claim the paper's model does not make


def test_without_a_paper_density_fact_it_is_regime_or_model_and_says_why():
    why = model_paper.NOT_COMPUTED
    cause, text = classify(Facts(TIE, None, None, paper_note=why))
    assert cause == REGIME_OR_MODEL and why in text


@pytest.mark.parametrize("work, expected", [(GAIN, GENUINE), (TIE, ENGINE), (None, ENGINE_OR_GENUINE)])
def test_a_predicted_claim_is_told_apart_by_the_work(work, expected):
    assert classify(Facts(GAIN, None, work))[0] == expected


def test_no_model_at_our_density_is_not_modelled():
    assert classify(Facts(None))[0] == NOT_MODELLED


def test_the_multi_pattern_rows_say_how_to_compute_the_papers_density():
    """Without model_paper.parquet an MCEP or MOTTO row names the command that re-plans its workloads there."""
    assert "model-paper" in model_paper.NOT_COMPUTED and "model_paper.parquet" in model_paper.NOTE
