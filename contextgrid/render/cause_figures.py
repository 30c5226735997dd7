"""Why questions fail, drawn: per configuration, its questions by cause, as one stacked bar each.

The figure is plotly's, built with :mod:`contextgrid.render.style`'s template and its own colours, so it
looks the same wherever it is drawn: importing streamlit changes plotly's default template, and this figure
never reads it. Ids are HTML-escaped in labels and
hover text (plotly renders a subset of HTML there); the raw names travel in
``customdata``, which a click hands back.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from contextgrid.analysis.causes import CAUSES
from contextgrid.core.checks import check_k
from contextgrid.core.errors import ContextGridError
from contextgrid.render.style import finish, plot_text

if TYPE_CHECKING:
    import pandas as pd
    import plotly.graph_objects as go

__all__ = ["BAR_ORDER", "CAUSE_COLOURS", "cause_bars", "selected_bar"]

CAUSE_COLOURS: dict[str, str] = {
    "hit": "#009E73",
    "partial": "#F0E442",
    "split": "#E69F00",
    "ranked_low": "#56B4E9",
    "not_retrieved": "#D55E00",
    "unresolved": "#CC79A7",
    "no_gold": "#999999",
}
"""One colour per cause of :data:`~contextgrid.analysis.causes.CAUSES`, from the Okabe–Ito palette,
which stays distinct for the common colour-vision deficiencies; every view of causes uses these."""

BAR_ORDER = ("hit", "partial", "split", "ranked_low", "not_retrieved", "unresolved", "no_gold")
"""The causes from left to right in each bar: successes from zero, so their lengths compare at a glance, then
the failures in rule order, then the questions that are no retrieval failure (bad or no gold)."""

_ROW = 26
_CHROME = 150


def cause_bars(counts: pd.DataFrame, k: int) -> go.Figure:
    """Per configuration, its questions by cause at ``k``: horizontal stacked bars, one row per configuration
    (the first at the top), one trace per cause of :data:`BAR_ORDER` in :data:`CAUSE_COLOURS`.

    ``counts`` is :func:`~contextgrid.analysis.causes.cause_counts`' table (configurations × causes). The
    height grows with the configurations, up to a bound; configuration names are never cut
    (``automargin``). Each bar's ``customdata`` is ``[configuration, cause]``, what :func:`selected_bar`
    reads back from a click.

    Examples
    --------
    >>> import pandas as pd
    >>> from contextgrid.render.cause_figures import cause_bars
    >>> counts = pd.DataFrame({"hit": [3, 1], "split": [0, 2]}, index=["bm25-200", "dense-500"])
    >>> figure = cause_bars(counts, 5)
    >>> [trace.name for trace in figure.data]
    ['hit', 'partial', 'split', 'ranked_low', 'not_retrieved', 'unresolved', 'no_gold']
    >>> figure.data[2].x
    (0, 2)
    """
    import plotly.graph_objects as go

    cutoff = check_k(k, function="cause_bars")
    unknown = [str(column) for column in counts.columns if column not in CAUSES]
    if unknown:
        raise ContextGridError(f"cause_bars: unknown causes {unknown}. Known: {', '.join(CAUSES)}")
    configs = [str(config) for config in counts.index]
    labels = [plot_text(config) for config in configs]
    figure = go.Figure()
    for cause in BAR_ORDER:
        values = [int(value) for value in counts[cause]] if cause in counts.columns else [0] * len(configs)
        figure.add_trace(
            go.Bar(
                name=cause,
                orientation="h",
                x=values,
                y=labels,
                marker={"color": CAUSE_COLOURS[cause], "line": {"width": 0}},
                customdata=[[config, cause] for config in configs],
                hovertemplate=f"%{{y}}<br>{cause}: %{{x}} questions<extra></extra>",
            )
        )
    figure.update_layout(
        barmode="stack",
        title={"text": f"Why questions fail at k={cutoff}"},
        legend={"orientation": "h", "yanchor": "bottom", "y": 1.0, "xanchor": "left", "x": 0, "traceorder": "normal"},
        xaxis={"title": {"text": "questions"}, "rangemode": "tozero"},
        yaxis={"autorange": "reversed", "type": "category", "tickfont": {"size": 12}},
        clickmode="event+select",
        dragmode=False,
    )
    # Up to a screen: fifty configurations get thinner bars, not a taller page.
    return finish(figure, height=_CHROME + _ROW * len(configs), margin={"t": 90, "b": 40})


def selected_bar(selection: Mapping[str, Any], configs: Sequence[str]) -> tuple[str, str] | None:
    """The (configuration, cause) of the first bar of a :func:`cause_bars` figure in a selection event
    (streamlit's ``{"points": [...]}``), or ``None`` when nothing is selected.

    A point is read by its trace (``curve_number``, the cause's place in :data:`BAR_ORDER`) and its place in
    the trace (``point_index``, the configuration's place in ``configs``), which every plotly selection
    carries.

    Examples
    --------
    >>> from contextgrid.render.cause_figures import selected_bar
    >>> selected_bar({"points": [{"curve_number": 2, "point_index": 0}]}, ["bm25-200", "dense-500"])
    ('bm25-200', 'split')
    >>> selected_bar({"points": []}, ["bm25-200"]) is None
    True
    """
    for point in selection.get("points", ()):
        curve, index = point.get("curve_number"), point.get("point_index", point.get("point_number"))
        if (
            isinstance(curve, int)
            and isinstance(index, int)
            and 0 <= curve < len(BAR_ORDER)
            and 0 <= index < len(configs)
        ):
            return str(configs[index]), BAR_ORDER[curve]
    return None
