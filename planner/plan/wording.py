"""The limits of a plan in words: each binding constraint with what one more step of it is worth, and
the smallest relaxation of a plan that has none, each in the user's own units and currency."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from planner.core.fmt import figure, in_unit, money, percent
from planner.optimize.lp import CONTRACT_FAMILIES, LinearProgram, Row
from planner.optimize.solver import SolveResult
from planner.plan.model import (
    Binding,
    Deployability,
    Relaxation,
)

RELAX_NOISE = 1e-4  # a relaxation under this fraction of its limit is the elastic solve's tolerance


SHARE_FAMILIES = ("vendor_share", "vendor_spend_share", "workload_vendor_share", "latency_share")


LABELS = {  # a constraint in plain words, from its family and the ids in its name
    "tokens_per_minute": "{0}: tokens per minute",
    "requests_per_minute": "{0}: requests per minute",
    "vendor_share": "{0}: cap on its share of traffic",
    "vendor_spend_share": "{0}: cap on its share of spend",
    "vendor_spend": "{0}: spend cap",
    "workload_vendor_share": "{1}: cap on its share of {0}",
    "latency_share": "{0}: share of tasks within budget",
    "mean_capability": "{0}: mean capability floor",
    "budget": "the budget",
}


MEANING = {  # what one step of a binding limit is worth, in the period's currency
    "tokens_per_minute": "another {step} tokens/minute on {0} would save {money} a {period}",
    "requests_per_minute": "another {step} requests/minute on {0} would save {money} a {period}",
    "vendor_share": "each point more on {0}'s traffic cap (now {limit}) would save {money} a {period}",
    "vendor_spend_share": "each point more on {0}'s spend-share cap (now {limit}) would save {money} a {period}",
    "vendor_spend": "another {step} on {0}'s spend cap (now {limit}) would save {money} a {period}",
    "workload_vendor_share": "each point more on {1}'s cap for {0} (now {limit}) would save {money} a {period}",
    "latency_share": "each point of {0}'s within-budget share (now {limit}) costs {money} a {period}",
    "mean_capability": "each point of {0}'s mean capability floor (now {limit}) costs {money} a {period}",
    "budget": "the budget ({limit}) is fully used",
}


def _natural(row: Row, act: float, lp: LinearProgram, share: np.ndarray, total: float) -> float:
    """A row's activity in the user's units (tokens/min, share of spend, currency...)."""
    if row.family == "vendor_spend_share":
        on_v = lp.spend[row.cols] * share[row.cols] * (row.coefs > 0)
        return float(on_v.sum() / total) if total > 0 else 0.0
    if row.family == "budget":
        return total
    return act / row.rhs_scale if row.rhs_scale else act


def _ids(row: Row) -> list[str]:
    """The ids in a row's name: "latency_share:w" -> [w]; "workload_vendor_share:w:c" -> [w, c]."""
    ident = row.name.split(":", 1)[1] if ":" in row.name else ""
    if row.family == "workload_vendor_share":
        return ident.rsplit(":", 1)
    return [ident]


def label(row: Row) -> str:
    """A constraint as people read it ("ticket-triage: share of tasks within budget")."""
    return LABELS[row.family].format(*_ids(row)) if row.family in LABELS else row.name


def bindings(
    lp: LinearProgram,
    share: np.ndarray,
    result: SolveResult,
    total: float,
    currency: str = "USD",
    period: str = "period",
    acts: np.ndarray | None = None,
) -> list[Binding]:
    out = []
    if acts is None:
        acts, _ = lp.activities(share)
    _, rhs = lp.senses
    families = lp.families
    for i in np.flatnonzero(np.abs(acts - rhs) <= 1e-7 * np.maximum(1.0, np.abs(rhs))).tolist():
        if families[i] in ("cover", *CONTRACT_FAMILIES):  # (commitments and switches: in their own sections)
            continue
        row = lp.rows[i]
        pi = result.pi.get(i)
        shadow = None
        if pi is not None:
            rhs_scale = total / lp.scale if row.family == "vendor_spend_share" else row.rhs_scale
            shadow = abs(pi) * lp.scale * rhs_scale
            shadow = float(f"{shadow:.9g}")
        out.append(
            Binding(
                constraint=row.name,
                shadow_price=shadow,
                limit=row.limit,
                unit=row.unit,
                meaning=_meaning(row, shadow, currency, period),
                label=label(row),
                worth=None if shadow is None else float(f"{shadow * _step(row):.6g}"),
            )
        )
    return out


def _meaning(row: Row, shadow: float | None, currency: str = "USD", period: str = "period") -> str:
    """What one step of the limit is worth: a point of a share, a tenth of a capacity's or spend
    cap's order of magnitude, a point of a mean floor."""
    if shadow is None or row.family not in MEANING:
        return f"{label(row)} is at its limit"
    limit = row.limit or 0.0
    step = _step(row)
    worth = shadow * step
    text = MEANING[row.family].format(
        *_ids(row),
        step=money(step, currency) if row.family == "vendor_spend" else f"{step:,.0f}",
        limit=in_unit(limit, row.unit, currency),
        money=money(worth, currency) if worth >= 0.005 else "under a cent",
        period=period,
    )
    return text


def _step(row: Row) -> float:
    """One step of a limit, what its worth is said of: a point of a share, a tenth of a capacity's or
    a spend cap's order of magnitude, else one unit (a point of a mean floor, a unit of money)."""
    if row.family in ("tokens_per_minute", "requests_per_minute", "vendor_spend"):
        return 10.0 ** max(0, int(np.floor(np.log10(max(row.limit or 0.0, 1)))) - 1)
    return 0.01 if row.family in SHARE_FAMILIES else 1.0


@dataclass(frozen=True)
class BudgetAlone:
    """What the budget must be when no other limit moves (the cheapest plan meeting every other rule);
    None: other limits must move too."""

    value: float | None


def relaxations(
    lp: LinearProgram,
    share: np.ndarray,
    slack: np.ndarray,
    total: float,
    currency: str = "USD",
    acts: np.ndarray | None = None,
    budget_alone: BudgetAlone | None = None,
):
    """The limits the smallest relaxation moves, in plain words. A move within the elastic solve's
    tolerance (RELAX_NOISE of the limit) is noise and not listed; one that takes a requirement away
    entirely (a share or floor to nothing, a share cap to 100%) is flagged. budget_alone (when
    computed): what a raised budget must be if it alone moves, said beside it."""
    out = []
    if acts is None:
        acts, _ = lp.activities(share)
    for i, row in enumerate(lp.rows):
        if row.relax_weight is None or slack[i] <= 1e-9:
            continue
        act = float(acts[i])
        needed = _natural(row, act, lp, share, total)
        limit = float(row.limit)
        by = needed - limit if row.sense == "<=" else limit - needed
        if by <= RELAX_NOISE * max(1.0, abs(limit)):
            continue
        removes = needed <= 1e-9 if row.sense == ">=" else (row.family in SHARE_FAMILIES and needed >= 1 - 1e-9)
        verb = "raised" if row.sense == "<=" else "lowered"
        a, b = _apart(row, limit, needed, currency)
        way = "up" if row.sense == "<=" else "down"
        if row.family in SHARE_FAMILIES:  # a share moves by points, not by a percentage of itself
            rel = f" ({figure(100 * by, 3)} points {way})" if not removes else ""
        else:
            rel = f" ({percent(by / limit)} {way})" if limit and not removes else ""
        text = f"{label(row)} must be {verb} from {a} to {b}{rel} for a plan to exist"
        if removes:
            text += ": that removes the requirement entirely"
        alone = None
        if row.name == "budget" and budget_alone is not None:
            alone = budget_alone.value
            text += (
                f"; with every other rule kept, the budget must be at least {money(alone, currency)}"
                if alone is not None
                else "; other limits must move too (no plan meets every other rule at any budget)"
            )
        out.append(
            Relaxation(
                constraint=row.name,
                limit=limit,
                needed=needed,
                by=by,
                unit=row.unit,
                meaning=text,
                label=label(row),
                removes=removes,
                alone=alone,
            )
        )
    return out


def _apart(row: Row, limit: float, needed: float, currency: str) -> tuple[str, str]:
    """The limit and the needed value written so that they read differently: more digits when the
    usual ones would show the same figure twice."""
    a, b = in_unit(limit, row.unit, currency), in_unit(needed, row.unit, currency)
    if a != b:
        return a, b
    for digits in range(2, 7):
        if row.family in SHARE_FAMILIES:
            a, b = f"{limit:.{digits}%}", f"{needed:.{digits}%}"
        else:
            a, b = f"{limit:,.{digits}f}", f"{needed:,.{digits}f}"
        if a != b:
            break
    return a, b


def deployability_figure(plan, gateway: str, excluded: int, unrestricted: float | None):
    """The plan's `deployability` record and its sentence: the premium of planning on the gateway's options
    only (plan.total_cost - unrestricted), or, with no deployable plan, whether deployability is why."""
    cur = plan.currency
    per = f"a {plan.period}"
    if plan.status == "infeasible":
        if unrestricted is None:
            text = (
                f"Deployable on {gateway}: no plan meets every rule, and none would on every option either "
                "(the gateway is not the only reason)"
            )
        else:
            text = (
                f"Deployable on {gateway}: no plan meets every rule on the options {gateway} can address; on every "
                f"option the cheapest plan costs {money(unrestricted, cur)} {per}, so deployability is why"
            )
        return Deployability(gateway=gateway, options_excluded=excluded, unrestricted_cost=unrestricted, text=text)
    if unrestricted is None:  # cannot happen: the deployable plan is one of the unrestricted ones
        return Deployability(gateway=gateway, options_excluded=excluded, text=f"Deployable on {gateway}")
    premium = plan.total_cost - unrestricted
    premium = 0.0 if abs(premium) < 0.005 else premium  # a cent: the solvers' tolerance
    share = premium / unrestricted if unrestricted > 0 else 0.0
    if premium == 0:
        text = f"Deployable on {gateway}: at no cost over the unrestricted optimum ({money(unrestricted, cur)} {per})"
    else:
        text = (
            f"Deployable on {gateway}: {money(premium, cur)} {per} more than the unrestricted optimum "
            f"({money(unrestricted, cur)}; +{share:.1%})"
        )
    return Deployability(
        gateway=gateway,
        options_excluded=excluded,
        unrestricted_cost=unrestricted,
        premium=premium,
        premium_share=share,
        text=text,
    )
