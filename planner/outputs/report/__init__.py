"""Plans -> self-contained HTML (jinja2 templates shipped with the package, inline SVG charts)."""

from __future__ import annotations

from planner.outputs.report.render import (
    render_compare_report,
    render_frontier_report,
    render_plan_report,
    render_replay_report,
    render_whatif_report,
)

__all__ = [
    "render_plan_report",
    "render_whatif_report",
    "render_compare_report",
    "render_frontier_report",
    "render_replay_report",
]
