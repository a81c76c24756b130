"""Per-stage timings through logging (`planner -v ...` prints each stage's time on stderr), and the one
clock every solve of a command shares under `--time-limit`."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

log = logging.getLogger("planner")

_UNTIL: ContextVar[float | None] = ContextVar("planner_deadline", default=None)  # time.monotonic() value


class OutOfTime(Exception):
    """The command's time limit passed before or during a solve that is not the plan's own (a re-solve
    of the review): the caller leaves that part out and says so."""


@contextmanager
def deadline(seconds: float | None) -> Iterator[None]:
    """Solves inside the block share one clock of `seconds` (None: no limit): each is limited to what is
    left, and one that starts after it or is cut short by it raises OutOfTime. Nested blocks keep the
    sooner end."""
    if seconds is None:
        yield
        return
    end = time.monotonic() + seconds
    outer = _UNTIL.get()
    token = _UNTIL.set(end if outer is None else min(outer, end))
    try:
        yield
    finally:
        _UNTIL.reset(token)


@contextmanager
def no_deadline() -> Iterator[None]:
    """The plan's own solve: limited by the time it is given, never cut into OutOfTime."""
    token = _UNTIL.set(None)
    try:
        yield
    finally:
        _UNTIL.reset(token)


def seconds_left() -> float | None:
    """Seconds before the deadline of the enclosing `deadline` block (None outside one)."""
    until = _UNTIL.get()
    return None if until is None else until - time.monotonic()


def run_limit(own: float | None) -> tuple[float | None, bool]:
    """The time limit for one solver run: its own, or what is left before the deadline when that is
    sooner (then True: the run that stops at its limit was cut by the deadline). OutOfTime when the
    deadline has passed."""
    left = seconds_left()
    if left is None:
        return own, False
    if left <= 0:
        raise OutOfTime
    if own is None or left < own:
        return left, True
    return own, False


@contextmanager
def timed(name: str) -> Iterator[None]:
    """Log how long the block took, as `stage NAME: SECONDS s` at INFO level."""
    if not log.isEnabledFor(logging.INFO):
        yield
        return
    started = time.perf_counter()
    try:
        yield
    finally:
        log.info("stage %s: %.3f s", name, time.perf_counter() - started)
