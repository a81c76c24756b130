"""Checks of a command's options that span several of them (the CLI's own; typer checks each alone)."""

from __future__ import annotations

from pathlib import Path

from planner.core.errors import InputError


def check_switching(previous: Path | None, switch_cost: float | None, time_limit: float | None) -> None:
    if switch_cost is not None:
        if previous is None:
            raise InputError.single("--switch-cost", "", "needs --from PLAN: the plan whose routes a switch leaves")
        if not (0 <= switch_cost <= 1e15) or switch_cost != switch_cost:
            raise InputError.single("--switch-cost", "", f"{switch_cost:g}: expected a cost from 0 to 1e15")
    if time_limit is not None and not (0 < time_limit <= 1e6):
        raise InputError.single("--time-limit", "", f"{time_limit:g}: expected seconds above 0, up to 1e6")
