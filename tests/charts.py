"""What the AppTest tests share: the Vega-Lite charts a page drew, read back from Streamlit's messages."""

from __future__ import annotations

import json
from typing import Any

import pyarrow as pa
from streamlit.testing.v1 import AppTest


def chart_specs(app: AppTest) -> list[dict[str, Any]]:
    """The Vega-Lite specifications the page drew, in order, each with its data back in ``data.values``
    (Streamlit sends inline data apart from the spec, as Arrow)."""
    specs = []
    for chart in app.get("vega_lite_chart"):
        spec = json.loads(chart.proto.spec)
        if chart.proto.HasField("data"):
            spec["data"] = {"values": pa.ipc.open_stream(chart.proto.data.data).read_all().to_pylist()}
        specs.append(spec)
    return specs
