"""Figures of contextgrid results: one plotly figure per view, the same in the dashboard, the downloads and
the report. Importing this package does not import plotly; each function does when it runs."""

from __future__ import annotations

from contextgrid.render.intervals import interval_plot

__all__ = ["interval_plot"]
