"""Registry: plugins found by plain name; clashing, malformed or unknown names refused."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import pytest

import contextgrid as cg
from contextgrid.core.errors import ContextGridError, UnknownPluginError
from contextgrid.core.registry import Registry

BUILTINS = ("hit_rate", "map", "mrr", "ndcg", "precision", "recall")


def make_plugin(name: str = "mine", version: Any = "1") -> type:
    """A new class object on every call, always with the same module and qualname:
    what re-running a notebook cell that defines a plugin produces."""

    class Plugin:
        def evaluate(self, judgements: Mapping[str, int], ranked: Sequence[str], k: int) -> float:
            return 0.5

    Plugin.name = name  # type: ignore[attr-defined]
    Plugin.version = version  # type: ignore[attr-defined]
    return Plugin


class Unrelated:
    name: ClassVar[str] = "mine"
    version: ClassVar[str] = "2"


@pytest.fixture
def registry() -> Registry[type]:
    return Registry("metric")


def test_register_is_a_class_decorator_returning_the_class(registry: Registry[type]) -> None:
    plugin = make_plugin()
    assert registry.register("mine")(plugin) is plugin
    assert registry.get("mine") is plugin
    assert "mine" in registry
    assert len(registry) == 1


def test_decorator_syntax_leaves_the_class_bound_to_its_name(registry: Registry[type]) -> None:
    @registry.register("decorated")
    class Decorated:
        name: ClassVar[str] = "decorated"
        version: ClassVar[str] = "1"

    assert isinstance(Decorated, type)
    assert registry.get("decorated") is Decorated


def test_name_must_match_the_name_class_variable(registry: Registry[type]) -> None:
    with pytest.raises(ContextGridError, match=r"registered as 'theirs' but its name class variable is 'mine'"):
        registry.register("theirs")(make_plugin("mine"))
    assert "theirs" not in registry


def test_a_class_without_a_name_is_refused(registry: Registry[type]) -> None:
    class Nameless:
        version: ClassVar[str] = "1"

    with pytest.raises(ContextGridError, match=r"its name class variable is None"):
        registry.register("nameless")(Nameless)


@pytest.mark.parametrize("version", [None, 1, 1.0])
def test_a_missing_or_non_str_version_is_refused(registry: Registry[type], version: object) -> None:
    with pytest.raises(ContextGridError, match=r"needs a version class variable holding a str"):
        registry.register("mine")(make_plugin(version=version))
    assert "mine" not in registry


@pytest.mark.parametrize("name", ["recall@5", "@", "", " recall", "recall ", 5, None])
def test_malformed_names_are_refused_before_any_class_is_seen(registry: Registry[type], name: Any) -> None:
    expected = r"without '@' or surrounding spaces, got " + re.escape(repr(name)) + "$"
    with pytest.raises(ContextGridError, match=expected):
        registry.register(name)


def test_an_unrelated_class_under_a_taken_name_is_refused(registry: Registry[type]) -> None:
    first = registry.register("mine")(make_plugin())
    with pytest.raises(cg.NameTakenError, match=r"a metric named 'mine' is already registered .*replace=True"):
        registry.register("mine")(Unrelated)
    assert registry.get("mine") is first


def test_replace_true_replaces(registry: Registry[type]) -> None:
    registry.register("mine")(make_plugin())
    assert registry.register("mine", replace=True)(Unrelated) is Unrelated
    assert registry.get("mine") is Unrelated


def test_the_same_class_defined_again_replaces_the_old_one(registry: Registry[type]) -> None:
    old, new = make_plugin(), make_plugin()
    assert old is not new
    assert (old.__module__, old.__qualname__) == (new.__module__, new.__qualname__)
    registry.register("mine")(old)
    registry.register("mine")(new)
    assert registry.get("mine") is new


def test_registering_the_very_same_class_twice_is_harmless(registry: Registry[type]) -> None:
    plugin = make_plugin()
    registry.register("mine")(plugin)
    registry.register("mine")(plugin)
    assert registry.names() == ("mine",)


def test_unregister(registry: Registry[type]) -> None:
    registry.register("mine")(make_plugin())
    registry.unregister("mine")
    assert "mine" not in registry
    assert registry.names() == ()
    with pytest.raises(UnknownPluginError, match=r"^no metric named 'mine'\. Available: none$"):
        registry.unregister("mine")


def test_get_of_an_unknown_name_lists_what_is_available(registry: Registry[type]) -> None:
    registry.register("zeta")(make_plugin("zeta"))
    registry.register("alpha")(make_plugin("alpha"))
    with pytest.raises(UnknownPluginError) as caught:
        registry.get("x")
    assert isinstance(caught.value, ValueError)
    assert isinstance(caught.value, ContextGridError)
    # str() exactly as written: no extra quotes around the whole message, as a KeyError would add.
    assert str(caught.value) == "no metric named 'x'. Available: alpha, zeta"


def test_get_of_an_unhashable_name_is_an_unknown_name_not_a_type_error(registry: Registry[type]) -> None:
    with pytest.raises(UnknownPluginError, match=r"no metric named \['x'\]"):
        registry.get(["x"])  # type: ignore[arg-type]


def test_names_iteration_and_repr_are_sorted(registry: Registry[type]) -> None:
    for name in ("b", "c", "a"):
        registry.register(name)(make_plugin(name))
    assert registry.names() == ("a", "b", "c")
    assert list(registry) == ["a", "b", "c"]
    assert repr(registry) == "Registry('metric', names=('a', 'b', 'c'))"


# --- the METRICS registry through the public functions -------------------------------------------


def test_available_metrics_are_the_six_builtins_sorted() -> None:
    assert cg.available_metrics() == BUILTINS
    assert cg.METRICS.names() == BUILTINS


def test_available_metrics_stays_sorted_with_custom_metrics() -> None:
    cg.METRICS.register("zz_last")(make_plugin("zz_last"))
    cg.METRICS.register("aa_first")(make_plugin("aa_first"))
    assert cg.available_metrics() == ("aa_first", *BUILTINS, "zz_last")


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("recall", "RecallMetric()"),
        ("precision", "PrecisionMetric()"),
        ("hit_rate", "HitRateMetric()"),
        ("mrr", "MRRMetric()"),
        ("map", "MAPMetric()"),
        ("ndcg", "NDCGMetric()"),
    ],
)
def test_get_metric_returns_a_fresh_instance(name: str, text: str) -> None:
    first, second = cg.get_metric(name), cg.get_metric(name)
    assert repr(first) == text
    assert first is not second
    assert type(first) is cg.METRICS.get(name)
    assert isinstance(first, cg.Metric)
    assert first.name == name


def test_get_metric_refuses_a_cut_off_in_the_name() -> None:
    with pytest.raises(UnknownPluginError) as caught:
        cg.get_metric("recall@5")
    assert str(caught.value) == "no metric named 'recall@5'. Available: hit_rate, map, mrr, ndcg, precision, recall"


def test_a_registered_metric_is_usable_by_name() -> None:
    @cg.METRICS.register("half")
    @dataclass(frozen=True, slots=True)
    class HalfMetric:
        name: ClassVar[str] = "half"
        version: ClassVar[str] = "1"

        def evaluate(self, judgements: Mapping[str, int], ranked: Sequence[str], k: int) -> float:
            return 0.5

    assert type(cg.get_metric("half")) is HalfMetric
    assert cg.evaluate({"q1": {"c1": 2}}, {"q1": ["c1"]}, ks=[2], metrics=["half"]) == {"half@2": 0.5}
