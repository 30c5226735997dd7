"""Compare: configurations side by side — per-question scatter, wins/ties/losses, the biggest
changes each way, and whether the difference is real."""

from __future__ import annotations

import streamlit as st

from contextgrid.analysis.budget_verdict import parting_sentence
from contextgrid.analysis.causes import transition_sentence
from contextgrid.metrics import BUILTIN_METRICS, DEFAULT_K, DEFAULT_KS
from contextgrid.render import interval_plot
from contextgrid.render.export import image_config
from contextgrid.render.markup import escape_markdown as md
from contextgrid.render.verdicts import verdict_table
from contextgrid.significance import CORRECTIONS, PAIRED_TESTS
from contextgrid.significance.wording import describe
from pages import _data, _loading, _state

st.title("Compare")
source = _data.chosen_source(__file__)
# One version of the source's content for the whole run: each fingerprint walks every file of a folder.
at = _data.guard(lambda: _loading.snapshot(source), source=source)

workspace = _data.usable_workspace(at)
names = list(workspace.names)
if len(names) < 2:
    st.info("Comparing needs at least two configurations.")
    st.stop()

notice = st.empty()
top = st.columns(2)
with top[0]:
    metric = _state.choose("Metric", list(BUILTIN_METRICS), "metric", default=len(BUILTIN_METRICS) - 1)
with top[1]:
    k = _state.choose("k", list(DEFAULT_KS), "k", default=DEFAULT_KS.index(DEFAULT_K))
label = f"{metric}@{k}"

pair = st.columns(2)
with pair[0]:
    a = _state.choose("A", names, "a", default=1)
with pair[1]:
    b = _state.choose("B (against)", [name for name in names if name != a], "b")
_state.report_unknown(
    {"a": names, "b": names, "metric": BUILTIN_METRICS, "k": {str(value) for value in DEFAULT_KS}, "configs": names},
    names={"a": "configuration A", "b": "configuration B", "configs": "configuration"},
    container=notice,
)
# Each view runs only when its tab is open (its name is in the URL as ``compare_view``): the test resamples
# every question thousands of times, which a look at the scatter should not wait for.
pair_view, winner_view = st.tabs(["A against B", "Is the winner real?"], key="compare_view", bind="query-params")
if pair_view.open:
    with pair_view:
        changes = _data.guard(lambda: _data.changes(at, metric, k, a, b), source=source)
        outcomes = changes["outcome"].value_counts()
        counts = st.columns(3)
        counts[0].metric(f"A wins on {label}", int(outcomes.get("win", 0)))
        counts[1].metric("Ties", int(outcomes.get("tie", 0)))
        counts[2].metric("A loses", int(outcomes.get("loss", 0)))
        st.plotly_chart(
            _data.pair_figure(at, metric, k, a, b), theme=None, config=image_config(f"{label}-{a}-against-{b}")
        )

        up, down = st.columns(2)
        # Headers in words: each configuration's score, then A's minus B's; the outcome is the table's title.
        change_columns = {
            "delta": st.column_config.NumberColumn("A minus B", format="%+.4f"),
            "outcome": None,
            "_index": st.column_config.TextColumn("question"),
        }
        with up:
            st.subheader(f"Where {md(a)} gained most")
            st.dataframe(
                changes[changes["outcome"] == "win"].head(10),
                width="stretch",
                column_config=change_columns,
                placeholder="",
            )
        with down:
            st.subheader(f"Where {md(a)} lost most")
            st.dataframe(
                changes[changes["outcome"] == "loss"].head(10),
                width="stretch",
                column_config=change_columns,
                placeholder="",
            )
        st.subheader("How the causes move")
        missing = _data.guard(lambda: _data.missing_evidence(at), source=source)
        if missing:
            st.caption(
                "Naming causes needs questions, documents and chunks; the workspace has no "
                f"{md(', no '.join(missing))}."
            )
        else:
            moves = _data.guard(lambda: _data.transitions(at, k, b, a), source=source)
            st.markdown(f"From {md(b)} to {md(a)} at k={k}: {md(transition_sentence(moves, limit=4))}")
            for start, end, count, ids in moves[["from", "to", "count", "questions"]].itertuples(index=False):
                # Each list drawn only once opened: a dozen folded tables cost the browser as much as shown ones.
                move = st.expander(md(f"{count} from {start} to {end}"), key=f"move_{start}_{end}", on_change="rerun")
                if move.open:
                    with move:
                        st.dataframe(_data.questions_by_id(at, ids), width="stretch", placeholder="")
            st.subheader("At an equal context budget")
            parting = _data.attempt(lambda: _data.budget_parting(at, a, b), source=source)
            if parting is not None:
                parted, ahead = parting
                budgets = _data.budget_curves(at).budgets
                st.markdown(md(parting_sentence(a, b, parted, ahead, budgets)))
                st.plotly_chart(
                    _data.budget_pair_figure(at, a, b),
                    theme=None,
                    config=image_config(f"budget-{a}-against-{b}"),
                )
        moved = list(changes[changes["outcome"] != "tie"].index[:20])
        if moved:
            opened = st.selectbox("Open a changed question in the drill-down", moved)
            if st.button("Open in Questions"):
                _state.remember("question", opened)
                _state.remember("config", a)
                st.switch_page("pages/questions.py")
if winner_view.open:
    with winner_view:
        # Every configuration at once would run a test per configuration: start with the pair above.
        chosen = _state.choose_many("Configurations", names, "configs", default=[b, a])
        if len(chosen) < 2:
            st.info("Choose at least two configurations.")
            st.stop()
        settings = st.columns(3)
        baseline = settings[0].selectbox("Baseline", chosen, index=chosen.index(b) if b in chosen else 0)
        test = settings[1].selectbox(
            "Paired test", sorted(PAIRED_TESTS), index=sorted(PAIRED_TESTS).index("permutation")
        )
        correction = settings[2].selectbox(
            "Correction for many comparisons", sorted(CORRECTIONS), index=sorted(CORRECTIONS).index("holm")
        )
        with st.spinner("Resampling the questions…"):
            result = _data.guard(
                lambda: _data.comparison(at, metric, k, tuple(chosen), baseline, test, correction), source=source
            )
        st.dataframe(verdict_table(result), width="stretch", hide_index=True, placeholder="")
        first = result.comparisons[0]
        st.caption(
            f"Each configuration against {md(baseline)} on the {first.n_questions:,} questions both score. "
            f"**Difference**: its mean {md(label)} minus the baseline's. **Interval**: the {md(first.interval_name)} "
            "interval of that difference, the paired test's own: the shifts of every question's difference the test "
            "does not reject, at the **Level** its correction for many comparisons sets for that row, so it leaves "
            f"out 0 exactly when the verdict is significant. **p**: the {md(correction)}-corrected p-value. "
            "**Effect size**: the difference measured in standard deviations of the per-question differences "
            "(Cohen's d): about 0.2 is small, 0.5 medium, 0.8 large, whatever the number of questions. "
            "**Won / tied / lost**: the questions on which the configuration scored higher than the baseline, the "
            "same, and lower."
            + (
                " The signed-rank test's interval is of the typical difference (the Hodges-Lehmann estimate, the "
                "median of the pairwise means of the differences), which each verdict below names, not of the mean."
                if test == "wilcoxon"
                else ""
            )
        )
        st.plotly_chart(interval_plot(result), theme=None, config=image_config(f"{label}-against-{baseline}"))
        st.subheader("What each verdict rests on")
        for row in result.comparisons:
            st.markdown(md(describe(row)))
