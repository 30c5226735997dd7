"""Figures as files: a self-contained HTML fragment, or a PNG drawn by kaleido."""

from __future__ import annotations

from typing import Any

from contextgrid.core.errors import ContextGridError

__all__ = ["figure_html", "figure_png"]


def figure_html(figure: Any) -> str:
    """``figure`` as one self-contained HTML page (plotly.js inline, no network needed)."""
    text: str = figure.to_html(include_plotlyjs=True, full_html=True)
    return text


def figure_png(figure: Any, *, width: int = 1200, height: int | None = None, scale: float = 1.0) -> bytes:
    """``figure`` as PNG bytes, drawn by kaleido in a headless Chromium.

    ``height`` defaults to the figure's own (else 500 pixels).

    Raises
    ------
    ContextGridError
        When kaleido or its Chromium is missing, saying how to install them.
    """
    shown = height or figure.layout.height or 500
    try:
        data: bytes = figure.to_image(format="png", width=width, height=shown, scale=scale)
    except (ImportError, ValueError, RuntimeError, OSError) as error:
        raise ContextGridError(
            f"PNG export failed ({type(error).__name__}: {error}). It needs the kaleido package (pip install "
            "'kaleido>=1') and a Chromium (Debian: apt-get install chromium)"
        ) from error
    return data
