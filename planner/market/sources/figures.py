"""What every reader shares: a source's figure read as a number in its range or the reason its entry is
left out (never read as absent), a value quoted as a reason quotes it, and JSON files read with their errors."""

from __future__ import annotations

import json
import math
from pathlib import Path

from planner.core.errors import InputError
from planner.core.files import read_input

MAX_CONTEXT = 10**10  # tokens: the catalog schema's limit of a context window


def num(text) -> float | None:
    """A finite number, or None (missing, not a number, NaN or infinite)."""
    if text is None or isinstance(text, bool):
        return None
    if isinstance(text, (int, float)):
        value = float(text)
    else:
        try:
            value = float(str(text).strip())
        except ValueError:
            return None
    return value if math.isfinite(value) else None


def given(raw) -> bool:
    """Whether a source gives a value (a CSV's empty cell and JSON's null give none)."""
    return raw is not None and not (isinstance(raw, str) and not raw.strip())


def shown(raw) -> str:
    """A value as a left-out reason quotes it: a number as a number (-1, 1e+30, inf), else its repr, cut."""
    if not isinstance(raw, bool):
        try:
            return f"{float(raw):g}"
        except (TypeError, ValueError, OverflowError):
            pass
    return repr(raw)[:40]


def dollars(x: float) -> str:
    """A price as a left-out reason or an offering's source quotes it: $0.15, $1e-05."""
    return f"${x:g}"


def read_context(raw) -> tuple[int | None, str | None]:
    """A context length: (None, None) when not given (no limit known); (tokens, None) for a finite number
    above 0 up to the schema's 10^10; else (None, the reason its entry is left out): a value that is no
    number of tokens is never read as no limit."""
    if not given(raw):
        return None, None
    value = num(raw)
    if value is None or not 0 < value <= MAX_CONTEXT:
        return None, f"context length {shown(raw)} is not a positive number of tokens up to 10^10"
    return int(value), None


def read_rate(raw, name: str, unit: str) -> tuple[float | None, str | None]:
    """A published rate limit (litellm's rpm, tpm): (None, None) when not given (unlimited); the limit
    when a finite number above 0; else (None, the reason its entry is left out), never read as unlimited."""
    if not given(raw):
        return None, None
    value = num(raw)
    if value is None or value <= 0:
        return None, f"{name} {shown(raw)} is not a positive number of {unit} a minute"
    return value, None


def read_cached(raw) -> tuple[float | None, str | None]:
    """A per-token cached-input price as per 1M: (None, None) when not given (billed at the input price);
    the price when a finite number from 0; else (None, the reason its entry is left out)."""
    if not given(raw):
        return None, None
    value = num(raw)
    if value is None or value < 0:
        return None, f"no usable cached-input price (found {repr(raw)[:40]})"
    return value * 1e6, None


def why_no_price(*values) -> str:
    found = ", ".join(repr(v)[:40] for v in values)
    return f"no usable input and output price (found {found})"


def read_json(path: Path):
    return parse_json(read_input(path, "a JSON file"), path)


def parse_json(text: str, path: Path):
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError.single(str(path), "", f"not valid JSON: {exc.msg}", exc.lineno, exc.colno) from None
    except RecursionError:
        raise InputError.single(str(path), "", "not valid JSON: nested too deeply") from None
