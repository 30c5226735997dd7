"""What the AppTest tests share: the plotly figures a page drew, read back from Streamlit's messages."""

from __future__ import annotations

import base64
import json
from typing import Any

import numpy as np
from streamlit.testing.v1 import AppTest


def _decoded(value: Any) -> Any:
    """``value`` with plotly's typed arrays (``{"dtype", "bdata", "shape"}``, how numpy arrays travel as JSON)
    turned back into lists."""
    if isinstance(value, dict):
        if set(value) >= {"dtype", "bdata"}:
            array = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
            if "shape" in value:
                array = array.reshape([int(size) for size in str(value["shape"]).split(",")])
            return array.tolist()
        return {key: _decoded(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_decoded(item) for item in value]
    return value


def figures(app: AppTest) -> list[dict[str, Any]]:
    """The plotly figures the page drew, in order, as plain JSON (``data`` and ``layout``)."""
    return [_decoded(json.loads(chart.proto.spec)) for chart in app.get("plotly_chart")]


def title(figure: dict[str, Any]) -> str:
    """A figure's title without its subtitle (the part after the first ``<br>``)."""
    text = figure["layout"].get("title", {}).get("text", "")
    return str(text).split("<br>")[0]
