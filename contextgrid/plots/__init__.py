"""Plotly figures of contextgrid results. Importing this package does not import plotly;
each function does when it runs."""

from __future__ import annotations

from .intervals import interval_plot

__all__ = ["interval_plot"]
