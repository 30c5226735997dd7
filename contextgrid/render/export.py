"""Figures as files: a self-contained HTML page, a PNG drawn in the reader's own browser (plotly's camera
button, :func:`image_config`), or a PNG drawn on this machine by kaleido (:func:`figure_png`), which needs a
Chrome or Chromium here."""

from __future__ import annotations

from typing import Any

from contextgrid.core.errors import ContextGridError

__all__ = ["IMAGE_WIDTH", "figure_html", "figure_png", "image_config"]

_GET_A_BROWSER = (
    "PNG export needs a Chrome or Chromium on this machine: install one (Debian: apt-get install chromium; or "
    "`plotly_get_chrome`, which downloads one for your user, no root needed), or set BROWSER_PATH to one. "
    "The dashboard needs none: its camera button draws the PNG in your browser"
)


IMAGE_WIDTH = 1200
"""Pixels across of the PNG a figure's camera button saves (drawn at twice that for a sharp print): a slide's
width, whatever the column the figure sits in on the page; its height is the figure's own."""


def image_config(name: str) -> dict[str, Any]:
    """The plotly config that makes a figure's camera button save ``name``.png, laid out again at
    :data:`IMAGE_WIDTH` pixels and drawn at twice that by the browser showing it: the dashboard's PNG download,
    which needs nothing installed beside the browser. Saved at the width of a narrow column, a plot stood beside a
    legend as tall as itself.

    Examples
    --------
    >>> image_config("recall-against-k")["toImageButtonOptions"]
    {'format': 'png', 'filename': 'recall-against-k', 'width': 1200, 'scale': 2}
    """
    return {
        "displaylogo": False,
        "toImageButtonOptions": {"format": "png", "filename": name, "width": IMAGE_WIDTH, "scale": 2},
    }


def figure_html(figure: Any, *, name: str = "figure") -> str:
    """``figure`` as one self-contained HTML page (plotly.js inline, no network needed), its camera button
    saving ``name``.png."""
    text: str = figure.to_html(include_plotlyjs=True, full_html=True, config=image_config(name))
    return text


def _browser() -> str | None:
    """The Chrome or Chromium kaleido would drive, or ``None``; never one to download."""
    try:
        from choreographer.browsers.chromium import Chromium
    except ImportError:
        return None
    found: str | None = Chromium.find_browser(skip_local=False)
    return found


def figure_png(figure: Any, *, width: int = 1200, height: int | None = None, scale: float = 1.0) -> bytes:
    """``figure`` as PNG bytes, drawn by kaleido in a headless Chrome or Chromium of this machine.

    ``height`` defaults to the figure's own (else 500 pixels).

    Raises
    ------
    ContextGridError
        When kaleido or a browser is missing, saying how to get one.
    """
    if _browser() is None:
        raise ContextGridError(_GET_A_BROWSER)
    shown = height or figure.layout.height or 500
    try:
        data: bytes = figure.to_image(format="png", width=width, height=shown, scale=scale)
    except (ImportError, ValueError, RuntimeError, OSError) as error:
        raise ContextGridError(f"PNG export failed ({type(error).__name__}: {error}). {_GET_A_BROWSER}") from error
    return data
