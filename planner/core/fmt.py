"""Numbers as people read them: money, seconds, shares, counts. The terminal, the CSV/JSON tables
and the HTML report all format through here, so they cannot disagree."""

from __future__ import annotations

import math
from typing import Any

_SYMBOLS = {"USD": "$", "EUR": "€", "GBP": "£"}


def money(x: float | None, currency: str = "USD") -> str:
    """People's money: $12.3k, $1.2M, $0.0042."""
    if x is None:
        return "-"
    sign = "-" if x < 0 else ""
    x = abs(x)
    symbol = _SYMBOLS.get(currency, currency + " ")
    if x >= 1e9:
        body = _three(x / 1e9) + "B"
    elif x >= 999.5e3:
        body = _three(x / 1e6) + "M"
    elif x >= 1e4:
        body = _three(x / 1e3) + "k"
    elif x >= 100:
        body = f"{x:,.0f}"
    elif x >= 1:
        body = f"{x:,.2f}"
    elif x == 0:
        body = "0"
    else:  # two significant digits, written out and kept whole: $0.10, $0.0060, $0.000028
        body = f"{x:.{max(2, 1 - math.floor(math.log10(x)))}f}"
        if float(body) >= 1:
            body = "1.00"
    return f"{sign}{symbol}{body}"


def _three(v: float) -> str:
    """Three significant figures with their trailing zeros: 33.0, 18.1, 1.20, 100 (v in [1, 1000))."""
    for decimals, top in ((2, 9.995), (1, 99.95)):
        if v < top:
            return f"{v:.{decimals}f}"
    return f"{v:.0f}"


def money_change(x: float | None, currency: str = "USD") -> str:
    """A change in money with its sign: +$1,016, -$25k; under half a cent (solver noise, equal-cost
    ties) no change: $0."""
    if x is None:
        return "-"
    if abs(x) < 0.005:
        return money(0.0, currency)
    return ("+" if x > 0 else "") + money(x, currency)


def in_unit(x: float | None, unit: str, currency: str = "USD") -> str:
    """A limit in its unit as people read it: a share as a percentage, money as money, else the
    figure and its unit."""
    if x is None:
        return "-"
    if unit.startswith("share"):
        return percent(x)
    if unit == "currency":
        return money(x, currency)
    return f"{number(x)} {unit}".strip()


def seconds(x: float | None) -> str:
    """A duration: two significant figures below ten seconds, whole seconds up to two minutes, then minutes,
    and hours from two hours (a batch window)."""
    if x is None:
        return "-"
    if x >= 7200:
        return f"{x / 3600:.1f} h" if x < 36000 else f"{x / 3600:,.0f} h"
    if x >= 120:
        return f"{x / 60:.1f} min"
    if x >= 10:
        return f"{x:.0f} s"
    return f"{figure(x, 2)} s" if x < 1 else f"{x:.1f} s"


def percent(x: float | None) -> str:
    """A share as a percentage: 70%, 4.5%."""
    if x is None:
        return "-"
    return f"{x:.0%}" if abs(x) >= 0.1 or x == 0 else f"{x:.1%}"


def shares_apart(a: float | None, b: float | None) -> tuple[str, str]:
    """Two shares as percentages that tell them apart when they differ: 95% and 94.7%, not 95% twice."""
    if a is None or b is None or a == b:
        return percent(a), percent(b)
    for digits in (0, 1, 2):
        x, y = f"{a:.{digits}%}", f"{b:.{digits}%}"
        if x != y:
            return x, y
    return f"{a:.2%}", f"{b:.2%}"


def signed_percent(x: float | None) -> str:
    """A relative change: +12%, -0.5%, ±0%."""
    if x is None:
        return "-"
    if abs(x) < 0.0005:
        return "±0%"
    return f"{x:+.0%}" if abs(x) >= 0.1 else f"{x:+.1%}"


def count(x: float | None, digits: int = 3) -> str:
    """A count or a rate, shortened: 1.2M, 45.6k, 950, 0.25."""
    if x is None:
        return "-"
    for above, size, unit in ((1e12, 1e12, "T"), (1e9, 1e9, "B"), (1e6, 1e6, "M"), (1e4, 1e3, "k")):
        if abs(x) >= above:
            return figure(x / size, digits) + unit
    if abs(x) >= 100:
        return f"{x:,.0f}"
    return figure(x, digits)


def figure(x: float, digits: int = 4) -> str:
    """A figure written out, never with an exponent: at most `digits` significant digits, trailing
    zeros dropped, thousands separated: 0.000028, 0.15, 12.35, 1,918, 123,500."""
    if x == 0 or not math.isfinite(x):
        return "0" if x == 0 else f"{x}"
    decimals = digits - 1 - math.floor(math.log10(abs(x)))
    x = round(x, decimals)
    text = f"{x:,.{max(decimals, 0)}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def number(x: float) -> str:
    """A figure in a sentence: whole numbers with separators, else four significant digits."""
    return f"{x:,.0f}" if float(x).is_integer() else figure(x, 4)


def short(x: float) -> str:
    """A figure in a reason (latencies, budgets): four significant digits."""
    return figure(x, 4)


def cell(v: Any) -> str:
    """A value in a terminal table."""
    if v is None:
        return "-"
    if isinstance(v, float):
        return figure(v, 6)
    if isinstance(v, list):
        return "; ".join(str(x) for x in v)
    return str(v)


def visible(text: str, limit: int | None = None) -> str:
    """Text from an input as a terminal shows it safely: control characters (escape sequences, new
    lines, NUL) written as escapes, and cut to `limit` characters."""
    out = "".join(
        c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in str(text)[: (limit or 10**9) + 1]
    )
    if limit is not None and len(out) > limit:
        out = out[: limit - 3] + "..."
    return out


_FORMULA = ("=", "+", "-", "@", "\t", "\r")


def csv_safe(value: Any) -> Any:
    """A CSV cell a spreadsheet will not run: text starting with = + - @, a tab or a carriage return
    gets a leading apostrophe (OWASP's rule for CSV injection); numbers stay numbers, written plain."""
    if isinstance(value, str) and value.startswith(_FORMULA):
        return "'" + value
    if isinstance(value, float):
        return plain(value)
    return value


def plain(x: float) -> str:
    """A number in a machine-readable output other than a plan file (CSV, JSON rows): never with an
    exponent and without float noise; from 10,000 up to the cent (money keeps its cents), below that
    six significant digits: 3480, 33123.46, 0.000781235."""
    if not math.isfinite(x):
        return "null" if x != x else ("1e999" if x > 0 else "-1e999")
    if x == 0:
        return "0"
    decimals = 2 if abs(x) >= 1e4 else 5 - math.floor(math.log10(abs(x)))
    text = f"{round(x, decimals):.{max(decimals, 0)}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def json_text(data: Any) -> str:
    """JSON of plain data (dicts, lists, strings, numbers) indented by two, with every float written
    by `plain` (the json module writes repr: 7.8e-05, 3479.9999999999995)."""
    import json

    def write(v: Any, pad: str) -> str:
        inner = pad + "  "
        if isinstance(v, dict):
            if not v:
                return "{}"
            items = (f"{inner}{json.dumps(str(k), ensure_ascii=False)}: {write(x, inner)}" for k, x in v.items())
            return "{\n" + ",\n".join(items) + f"\n{pad}}}"
        if isinstance(v, list | tuple):
            if not v:
                return "[]"
            return "[\n" + ",\n".join(inner + write(x, inner) for x in v) + f"\n{pad}]"
        if isinstance(v, float):
            return plain(v)
        return json.dumps(v, ensure_ascii=False)

    return write(data, "") + "\n"


def csv_row(values) -> list:
    return [csv_safe(v) for v in values]


def joined(items: list[str]) -> str:
    """Names as a sentence lists them: "a", "a and b", "a, b and c"."""
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}" if items else ""


def option(offering: str, mode: str, sale: str = "list", reserved: str | None = None) -> str:
    """An option as people read it: the offering, then in brackets its mode unless it is the default,
    its price tier unless it is the list price, and the commitment whose reserved capacity serves it."""
    extra = [x for x in (mode if mode != "default" else None, sale if sale != "list" else None) if x]
    if reserved:
        extra.append(f"reserved {reserved}")
    return f"{offering} ({', '.join(extra)})" if extra else offering


def ordinal(p: float) -> str:
    """A percentile as people say it, with its English suffix; the middle one by name (the median)."""
    if p == 50:
        return "median"
    n = int(p)
    if n != p:
        return f"{p:g}th"
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def who(vendor: str, host: str, served_by: list[str] | tuple[str, ...] = ()) -> str:
    """Who bills and who serves an option, as a company column reads: "openai · cerebras", "openrouter ·
    openai", "openrouter · 5 hosts" (behind an aggregator: the one company, or how many; the plan file and
    the catalog name them all)."""
    behind = list(dict.fromkeys(c for c in served_by if c not in (vendor, host)))
    shown = behind if len(behind) <= 1 else [f"{len(behind)} hosts"]
    return " · ".join(dict.fromkeys([vendor, host, *shown]))
