"""The digest of a HAMLET cell's exact results (the rows' ``plan``) holds trend counts of any size."""

import hashlib
import json
from fractions import Fraction

from experiments.exps.hamlet import results_digest


def test_counts_past_the_decimal_limit_are_digested_and_told_apart():
    # COUNT(*) of Kleene trends over a 20-minute window passes 4,300 digits, where json.dumps raises
    huge = 10**5000
    rows = [["q0", 0, 1200, None, huge, Fraction(huge, 3)]]
    assert results_digest(rows) != results_digest([["q0", 0, 1200, None, huge + 1, Fraction(huge, 3)]])
    assert results_digest(rows) != results_digest([["q0", 0, 1200, None, huge, Fraction(huge + 1, 3)]])


def test_results_under_the_limit_digest_as_plain_json():
    rows = [["q0", 0, 60, ("d1",), 12345678901234567890, Fraction(7, 3), 2.5], ["q1", 60, 120, None, 0]]
    plain = hashlib.sha1(json.dumps(rows, default=str).encode()).hexdigest()[:16]
    assert results_digest(rows) == plain
