"""Numbers as people read them (planner.core.fmt), which the terminal, the tables and the report share."""

import json

import pytest

from planner.core.fmt import cell, count, figure, money, money_change, number, percent, seconds, short, signed_percent


@pytest.mark.parametrize(
    "x, currency, text",
    [
        (None, "USD", "-"),
        (0.0, "USD", "$0"),
        (0.0042, "USD", "$0.0042"),
        (1.5, "USD", "$1.50"),
        (1234.4, "USD", "$1,234"),
        (12345.0, "USD", "$12.3k"),
        (1.234e6, "EUR", "€1.23M"),
        (2.5e9, "GBP", "£2.50B"),
        (-0.0042, "USD", "-$0.0042"),
        (7.0, "CHF", "CHF 7.00"),
    ],
)
def test_money(x, currency, text):
    assert money(x, currency) == text


@pytest.mark.parametrize(
    "x, text",
    [
        (None, "-"),
        (0.25, "0.25 s"),
        (1.0, "1.0 s"),
        (7.47, "7.5 s"),
        (10.0, "10 s"),
        (112.0, "112 s"),
        (120.0, "2.0 min"),
        (3600.0, "60.0 min"),
    ],
)
def test_seconds(x, text):
    assert seconds(x) == text


def test_shares_and_changes():
    assert [percent(x) for x in (None, 0.0, 0.7, 0.045, 1.0)] == ["-", "0%", "70%", "4.5%", "100%"]
    assert [signed_percent(x) for x in (None, 0.0001, -0.0001, 0.12, -0.005, 0.5)] == [
        "-",
        "±0%",
        "±0%",
        "+12%",
        "-0.5%",
        "+50%",
    ]


def test_counts_and_figures():
    assert [count(x) for x in (None, 0.25, 950.0, 45600.0, 1.234e6)] == ["-", "0.25", "950", "45.6k", "1.23M"]
    assert count(1.23456e6, digits=5) == "1.2346M"
    assert [number(x) for x in (43200.0, 2.5, 1234.5678)] == ["43,200", "2.5", "1,235"]
    assert [short(x) for x in (112.0, 7.4666, 0.00012345)] == ["112", "7.467", "0.0001234"]
    assert [cell(x) for x in (None, 1234567.0, ["a", "b"], "x", 3)] == ["-", "1,234,570", "a; b", "x", "3"]


def test_figures_counts_and_seconds_are_written_out_not_in_scientific_notation():
    """catalog show's figures: at most the digits asked for, never an exponent, however small or large."""
    assert [figure(x) for x in (0, 2.8e-5, 0.15, 12.345678, 1918, 9.99996)] == [
        "0",
        "0.000028",
        "0.15",
        "12.35",
        "1,918",
        "10",
    ]
    assert figure(1234567) == "1,235,000" and figure(-0.5) == "-0.5" and figure(0.245, 2) == "0.24"
    assert [count(x) for x in (1e-5, 999_999, 1.5e9, 1e15)] == ["0.00001", "1,000k", "1.5B", "1,000T"]
    assert seconds(5e-5) == "0.00005 s" and seconds(0.75) == "0.75 s" and seconds(0.5) == "0.5 s"


def test_tiny_money_is_written_out_not_in_scientific_notation():
    """A cost per task of a cheap model (2.8e-05) reads as $0.000028 in tables and reports."""
    assert money(2.8e-5) == "$0.000028" and money(-7.1e-5) == "-$0.000071" and money(1e-9) == "$0.0000000010"
    assert money(0.0042) == "$0.0042" and money(0.5) == "$0.50" and money(0.1) == "$0.10"  # two figures, kept whole
    assert money(33001) == "$33.0k" and money(18e3) == "$18.0k" and money(999_600) == "$1.00M"  # three figures


def test_a_money_change_has_its_sign_and_noise_is_no_change():
    assert money_change(1016.2) == "+$1,016" and money_change(-25000) == "-$25.0k" and money_change(None) == "-"
    assert money_change(8.5e-05) == "$0" and money_change(-0.004) == "$0" and money_change(0.01) == "+$0.010"


def test_machine_outputs_write_numbers_plain():
    """CSV cells and JSON rows (not plan files): no exponent, no float noise, money to the cent."""
    from planner.core.fmt import csv_safe, json_text, plain

    assert [plain(x) for x in (3479.9999999999995, 7.8e-05, 33123.456, 0.30000000000000004, 1.2e6, -5.5, 0.0)] == [
        "3480",
        "0.000078",
        "33123.46",
        "0.3",
        "1200000",
        "-5.5",
        "0",
    ]
    assert csv_safe(1.5e-05) == "0.000015" and csv_safe(3) == 3 and csv_safe("=1") == "'=1"
    data = {"a": [1.5e-05, "x\u0000", 2, {}, [], None, True], "b": 3479.9999999999995, "c": {"d": "é"}}
    text = json_text(data)
    assert "e-05" not in text and '"b": 3480' in text
    assert json.loads(text) == {**data, "a": [0.000015, "x\u0000", 2, {}, [], None, True], "b": 3480}
