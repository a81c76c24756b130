"""Break-even prices by re-solving (SPEC v1.9): for each option in use, the smallest rise of its prices
at which the optimal routing moves traffic off it; for the nearest options not in use, the cut at which
they take traffic; for each company the plan spends with, the uniform rise of everything it bills or
serves at which traffic first moves off it.

A price change scales an option's spend wherever it appears: the objective and every row whose
coefficients are money (budget, spend caps, spend shares, commitments). Every option sold at the same
prices moves together (the modes of an offering at its list price, or at one price tier). Each figure
is found by bisection on warm re-solves of the unpruned LP, held in the solver's backend
(backends.resolver), on a grid of half a point from 0 to ±100%: the routing does not move at the
reported figure less half a point and moves at it, both solved. None: no change within ±100% moves it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from planner.core.arrays import dot
from planner.core.fmt import percent
from planner.optimize import backends
from planner.optimize.backends import RESOLVE, can
from planner.optimize.lp import PRICED_FAMILIES, LinearProgram, check_rows, repriced
from planner.optimize.pairs import Pairs
from planner.optimize.resolve import Point
from planner.optimize.solver import SolveResult, settled, solve_lp
from planner.plan.model import CompanyBreakEven
from planner.review.contracts import REVIEW_WORK
from planner.review.insight import reduced_costs

STEP = 0.005  # the bisection's grain: half a point of price
STEPS = 200  # searched up to 200 steps: +100% for a rise, -100% (free) for a cut
MOVES = 1e-4  # a share moves when it changes by more than this (a hundredth of a point)
UNUSED_PER_WORKLOAD = 5  # break-even rows for eligible but unused options, per workload
TOP_ROUTES = 20  # above this many routes in use, only the largest by spend are re-solved ...
SIFTED_ABOVE = 5000  # ... and an LP of more columns than this is re-solved by sifting, for fewer rows:
LARGE_ROUTES, LARGE_UNUSED = 5, 1  # the 5 largest routes, one unused option each, the 5 largest companies
TIE = 2e-7  # costs within this fraction are a tie: a re-solve may pay up to TIE_BREAK (1e-7) of it for latency
SOLVES_PER_ROW = 6  # re-solves one break-even takes, about (the guess, the step before it, a forced check, ...)
COMPANIES_UP_TO = 100_000  # LP columns above which no company row is re-solved (a rise moves too many prices)


def first_move(
    run: Callable[[int], Point],
    moved: Callable[[Point], bool],
    guess: int | None = None,
    forced: Callable[[Point, int], bool] | None = None,
) -> tuple[int | None, Point | None]:
    """The smallest step k in 1..STEPS at which `moved` holds of the point `run(k)` solves and `forced(point,
    k)` confirms it (not a tie), by bisection: at k - 1 a solve did not move (at 0, the plan's own solve,
    whose exact tie-break the re-solves' tolerances need not repeat) and at k one did. (None, None) when
    nothing moves at STEPS. A point with no plan counts as not moved. `guess` (the step the solve's reduced
    costs point to) is tried first: when it moves and the step before it does not, both solved, it is the
    answer in two solves. The step found is then confirmed; a tie there counts as not moved, and the search
    goes on above it by bisection on confirmed moves: a rise forces a move from the first step it does to
    the last (the cost of keeping the option's share grows at least as fast as the optimum's), so when
    +100% forces none, none is reported. (Where a price moves no cost, a reservation's zero token price,
    every step is a tie: two confirmations settle it, not a new search per step.)"""

    def shown(step: int) -> Point | None:
        p = run(step)
        return p if p.ok and moved(p) else None

    def confirmed(step: int) -> Point | None:
        p = shown(step)
        return p if p is not None and forced(p, step) else None

    k, point = _first_shown(shown, guess)
    if k is None or forced is None or forced(point, k):
        return k, point
    found = confirmed(STEPS)
    return (None, None) if found is None else _bisect(confirmed, k, STEPS, found)


def _first_shown(shown: Callable[[int], Point | None], guess: int | None) -> tuple[int | None, Point | None]:
    """first_move's search with `moved` alone: the guess and the step before it, else a bisection."""
    lo, hi, found = 0, STEPS, None
    if guess is not None and 0 < guess < STEPS:
        found = shown(guess)
        if found is None:
            lo = guess
        else:
            hi = guess
            before = None if guess == 1 else shown(guess - 1)
            if before is None:
                return hi, found
            hi, found = guess - 1, before
    if found is None:
        found = shown(STEPS)
        if found is None:
            return None, None
    return _bisect(shown, lo, hi, found)


def _bisect(test: Callable[[int], Point | None], lo: int, hi: int, found: Point) -> tuple[int, Point]:
    """The smallest step in lo + 1..hi whose point passes `test` (the point, else None), given that lo's does
    not and hi's, `found`, does."""
    while hi - lo > 1:
        mid = (lo + hi) // 2
        p = test(mid)
        if p is None:
            lo = mid
        else:
            hi, found = mid, p
    return hi, found


@dataclass
class Repricing:
    """The unpruned LP held for re-solves at scaled prices, with the plan's routing on its columns."""

    pairs: Pairs
    full: LinearProgram
    resolver: backends.Resolver | Rebuilt
    base: np.ndarray  # the plan's share per column of `full`
    reduced: tuple[np.ndarray, np.ndarray] | None = None  # (reduced cost, its slope in price) per column
    rows_left: int | None = None  # break-even rows the review's work still allows (integer plans), None: any
    _routing: tuple | None = None  # the plan's row activities and its cost (for _kept)

    def run(self, cols: np.ndarray, change: float) -> Point:
        """The optimum with the prices of `cols` times (1 + change); its cost at those prices. When the plan's
        own routing still meets every row at those prices and costs no more than the optimum found, it is the
        point: at a tie nothing has to move, and the planner would not move it (a re-solve may land on any
        of the tied routings, and a break-even must not report a move no price forces)."""
        factor = np.ones(self.full.n)
        factor[cols] = 1.0 + change
        self.resolver.set_prices(factor)
        point = self.resolver.run()
        if not point.ok:
            return point
        point.cost = point.cost + dot(self.full.spend[cols] * change, point.share[cols])
        kept = self._kept(cols, change)
        if kept is not None and kept <= point.cost + TIE * max(1.0, abs(point.cost)):
            return Point(True, self.base, kept)
        return point

    def forced(self, point: Point, cols: np.ndarray, change: float, others: np.ndarray) -> bool:
        """Whether the move `point` shows is forced: with the columns of `others` (bool per column) held to at
        most the plan's shares, which keeps at least the plan's share on the rest of their workloads (each
        workload's shares sum to one), the optimum at the same prices costs more. A tie (it costs the same)
        is an optimum that moves nothing; it does not count."""
        self.resolver.set_upper(np.where(others, self.base, 1.0))
        try:
            held = self.run(cols, change)
        finally:
            self.resolver.set_upper(np.ones(self.full.n))
        return not held.ok or held.cost > point.cost + TIE * max(1.0, abs(point.cost))

    def _kept(self, cols: np.ndarray, change: float) -> float | None:
        """The cost of the plan's routing with the prices of `cols` times (1 + change), None when it breaks a
        row there (a budget or a spend cap: the money rows move with the prices) or the LP has columns
        beside the shares (commitments), whose values the routing does not give."""
        full = self.full
        if len(full.extras):
            return None
        if self._routing is None:
            self._routing = (full.activities(self.base), dot(full.spend, self.base))
        (acts, gross), cost = self._routing
        row_of, c, a = full.priced_entries
        on = np.isin(c, cols[self.base[cols] > 0])
        delta = np.bincount(row_of[on], a[on] * change * self.base[c[on]], minlength=len(acts))
        if check_rows(full, self.base, activities=(acts + delta, gross + np.abs(delta))):
            return None
        return cost + dot(full.spend[cols] * change, self.base[cols])

    @property
    def capped(self) -> bool:
        """Whether the review takes the large-portfolio caps: an LP re-solved by sifting, or a solver whose
        every point is a solve from scratch (Rebuilt)."""
        return self.full.n > SIFTED_ABOVE or isinstance(self.resolver, Rebuilt)

    def guess(self, j: int, *, used: bool, raised: np.ndarray | None = None) -> int | None:
        """The step at which column j's traffic should move by the solve's reduced costs (exact where no
        shared limit binds): for an option in use, the rise that makes its nearest unused alternative in
        the workload (one whose price is not `raised` with it) as cheap; for one not in use, the cut that
        brings its reduced cost to zero. None without duals."""
        if self.reduced is None:
            return None
        d, slope = self.reduced
        if slope[j] <= 0:
            return None
        if used:
            w = self.full.var_w[j]
            alt = (self.full.var_w == w) & (self.base <= 0)
            alt = d[alt if raised is None else alt & ~raised]
            if not len(alt):
                return STEPS
            x = max(float(alt.min()), 0.0) / slope[j]
        else:
            x = max(float(d[j]), 0.0) / slope[j]
        return int(min(STEPS, max(1, np.ceil(x / STEP - 1e-9))))

    def priced_together(self, j: int) -> np.ndarray:
        """The columns whose prices move with column j's: the same offering at the same price tier and
        reservation (its modes)."""
        opts, o = self.pairs.options, self.full.var_o
        k = int(o[j])
        cols = np.flatnonzero(opts.offering_index[o] == opts.offering_index[k])
        sold_as = (opts.sale[k], opts.reserved[k])
        return np.array([c for c in cols.tolist() if (opts.sale[o[c]], opts.reserved[o[c]]) == sold_as], dtype=int)


class Rebuilt:
    """For a backend that cannot re-solve warm (CBC): each point solved afresh on the LP repriced
    (lp.repriced), through the registry as any solve. The same figures, more slowly."""

    def __init__(self, lp: LinearProgram, solver: str):
        self.lp, self.solver = lp, solver
        self.factor, self.upper = np.ones(lp.n), np.ones(lp.n)
        self.priced = np.isin(np.array(lp.families, dtype=object), PRICED_FAMILIES)

    def set_prices(self, factor: np.ndarray) -> None:
        self.factor = np.asarray(factor, dtype=float).copy()

    def set_upper(self, upper: np.ndarray) -> None:
        self.upper = np.asarray(upper, dtype=float).copy()

    def run(self) -> Point:
        lp = repriced(self.lp, self.factor, self.priced)
        result = solve_lp(lp, self.solver, upper=None if (self.upper >= 1).all() else self.upper)
        if not result.ok:
            return Point(False, np.zeros(self.lp.n), float("nan"))
        share, extra = settled(lp, result)
        return Point(True, share, self.lp.money(share, extra, total_only=True))


def repricing(
    pairs: Pairs, full: LinearProgram, lp: LinearProgram, share: np.ndarray, result: SolveResult, solver: str
) -> Repricing:
    """The full LP held for re-solves at scaled prices: warm in the solver's backend where it can (by
    sifting when large), else solved afresh each time (Rebuilt); with the reduced costs of its columns
    from the solve's duals, when it has them (an LP)."""
    where = np.full(pairs.shape, -1, dtype=np.int64)
    where[full.var_w, full.var_o] = np.arange(full.n)
    base = np.zeros(full.n)
    base[where[lp.var_w, lp.var_o]] = share
    reduced = None
    if result.pi and not lp.integer:
        reduced = reduced_costs(full, lp, {lp.rows[i].name: y for i, y in result.pi.items()})
    if not can(solver, RESOLVE):
        return Repricing(pairs, full, Rebuilt(full, solver), base, reduced)
    sifted = full.n > SIFTED_ABOVE and not full.integer
    resolver = backends.resolver(solver, full, why="break-even prices", sifted=sifted, start=base > 0)
    return Repricing(pairs, full, resolver, base, reduced)


def plan_break_even(
    pairs: Pairs,
    lp: LinearProgram,
    full: Callable[[], LinearProgram],
    share: np.ndarray,
    result: SolveResult,
    solver: str,
    workloads: np.ndarray,
) -> tuple[dict[int, list[dict]], Repricing | None, list[str]]:
    """Break-even prices of the workloads in `workloads` (SPEC v1.9), the re-solver that found them (the
    company rows use it too; None when there will be none) and what the plan must say about them (assumptions)."""
    columns = int(pairs.eligible.sum())  # the unpruned LP's share columns, known before it is built
    if lp.integer and REVIEW_WORK < columns * SOLVES_PER_ROW:  # not one row: neither LP nor re-solver built
        return {int(w): [] for w in workloads}, None, [_integer_note(columns, 0, None)]
    rep = repricing(pairs, full(), lp, share, result, solver)
    if rep.full.integer:  # each re-solve an integer program: as many rows as the review's work allows
        rep.rows_left = REVIEW_WORK // (rep.full.n * SOLVES_PER_ROW)
    used, unused, said = _rows(rep, workloads)
    if rep.rows_left is not None:
        rep.rows_left -= len(used) + len(unused)
        if rep.rows_left < (LARGE_ROUTES if rep.capped else TOP_ROUTES):
            said.append(
                f"companies' break-even prices of this integer plan computed for at most {rep.rows_left} companies "
                f"(the largest spends), within the {REVIEW_WORK:,} column-solves the review allows"
            )
    if rep.full.n > COMPANIES_UP_TO:
        said.append(
            f"companies' break-even prices not computed: the LP has {rep.full.n:,} columns (above "
            f"{COMPANIES_UP_TO:,}); `planner whatif --set 'offerings[ID].price.input=*1.1' ...` prices a rise"
        )
    out: dict[int, list[dict]] = {int(w): [] for w in workloads}
    for is_used, cols in ((True, used), (False, unused)):
        for j in cols.tolist():
            out.setdefault(int(rep.full.var_w[j]), []).append(_row(rep, j, used=is_used))
    rep.resolver.set_prices(np.ones(rep.full.n))
    # no company row will use it: the unpruned LP and its solver model go now, not after the plan is built
    return out, None if rep.full.n > COMPANIES_UP_TO else rep, said


def _integer_note(n: int, rows: int, routes: int | None) -> str:
    """What the plan says of break-even rows an integer plan's re-solves could not afford (routes None: none)."""
    work = f"each price about {SOLVES_PER_ROW} re-solves of its {n:,} columns, within the {REVIEW_WORK:,} column-solves"
    if routes is None:
        return f"break-even prices of this integer plan not computed, companies' included: {work} the review allows"
    return (
        f"break-even prices of this integer plan computed for {min(rows, routes)} of {routes:,} routes (the largest "
        f"spends) and no unused option: {work} the review allows"
    )


def _rows(rep: Repricing, workloads: np.ndarray):
    """The columns re-solved: the routes in use (largest share first per workload; above TOP_ROUTES, the
    largest spends only), then per workload up to UNUSED_PER_WORKLOAD unused options, nearest first
    (by reduced cost where the solve has duals, else by cost)."""
    full, base = rep.full, rep.base
    fw = full.var_w
    wanted = np.zeros(rep.pairs.shape[0], dtype=bool)
    wanted[np.asarray(workloads, dtype=int)] = True
    pos = np.arange(full.n)
    used = np.flatnonzero((base > 0) & wanted[fw])
    said = []
    top_n, per_w = (LARGE_ROUTES, LARGE_UNUSED) if rep.capped else (TOP_ROUTES, UNUSED_PER_WORKLOAD)
    if isinstance(rep.resolver, Rebuilt):
        said.append(
            f"with a solver that cannot re-solve warm, break-even prices were re-solved for at most {top_n} "
            f"routes (the largest spends) and {per_w} nearest unused option per workload, and {LARGE_ROUTES} companies"
        )
    routes = len(used)
    if routes > top_n:
        top = _largest(rep, used, top_n)
        wanted[:] = False
        wanted[fw[top]] = True
        used = np.sort(top)
    used = used[np.lexsort((pos[used], -base[used], fw[used]))]
    near = _nearness(rep)
    unused = np.flatnonzero((base <= 0) & wanted[fw])
    unused = unused[_top_per_group(fw[unused], near[unused], per_w)]
    if rep.rows_left is not None and len(used) + len(unused) > rep.rows_left:  # an integer plan's work
        used, unused = used[np.isin(used, _largest(rep, used, rep.rows_left))], unused[:0]
        said.append(_integer_note(full.n, rep.rows_left, routes))
    elif routes > top_n:
        said.append(
            f"break-even prices were re-solved for the {top_n} routes with the largest spend (of "
            f"{routes:,}) and their workloads' {per_w} nearest unused option{'s' if per_w > 1 else ''}; the "
            f"other workloads' are not computed{'' if top_n == TOP_ROUTES else ', nor companies past the 5 largest'}"
        )
    return used, unused, said


def _largest(rep: Repricing, cols: np.ndarray, k: int) -> np.ndarray:
    """The k of the columns `cols` with the largest spend in the plan (ties: the first column)."""
    return cols[np.lexsort((cols, -(rep.full.spend[cols] * rep.base[cols])))[:k]]


def _nearness(rep: Repricing) -> np.ndarray:
    """Per column, how near it is to taking traffic (higher: nearer): minus the price cut its reduced cost
    asks for when the solve has duals, else minus its spend."""
    if rep.reduced is None:
        return -rep.full.spend
    d, slope = rep.reduced
    with np.errstate(divide="ignore", invalid="ignore"):
        cut = np.where(slope > 0, -np.maximum(d, 0.0) / slope, -9.0)
    return np.where(np.isfinite(cut), cut, -9.0)


def _row(rep: Repricing, j: int, *, used: bool) -> dict:
    """One break-even row: used, the smallest rise that moves traffic off column j; unused, the smallest
    cut at which it takes traffic."""
    cols = rep.priced_together(j)
    sign = 1.0 if used else -1.0
    before = rep.base[j]
    # an unused option takes traffic when its offering at that price (any of its modes, cut together)
    # carries more of the workload than before: at a deep cut a sibling mode may take it instead
    mine = cols[rep.full.var_w[cols] == rep.full.var_w[j]]
    held = rep.base[mine].sum()
    # held for the forced check: used, the rest of its workload (so j keeps its share); unused, its own modes
    others = rep.full.var_w == rep.full.var_w[j]
    others[j] = False
    if not used:
        others = np.zeros(rep.full.n, dtype=bool)
        others[mine] = True
    shows = (lambda p: p.share[j] < before - MOVES) if used else (lambda p: p.share[mine].sum() > held + MOVES)
    k, point = first_move(
        lambda k: rep.run(cols, sign * k * STEP),
        shows,
        rep.guess(j, used=used),
        lambda p, k: rep.forced(p, cols, sign * k * STEP, others),
    )
    opts, w, o = rep.pairs.options, int(rep.full.var_w[j]), int(rep.full.var_o[j])
    cpt = float(rep.pairs.cost_per_task[w, o])
    change = None if k is None else round(sign * k * STEP, 6) + 0.0
    row = dict(
        offering=opts.offering_id[o],
        mode=opts.mode[o],
        used=used,
        cost_per_task=cpt,
        break_even_cost_per_task=None if change is None else cpt * (1 + change),
        price_change=change,
        **opts.sold(o),
    )
    if point is not None:
        row["plan_cost"] = float(point.cost)
    return row


def _top_per_group(group: np.ndarray, key: np.ndarray, k: int) -> np.ndarray:
    """Positions of the k largest keys of each group (ties: earliest position first), in the order
    (group, key descending, position); `group` must be sorted. k passes of per-group maxima, which
    beats sorting every pair when k is small."""
    if len(group) == 0:
        return np.zeros(0, dtype=int)
    starts = np.flatnonzero(np.r_[True, group[1:] != group[:-1]])
    lengths = np.diff(np.r_[starts, len(group)])
    key = key.astype(float)  # a copy: taken positions are set to -inf
    pos = np.arange(len(group))
    none = len(group)
    picks, ranks = [], []
    for r in range(k):
        best = np.repeat(np.maximum.reduceat(key, starts), lengths)
        first = np.minimum.reduceat(np.where((key == best) & (key > -np.inf), pos, none), starts)
        first = first[first < none]
        if len(first) == 0:
            break
        picks.append(first)
        ranks.append(np.full(len(first), r))
        key[first] = -np.inf
    picks_all, ranks_all = np.concatenate(picks), np.concatenate(ranks)
    return picks_all[np.lexsort((ranks_all, group[picks_all]))]


# ----------------------------------------------------------------------------- companies


def company_break_even(rep: Repricing | None, companies: list[tuple[str, float]]) -> list[CompanyBreakEven]:
    """Per company the plan spends with ((company, spend), by spend), the smallest uniform rise of the
    prices of everything it bills or serves at which some workload moves traffic off it, and where
    that workload's traffic goes. Empty without a re-solver (rep None: none was built, or above COMPANIES_UP_TO
    columns plan_break_even let it go)."""
    if rep is None:
        return []
    full, pairs = rep.full, rep.pairs
    opts, W = pairs.options, pairs.shape[0]
    out = []
    count = LARGE_ROUTES if rep.capped else TOP_ROUTES
    for company, spend in companies[: count if rep.rows_left is None else min(count, rep.rows_left)]:
        on = opts.involving(company)[full.var_o]
        cols = np.flatnonzero(on)
        before = np.bincount(full.var_w, rep.base * on, minlength=W)

        def drop(p: Point, on=on, before=before) -> np.ndarray:
            return before - np.bincount(full.var_w, p.share * on, minlength=W)

        routes = np.flatnonzero(on & (rep.base > 0))  # the first of its routes to move, by reduced costs
        guesses = [g for g in (rep.guess(int(j), used=True, raised=on) for j in routes) if g is not None]

        k, point = first_move(
            lambda k, cols=cols: rep.run(cols, k * STEP),
            lambda p, drop=drop: drop(p).max() > MOVES,
            min(guesses, default=None),
            lambda p, k, cols=cols, on=on: rep.forced(p, cols, k * STEP, ~on),  # the rest held: a tie moves none
        )
        out.append(_company_row(rep, company, spend, k, point, None if point is None else drop(point)))
    rep.resolver.set_prices(np.ones(full.n))
    return out


def _company_row(rep: Repricing, company: str, spend: float, k, point, drop) -> CompanyBreakEven:
    if k is None:
        return CompanyBreakEven(
            company=company,
            spend=spend,
            price_change=None,
            text=f"{company}: no rise of all its prices up to +100% moves any traffic",
        )
    full, pairs = rep.full, rep.pairs
    change = round(k * STEP, 6) + 0.0
    w = int(np.argmax(drop))  # the workload that moves most (the first on a tie)
    gain = point.share - rep.base
    to = np.flatnonzero((full.var_w == w) & (gain > MOVES))
    to = to[np.lexsort((to, -gain[to]))]
    names = [pairs.options.label(int(full.var_o[j])) for j in to[:3].tolist()]
    wid = pairs.workloads.ids[w]
    where = ", ".join(names) + (f" and {len(to) - 3} more" if len(to) > 3 else "")
    moves = f"at +{percent(change)} we move {percent(float(drop[w]))} of {wid} to {where}"
    said = (
        f"{company} can raise all its prices by {percent(change - STEP)} before we move any traffic; {moves}"
        if change > STEP
        else f"{company}: any rise of all its prices moves traffic (an alternative costs the same today); {moves}"
    )
    return CompanyBreakEven(
        company=company,
        spend=spend,
        price_change=change,
        plan_cost=float(point.cost),
        workload=wid,
        moved_share=float(drop[w]),
        moves_to=names,
        text=said,
    )
