"""The commitment sentences of the review state money as a reader can act on it: solver noise under
half a cent is none, never "$0.000000000022 a year"."""

import pytest

from planner.model.schema.catalog import Commitment, CommitmentUnit
from planner.review.contracts import _minimum_binds, _needed, _noise_free

ANNUAL = Commitment(id="annual", vendor="anthropic", period="year", min_spend=120_000, discount=0.15, source="test")
UNITS = Commitment(
    id="ptu",
    vendor="openai",
    period="month",
    unit=CommitmentUnit(fee=1800, tokens_per_minute=20_000),
    max_units=4,
    source="t",
)


def test_noise_under_half_a_cent_is_none():
    assert _noise_free(2.2e-11) == 0.0 and _noise_free(-0.004) == 0.0
    assert _noise_free(0.006) == 0.006 and _noise_free(-12.5) == -12.5


def test_a_minimum_that_pays_only_at_zero_says_so_not_a_fraction_of_a_cent():
    minimum = ANNUAL.per_period(ANNUAL.min_spend, "month")
    got = _minimum_binds(ANNUAL, minimum - 2.2e-11 / 12, minimum, 5000.0, 0.15, "month", "year", "USD")
    assert "0.0000" not in got.text and got.text.endswith("it pays only with no minimum at all")
    assert got.min_spend == 0.0
    # a real lower minimum is stated in the contract's own period
    got = _minimum_binds(ANNUAL, minimum - 1000.0, minimum, 5000.0, 0.15, "month", "year", "USD")
    assert got.text.endswith("it pays with a minimum of $12.2k a year or less")
    assert got.min_spend == pytest.approx(1000 * 365 / 30)  # $1,000 a month, in the contract's year
    # a gap the shortfall cannot cover: no discount helps
    assert _minimum_binds(ANNUAL, 10.0, 5.0, 5000.0, 0.15, "month", "year", "USD").text.endswith(
        "no discount makes it pay"
    )


def test_a_unit_fee_that_rounds_to_nothing_reads_as_even_free():
    got = _needed(UNITS, 2.2e-11, 1, None, "month", "month", "USD", exact=True)
    assert got.text == "not bought: even free, 1 unit(s) would not pay" and got.fee == 0.0
    got = _needed(UNITS, 250.0, 1, None, "month", "month", "USD", exact=True)
    assert "a fee of $250 a unit a month or less (now $1,800)" in got.text
