"""Plan -> self-contained HTML (jinja2 templates shipped with the package, inline SVG charts)."""

from __future__ import annotations

from .render import render_plan_report

__all__ = ["render_plan_report"]
