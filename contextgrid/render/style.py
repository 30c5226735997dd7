"""What every figure of :mod:`contextgrid.render` shares: its own template, the colour-blind-safe palette,
one distinct mark per configuration chosen from the configurations' parameters, and bounded heights.

Each figure is given this module's template by assignment, never by merging into plotly's default:
``import streamlit`` sets plotly's default template to Streamlit's, whose colours are placeholders
(``#000001``, ...), and a figure that read the default would differ by who imported what. Assigned, the
dashboard, the downloads, the report and the command line draw the same figure.
"""

from __future__ import annotations

import html
import math
import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "DASHES",
    "MARKS",
    "OKABE_ITO",
    "ROW",
    "SCREEN",
    "SYMBOLS",
    "Mark",
    "escaped",
    "finish",
    "legend_key",
    "marks",
    "plot_text",
    "rows_height",
]

OKABE_ITO = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#000000", "#F0E442")
"""Okabe and Ito's eight colours, which stay distinct for the common colour-vision deficiencies (yellow last:
it is the faintest on white)."""

SYMBOLS = (
    "circle",
    "square",
    "diamond",
    "triangle-up",
    "x",
    "cross",
    "triangle-down",
    "star",
    "pentagon",
    "hourglass",
)
"""Marker symbols that stay apart at 10 pixels, filled or not."""

DASHES = ("solid", "dash", "dot", "dashdot", "longdash", "longdashdot")
"""Line dashes, for a third parameter of the lines of :func:`contextgrid.render.grid_charts.curves_plot`."""

MARKS = len(OKABE_ITO) * len(SYMBOLS)
"""Configurations one figure can tell apart by colour and symbol; a figure with more draws the first ``MARKS``
and says so in its title."""

ROW = 18
"""Pixels per row of a heatmap or bar chart of configurations: room for a 12-pixel label."""

SCREEN = 900
"""The tallest figure: one screen. Views of many questions aggregate or keep the worst rather than grow."""

# Parameters most worth the strongest channel first: colour reads fastest, then symbol, then dash.
_PREFERRED = ("retriever", "chunker", "size", "overlap")


@dataclass(frozen=True, slots=True)
class Mark:
    """How one configuration is drawn: colour, marker symbol and line dash."""

    colour: str
    symbol: str
    dash: str


def plot_text(value: object) -> str:
    """``value`` as text that plotly draws as written: ``&``, ``<`` and ``>`` escaped, quote marks left alone.

    Plotly renders a subset of HTML in labels and hover text but reads only a few entities: a ``&quot;`` would
    show as itself.

    Examples
    --------
    >>> plot_text('the "best" <b>')
    'the "best" &lt;b&gt;'
    """
    return html.escape(str(value), quote=False)


def escaped(values: Sequence[object]) -> list[str]:
    """Each value as text, escaped for plotly (:func:`plot_text`)."""
    return [plot_text(value) for value in values]


def _template() -> Any:
    import plotly.graph_objects as go

    axis = {
        "automargin": True,
        "gridcolor": "#e6e6e6",
        "linecolor": "#b0b0b0",
        "zerolinecolor": "#b0b0b0",
        "ticks": "outside",
        "tickcolor": "#b0b0b0",
        "title": {"standoff": 8},
    }
    return go.layout.Template(
        layout={
            "font": {"family": "Arial, Helvetica, sans-serif", "size": 13, "color": "#262730"},
            "paper_bgcolor": "#ffffff",
            "plot_bgcolor": "#ffffff",
            "colorway": list(OKABE_ITO),
            "colorscale": {"sequential": "Viridis"},
            "title": {"x": 0, "xanchor": "left", "pad": {"l": 8}, "font": {"size": 16}},
            "xaxis": axis,
            "yaxis": axis,
            "hoverlabel": {"align": "left"},
            "legend": {"font": {"size": 12}},
        }
    )


def finish(figure: Any, *, height: int, margin: Mapping[str, int] | None = None) -> Any:
    """``figure`` with this module's template (assigned, so no default leaks in), ``height`` capped at
    :data:`SCREEN` and small margins that the axes' automargins widen to fit every label."""
    figure.layout.template = _template()
    figure.update_layout(
        height=min(int(height), SCREEN),
        margin={"l": 10, "r": 10, "t": 70, "b": 10, "autoexpand": True, **(margin or {})},
        autosize=True,
    )
    return figure


def heading(title: str, subtitle: str = "", *, chars: int = 60) -> tuple[dict[str, Any], int]:
    """A figure's title (already escaped) with its ``subtitle`` wrapped at ``chars`` characters (about 400
    pixels of its font), pinned to the top of the figure; and the top margin it needs, in pixels.

    Left to plotly, a title sits halfway down the top margin, over whatever the plot puts there (column labels
    on top, labels of folded stretches); a long subtitle ran off the figure's right edge.

    Examples
    --------
    >>> title, top = heading("Gold", "one two three four", chars=10)
    >>> title["text"], top
    ('Gold<br><sup>one two</sup><br><sup>three four</sup>', 94)
    """
    lines = textwrap.wrap(subtitle, chars, break_long_words=False, break_on_hyphens=False) if subtitle else []
    text = "<br>".join([title, *(f"<sup>{line}</sup>" for line in lines)])
    layout = {"text": text, "yref": "container", "y": 1, "yanchor": "top", "pad": {"t": 22, "l": 8}}
    return layout, 62 + 16 * len(lines)


def log_ticks(low: float, high: float) -> dict[str, list[Any]]:
    """Ticks of a log axis from ``low`` to ``high``: 1, 2 and 5 of each power of ten, written in full
    ("2,000"), thinned to 1 of each power when there are more than twelve. Plotly's own repeat a bare "2" and
    "5" in every decade, or crowd every whole step ("800", "900", "1,000") together.

    Examples
    --------
    >>> log_ticks(150, 1200)
    {'tickvals': [200, 500, 1000], 'ticktext': ['200', '500', '1,000']}
    """
    low, high = max(float(low), 1e-9), max(float(high), float(low), 1e-9)
    first, last = math.floor(math.log10(low)), math.ceil(math.log10(high))
    steps = (1, 2, 5) if last - first <= 4 else (1,)
    values = [step * 10**power for power in range(first, last + 1) for step in steps]
    shown = [value for value in values if low <= value <= high] or [values[0]]
    return {"tickvals": shown, "ticktext": [f"{value:,}" if value >= 1 else f"{value:g}" for value in shown]}


def rows_height(rows: int, chrome: int = 170) -> int:
    """The height of a figure of ``rows`` labelled rows and ``chrome`` pixels of title, axis and legend."""
    return min(chrome + ROW * max(rows, 1), SCREEN)


def _varying(names: Sequence[str], params: Mapping[str, Mapping[str, object]]) -> list[str]:
    """The parameters whose values differ across ``names``, strongest first."""
    keys = dict.fromkeys(key for name in names for key in params.get(name, {}))
    found = [key for key in keys if len({str(params.get(name, {}).get(key, "–")) for name in names}) > 1]
    rank = {key: place for place, key in enumerate(_PREFERRED)}
    return sorted(found, key=lambda key: rank.get(key, len(rank)))


def _value(params: Mapping[str, Mapping[str, object]], name: str, keys: Sequence[str]) -> str:
    """What configuration ``name`` has for ``keys``, as one label ("fixed, 512" for two keys)."""
    return ", ".join(str(params.get(name, {}).get(key, "–")) for key in keys)


def _encoding(names: Sequence[str], params: Mapping[str, Mapping[str, object]]) -> dict[str, list[str]]:
    """The parameters colour and symbol encode, such that no two configurations get the same pair; empty
    when the parameters cannot do it within the palette and the symbols."""
    varying = _varying(names, params)
    for colour in varying:
        if len({_value(params, name, [colour]) for name in names}) > len(OKABE_ITO):
            continue
        rest = [key for key in varying if key != colour]
        # All the other parameters on the symbol first (the pair then tells every configuration apart),
        # else the one that does.
        for symbol in ([rest] if rest else []) + [[key] for key in rest]:
            pairs = {(_value(params, name, [colour]), _value(params, name, symbol)) for name in names}
            values = {_value(params, name, symbol) for name in names}
            if len(pairs) == len(names) and len(values) <= len(SYMBOLS):
                return {"colour": [colour], "symbol": symbol}
        if len({_value(params, name, [colour]) for name in names}) == len(names):
            return {"colour": [colour]}
    return {}


def marks(
    names: Sequence[str], params: Mapping[str, Mapping[str, object]] | None = None
) -> tuple[dict[str, Mark], dict[str, list[str]]]:
    """One :class:`Mark` per configuration, no two alike in colour and symbol, and the parameters each
    channel encodes (``{"colour": ["retriever"], "symbol": ["chunker", "size"]}``; empty when none does).

    Colour encodes one parameter of at most eight values (the retriever when it varies), the symbol the
    others (at most ten combinations), the dash repeats the symbol on lines; so a reader matches
    configurations by what they are. When the parameters cannot tell every configuration apart that way (or
    there are none), each configuration gets the next colour and symbol in turn and the legend names it.
    ``names`` beyond :data:`MARKS` get no mark.

    Examples
    --------
    >>> from contextgrid.render.style import marks
    >>> params = {"bm25-200": {"retriever": "bm25", "size": 200}, "dense-200": {"retriever": "dense", "size": 200},
    ...           "bm25-500": {"retriever": "bm25", "size": 500}}
    >>> drawn, channels = marks(list(params), params)
    >>> channels
    {'colour': ['retriever'], 'symbol': ['size']}
    >>> [(drawn[name].colour, drawn[name].symbol) for name in params]
    [('#0072B2', 'circle'), ('#E69F00', 'circle'), ('#0072B2', 'square')]
    """
    shown = list(names)[:MARKS]
    given = params or {}
    channels = _encoding(shown, given)
    if channels:
        colours = list(dict.fromkeys(_value(given, name, channels["colour"]) for name in shown))
        symbols = list(dict.fromkeys(_value(given, name, channels.get("symbol", [])) for name in shown))
        drawn = {}
        for name in shown:
            symbol = symbols.index(_value(given, name, channels.get("symbol", [])))
            drawn[name] = Mark(
                OKABE_ITO[colours.index(_value(given, name, channels["colour"]))],
                SYMBOLS[symbol],
                DASHES[symbol % len(DASHES)],
            )
        return drawn, channels
    # The parameters do not tell them apart: one colour and symbol each, in turn.
    return {
        name: Mark(
            OKABE_ITO[place % len(OKABE_ITO)],
            SYMBOLS[place // len(OKABE_ITO)],
            DASHES[(place // len(OKABE_ITO)) % len(DASHES)],
        )
        for place, name in enumerate(shown)
    }, {}


def legend_key(
    channels: Mapping[str, Sequence[str]],
    drawn: Mapping[str, Mark],
    params: Mapping[str, Mapping[str, object]],
    *,
    lines: bool = False,
) -> list[Any]:
    """Legend-only traces saying what each colour and symbol stands for ("retriever: bm25"): with many
    configurations a legend of their parameters stays short, and each point's hover names its configuration."""
    import plotly.graph_objects as go

    key: dict[tuple[str, str], Mark] = {}
    for name, mark in drawn.items():
        for channel, parameters in channels.items():
            neutral = Mark(
                mark.colour if channel == "colour" else "#6b6b6b",
                mark.symbol if channel == "symbol" else "circle",
                mark.dash if channel == "symbol" and lines else "solid",
            )
            key.setdefault((channel, _value(params, name, parameters)), neutral)
    return [
        go.Scatter(
            x=[None],
            y=[None],
            name=plot_text(text),
            legendgroup=channel,
            legendgrouptitle={"text": plot_text(", ".join(channels[channel]))},
            mode="lines+markers" if lines else "markers",
            marker={"color": mark.colour, "symbol": mark.symbol, "size": 9},
            line={"color": mark.colour, "dash": mark.dash},
            hoverinfo="skip",
        )
        for (channel, text), mark in key.items()
    ]
