"""What every Vega-Lite specification of :mod:`contextgrid.render` shares: the schema, inline data, numbers
that survive JSON.

The dashboard draws these rather than plotly figures: a browser draws them
several times faster, and plotly.js alone is 4.7 MB to load. User text goes
only into data values and titles, which Vega draws as text, never as HTML.
"""

from __future__ import annotations

import math
from typing import Any

__all__ = ["SCHEMA", "Spec", "chart", "number"]

Spec = dict[str, Any]

SCHEMA = "https://vega.github.io/schema/vega-lite/v6.json"
"""The Vega-Lite version the specifications are written for (the one Streamlit draws with)."""


def number(value: float) -> float | None:
    """``value`` as a float, ``None`` for NaN: Vega-Lite reads null as missing, and NaN is not JSON.

    >>> number(0.25), number(float("nan"))
    (0.25, None)
    """
    as_float = float(value)
    return None if math.isnan(as_float) else as_float


def chart(title: str | Spec, data: list[dict[str, Any]], **spec: Any) -> Spec:
    """A specification with ``title``, ``data`` inline and the rest of ``spec``.

    >>> chart("demo", [{"x": 1}], mark="point")["data"]
    {'values': [{'x': 1}]}
    """
    return {"$schema": SCHEMA, "title": title, "data": {"values": data}, **spec}
