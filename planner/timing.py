"""Per-stage timings through logging: `planner -v ...` prints each stage's time on stderr."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from contextlib import contextmanager

log = logging.getLogger("planner")


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
