"""Render plans as self-contained HTML: autoescaped jinja2, no scripts from the network."""

from __future__ import annotations

from functools import lru_cache

from ..plan import Plan


@lru_cache(maxsize=1)
def _env():
    import jinja2

    from .. import output

    env = jinja2.Environment(loader=jinja2.PackageLoader("planner.report", "templates"),
                             autoescape=True, undefined=jinja2.StrictUndefined,
                             trim_blocks=True, lstrip_blocks=True)
    env.filters.update(money=output.money, seconds=output.seconds, percent=output.percent)
    return env


def render_plan_report(plan: Plan) -> str:
    return _env().get_template("plan.html.j2").render(plan=plan)
