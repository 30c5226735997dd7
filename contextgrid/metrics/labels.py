"""``metric@k`` labels read back: the names evaluate() prints, accepted wherever a metric is chosen.

The registry's names stay bare (``"ndcg"``); a label pairs one with a cut-off (``"ndcg@10"``). A selection
mixes both: a bare name stands for every cut-off asked for, a label for itself.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from contextgrid.core.checks import check_k
from contextgrid.core.errors import ContextGridError
from contextgrid.metrics.base import METRICS

__all__ = ["TREC_EVAL_HINTS", "parse_label", "select_metrics"]

_LABEL = re.compile(r"^(?P<metric>[^@\s]+)@(?P<k>[^@\s]*)$")

TREC_EVAL_HINTS: dict[str, str] = {
    "P": "precision",
    "recall": "recall",
    "ndcg_cut": "ndcg",
    "map_cut": "map",
    "success": "hit_rate",
    "recip_rank": "mrr",
}
"""trec_eval's measure names (without their cut-off) and the contextgrid metric each one is."""

_TREC_NAME = re.compile(r"^(?P<measure>[A-Za-z_]+?)(?:[._](?P<k>\d+))?$")


def _unknown(name: str) -> ContextGridError:
    """The registry's refusal, with the contextgrid name when ``name`` is trec_eval's."""
    try:
        METRICS.get(name)
    except ContextGridError as error:
        found = _TREC_NAME.match(name)
        if found is None or found.group("measure") not in TREC_EVAL_HINTS:
            return error
        metric = TREC_EVAL_HINTS[found.group("measure")]
        label = metric if found.group("k") is None else f"{metric}@{found.group('k')}"
        return type(error)(f"{error}; trec_eval's {name} is {label!r} here (or use --trec-eval -m {name})")
    raise AssertionError(f"{name!r} is registered")  # pragma: no cover - callers ask only for unknown names


def parse_label(text: str) -> tuple[str, int]:
    """``"ndcg@10"`` as ``("ndcg", 10)``: a registered metric and a cut-off of 1 or more.

    Examples
    --------
    >>> parse_label("ndcg@10")
    ('ndcg', 10)
    >>> parse_label("ndcg@ten")
    Traceback (most recent call last):
    ...
    contextgrid.core.errors.ContextGridError: 'ndcg@ten' is not a metric@k label: the cut-off must be a whole number
    """
    found = _LABEL.match(text)
    if found is None:
        raise ContextGridError(f"{text!r} is not a metric@k label (such as ndcg@10)")
    metric, cutoff = found.group("metric"), found.group("k")
    if not cutoff.isdigit():
        raise ContextGridError(f"{text!r} is not a metric@k label: the cut-off must be a whole number")
    if metric not in METRICS:
        raise _unknown(metric)
    return metric, check_k(int(cutoff), function="parse_label")


def select_metrics(names: Sequence[str], ks: Sequence[int]) -> tuple[tuple[str, int], ...]:
    """The ``(metric, k)`` pairs that ``names`` choose: a bare name at every ``k`` of ``ks``, a label as itself.

    Pairs come in the order named, each once.

    Examples
    --------
    >>> select_metrics(["ndcg@10", "recall", "ndcg@10"], [1, 5])
    (('ndcg', 10), ('recall', 1), ('recall', 5))
    >>> select_metrics(["ndcg_cut_10"], [5])
    Traceback (most recent call last):
    ...
    contextgrid.core.errors.UnknownPluginError: no metric named 'ndcg_cut_10'. Available: hit_rate, map, mrr, ndcg,
    precision, recall; trec_eval's ndcg_cut_10 is 'ndcg@10' here (or use --trec-eval -m ndcg_cut_10)
    """
    pairs: list[tuple[str, int]] = []
    for name in names:
        if "@" in name:
            pairs.append(parse_label(name))
        elif name in METRICS:
            pairs.extend((name, check_k(k, function="select_metrics")) for k in ks)
        else:
            raise _unknown(name)
    return tuple(dict.fromkeys(pairs))
