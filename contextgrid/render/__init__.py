"""Figures of contextgrid results: plotly figures, and Vega-Lite specifications (plain dicts) for
the dashboard's busiest views. Importing this package does not import plotly; each function does
when it runs."""

from __future__ import annotations

from contextgrid.render.intervals import interval_chart, interval_plot

__all__ = ["interval_chart", "interval_plot"]
