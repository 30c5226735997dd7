"""Causes from prepared records: the questions, each chunking and each analyzer's lexical gaps prepared once
give the rows the plain inputs give, records of other questions are refused, and the word-set lookup that
replaced the per-row matching agrees with set intersection."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import contextgrid as cg
from contextgrid.analysis.causes import (
    cause_chunking,
    cause_qrels,
    cause_questions,
    lexical_gaps,
    question_causes,
    question_causes_only,
    question_hits,
)
from contextgrid.analysis.word_sets import Vocabulary, set_keys, shared_counts, shared_with_keys
from contextgrid.core.errors import InvalidParameterError
from contextgrid.core.text import WORD, tokenize
from contextgrid.evidence.run_waste import chunking_gold
from contextgrid.index.bm25 import Analyzer as BM25Analyzer
from contextgrid.workspace.causes import failure_causes, failure_causes_only, failure_hits, retriever_analyzer
from contextgrid.workspace.manifest import load_workspace
from contextgrid.workspace.sample import SAMPLE


def test_failure_causes_gives_each_configuration_the_rows_of_its_plain_inputs() -> None:
    workspace = load_workspace(SAMPLE)
    table = failure_causes(workspace, k=3, split_threshold=0.7)
    items, documents = workspace.resolved[0], workspace.documents
    for name in workspace.names:
        plain = question_causes(
            list(items),
            list(workspace.chunks(name)),
            workspace.run(name),
            workspace.qrels(name),
            dict(documents),
            k=3,
            split_threshold=0.7,
            analyzer=retriever_analyzer(workspace.config(name)),
        )
        rows = table[table["config"] == name].drop(columns=["config", "hit_elsewhere"]).reset_index(drop=True)
        pd.testing.assert_frame_equal(rows, plain, check_exact=True)


TEXT = "Refunds take 30 days. Shipping is free over $50. Returns need a receipt."
DOCS = {"d": TEXT}
CHUNKS = [cg.Chunk(f"d#{i}", cg.Span("d", a, b), TEXT[a:b]) for i, (a, b) in enumerate([(0, 22), (22, 49), (49, 72)])]
ITEMS = [
    cg.EvalItem("q1", "How long do refunds take?", (cg.GoldSpan(cg.Span("d", 0, 21)),)),
    cg.EvalItem("q2", "What does a return need?", (cg.GoldSpan(cg.Span("d", 49, 72)),)),
]


def test_one_preparation_serves_runs_of_the_same_chunking_alike() -> None:
    questions = cause_questions(ITEMS, DOCS)
    chunking = cause_chunking(questions, CHUNKS)
    gaps = lexical_gaps(questions, str.split)
    qrels = {"q1": {"d#0": 1}, "q2": {"d#2": 1}}
    for run in ({"q1": ["d#1", "d#0"], "q2": ["d#2"]}, {"q1": ["d#2", "d#1"], "q2": ["d#0", "d#1", "d#2"]}):
        shared = question_causes(questions, chunking, run, qrels, DOCS, k=1, analyzer=gaps)
        alone = question_causes(ITEMS, CHUNKS, run, qrels, DOCS, k=1, analyzer=str.split)
        pd.testing.assert_frame_equal(shared, alone, check_exact=True)


def test_records_of_other_questions_are_refused() -> None:
    questions, others = cause_questions(ITEMS, DOCS), cause_questions(ITEMS[:1], DOCS)
    with pytest.raises(InvalidParameterError, match="'chunks' parameter of question_causes"):
        question_causes(questions, cause_chunking(others, CHUNKS), {}, {}, DOCS)
    with pytest.raises(InvalidParameterError, match="'chunks' parameter of question_causes"):
        question_causes(ITEMS, cause_chunking(questions, CHUNKS), {}, {}, DOCS)
    with pytest.raises(InvalidParameterError, match="'analyzer' parameter of question_causes"):
        question_causes(questions, CHUNKS, {}, {}, DOCS, analyzer=lexical_gaps(others, str.split))
    with pytest.raises(InvalidParameterError, match="'chunks' parameter of cause_chunking"):
        cause_chunking(questions, chunking_gold(others.gold, CHUNKS))
    with pytest.raises(InvalidParameterError, match="'gold' parameter of cause_questions"):
        cause_questions(ITEMS[:1], DOCS, gold=questions.gold)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.sets(st.sampled_from("abcdefgh")), min_size=1, max_size=5),
    st.lists(st.sets(st.sampled_from("cdefghij")), min_size=1, max_size=5),
    st.data(),
)
def test_shared_words_match_set_intersection(left: list[set[str]], right: list[set[str]], data: st.DataObject) -> None:
    pairs = data.draw(st.lists(st.tuples(st.integers(0, len(left) - 1), st.integers(0, len(right) - 1)), max_size=12))
    vocabulary = Vocabulary()
    sets, targets = vocabulary.code(left), vocabulary.code(right)
    rows = np.array([a for a, _ in pairs], dtype=np.int64)
    cols = np.array([b for _, b in pairs], dtype=np.int64)
    expected = [len(left[a] & right[b]) for a, b in pairs]
    keys = set_keys(targets, vocabulary.size)
    assert shared_with_keys(sets, rows, keys, cols, vocabulary.size).tolist() == expected
    assert shared_counts(sets, rows, targets, cols, vocabulary.size).tolist() == expected


def test_another_k_reuses_what_the_workspace_prepared_and_gives_the_plain_rows() -> None:
    workspace = load_workspace(SAMPLE)
    failure_causes(workspace, k=3)
    prepared = workspace.shared(("cause questions",), lambda: None)
    assert prepared is not None
    paths = {workspace.config(name).chunks for name in workspace.names}
    chunkings = {path: workspace.shared(("cause chunking", path), lambda: None) for path in paths}
    assert None not in chunkings.values()
    again = failure_causes(workspace, k=10)
    assert workspace.shared(("cause questions",), lambda: None) is prepared
    assert all(workspace.shared(("cause chunking", path), lambda: None) is chunkings[path] for path in paths)
    fresh = failure_causes(load_workspace(SAMPLE), k=10)
    pd.testing.assert_frame_equal(again, fresh, check_exact=True)


def test_the_causes_without_signals_are_the_causes_columns_of_every_configuration() -> None:
    workspace = load_workspace(SAMPLE)
    for k, split, partial in ((1, 0.5, 0.5), (3, 0.7, 0.5), (5, 0.5, 0.9)):
        table = failure_causes(workspace, k=k, split_threshold=split, partial_threshold=partial)
        only = failure_causes_only(workspace, k=k, split_threshold=split, partial_threshold=partial)
        pd.testing.assert_frame_equal(only, table[["config", "question", "cause"]], check_exact=True)
    names = list(workspace.names[::-1][:2])
    pd.testing.assert_frame_equal(
        failure_causes_only(workspace, k=3, configs=names),
        failure_causes(workspace, k=3, configs=names)[["config", "question", "cause"]],
        check_exact=True,
    )


def test_the_hits_are_the_hit_causes_of_every_configuration() -> None:
    workspace = load_workspace(SAMPLE)
    for k, partial in ((1, 0.5), (3, 0.9), (10, 0.2)):
        table = failure_causes(workspace, k=k, partial_threshold=partial)
        hits = failure_hits(workspace, k=k, partial_threshold=partial)
        assert hits.columns.tolist() == list(workspace.names)
        assert hits.index.tolist() == table["question"].iloc[: len(hits)].tolist()
        for name in workspace.names:
            causes = table.loc[table["config"] == name, "cause"]
            assert hits[name].tolist() == (causes == "hit").tolist(), (k, partial, name)
        assert hits.to_numpy().any()
        assert not hits.to_numpy().all()
    names = [workspace.names[3], workspace.names[0]]
    pd.testing.assert_frame_equal(failure_hits(workspace, k=3, configs=names), failure_hits(workspace, k=3)[names])
    with pytest.raises(InvalidParameterError, match="cut-off k must be at least 1, got 0"):
        failure_hits(workspace, k=0)
    with pytest.raises(InvalidParameterError, match="'configs' parameter of failure_hits"):
        failure_hits(workspace, configs="bm25")


def test_one_configuration_with_the_others_counted_is_its_rows_of_the_whole_table() -> None:
    workspace = load_workspace(SAMPLE)
    whole = failure_causes(workspace, k=3, partial_threshold=0.8)
    # Its hits elsewhere counted by hand, from the whole table's causes.
    hits: dict[str, set[str]] = {}
    for config, question, cause in zip(whole["config"], whole["question"], whole["cause"], strict=True):
        if cause == "hit":
            hits.setdefault(question, set()).add(config)
    for name in workspace.names:
        one = failure_causes(workspace, k=3, partial_threshold=0.8, configs=[name], others=workspace.names)
        pd.testing.assert_frame_equal(one, whole[whole["config"] == name].reset_index(drop=True), check_exact=True)
        failing = ~one["cause"].isin(["no_gold", "unresolved", "hit"])
        counted = [len(hits.get(question, set()) - {name}) for question in one["question"][failing]]
        assert one["hit_elsewhere"][failing].tolist() == counted
    alone = failure_causes(workspace, k=3, configs=[workspace.names[0]])
    assert (alone["hit_elsewhere"].dropna() == 0).all()  # no others: none counted
    with pytest.raises(InvalidParameterError, match="'others' parameter of failure_causes"):
        failure_causes(workspace, k=3, configs=[workspace.names[0]], others="bm25")


def test_the_causes_read_prepared_qrels_as_the_qrels_themselves() -> None:
    workspace = load_workspace(SAMPLE)
    questions = cause_questions(workspace.resolved[0], workspace.documents, gold=workspace.gold)
    for name in workspace.names[::2]:
        laid = workspace.chunking_gold(name)
        run, qrels = workspace.run(name), workspace.qrels(name)
        judged = cause_qrels(questions, laid, qrels)
        prepared = cause_chunking(questions, laid)
        for k in (1, 5):
            only = question_causes_only(questions, laid, run, qrels, workspace.documents, k=k)
            pd.testing.assert_frame_equal(
                question_causes_only(questions, laid, run, judged, workspace.documents, k=k), only, check_exact=True
            )
            whole = question_causes(questions, prepared, run, qrels, workspace.documents, k=k)
            pd.testing.assert_frame_equal(
                question_causes(questions, prepared, run, judged, workspace.documents, k=k), whole, check_exact=True
            )
            assert whole["cause"].tolist() == only["cause"].tolist()
    other = cause_chunking(questions, chunking_gold(questions.gold, laid.columns.chunks))
    with pytest.raises(InvalidParameterError, match="'qrels' parameter of question_causes_only"):
        question_causes_only(questions, other.chunking, run, judged, workspace.documents)
    with pytest.raises(InvalidParameterError, match="'qrels' parameter of question_causes"):
        question_causes(questions, other, run, judged, workspace.documents)


def test_the_hits_alone_from_prepared_records_are_the_hits_of_the_causes() -> None:
    workspace = load_workspace(SAMPLE)
    questions = cause_questions(workspace.resolved[0], workspace.documents, gold=workspace.gold)
    for name in workspace.names:
        laid = workspace.chunking_gold(name)
        run, qrels = workspace.run(name), workspace.qrels(name)
        for k, partial in ((1, 0.5), (3, 0.9), (5, 0.5), (20, 0.2)):
            causes = question_causes_only(
                questions, laid, run, qrels, workspace.documents, k=k, partial_threshold=partial
            )
            expected = (causes["cause"] == "hit").to_numpy()
            judged = cause_qrels(questions, laid, qrels)
            for chunks in (laid, cause_chunking(questions, laid)):
                for graded in (qrels, judged):
                    hits = question_hits(
                        questions, chunks, run, graded, workspace.documents, k=k, partial_threshold=partial
                    )
                    assert hits.tolist() == expected.tolist()
            assert expected.any() or k == 1
    other = cause_questions(workspace.resolved[0], workspace.documents)
    with pytest.raises(InvalidParameterError, match="'chunks' parameter of question_hits"):
        question_hits(other, cause_chunking(questions, laid), run, qrels, workspace.documents)
    with pytest.raises(InvalidParameterError, match="'qrels' parameter of question_hits"):
        question_hits(other, chunking_gold(other.gold, laid.columns.chunks), run, judged, workspace.documents)
    with pytest.raises(InvalidParameterError, match="'qrels' parameter of question_hits"):
        question_hits(questions, chunking_gold(questions.gold, laid.columns.chunks), run, judged, workspace.documents)
    # The qrels' graded pairs, read by hand: (question, chunk) positions of the chunks graded above 0.
    chunk_ids, ids = list(laid.columns.ids), list(questions.ids)
    pairs = sorted(
        ids.index(question) * len(chunk_ids) + chunk_ids.index(chunk)
        for question, grades in qrels.to_dict().items()
        if question in ids
        for chunk, grade in grades.items()
        if grade > 0 and chunk in chunk_ids
    )
    assert judged.keys.tolist() == pairs


def test_bm25s_analyzer_read_in_one_batch_gives_the_gaps_of_one_text_at_a_time() -> None:
    workspace = load_workspace(SAMPLE)
    questions = cause_questions(workspace.resolved[0], workspace.documents)
    for stemmer, stopwords in (("english", "en"), (None, None), ("porter", None)):
        analyzer = BM25Analyzer(stemmer=stemmer, stopwords=stopwords)
        batched = lexical_gaps(questions, analyzer)
        one_by_one = lexical_gaps(questions, analyzer.__call__)  # a bound method, not a BM25 Analyzer: text by text
        assert batched.gap.tolist() == one_by_one.gap.tolist()
        assert batched.gap.any()
        assert not batched.gap.all()


# Words that fold, join or split unusually: apostrophes of both kinds, citation markers, underscores, letters whose
# case folding changes their length or adds a combining mark, stopwords in either case.
TRICKY = [
    "Refunds",
    "refund",
    "REFUNDING",
    "don't",
    "don’t",
    "[2]",
    "[1, 3]",
    "ǰob",
    "İt",
    "Straße",
    "strasse",
    "the",
    "THE",
    "a_b",
    "x’y",
    "30",
    "days",
    "Days.",
    "—",
    "réfund",
    "ﬁle",
    "file",
]


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_bm25s_gaps_word_by_word_are_the_gaps_of_each_text_analyzed(data: st.DataObject) -> None:
    text = st.lists(st.sampled_from(TRICKY), max_size=6).map(" ".join)
    passages = data.draw(st.lists(text, min_size=1, max_size=4))
    document = "\n".join(passages)
    starts = [sum(len(p) + 1 for p in passages[:i]) for i in range(len(passages))]
    items = []
    for number in range(data.draw(st.integers(1, 5))):
        chosen = data.draw(st.lists(st.integers(0, len(passages) - 1), min_size=0, max_size=2, unique=True))
        gold = tuple(cg.GoldSpan(cg.Span("d", starts[i], starts[i] + len(passages[i]))) for i in chosen)
        items.append(cg.EvalItem(f"q{number}", data.draw(text) or "?", gold))
    questions = cause_questions(items, {"d": document})
    for stemmer, stopwords in (("english", "en"), (None, None), (None, "en")):
        analyzer = BM25Analyzer(stemmer=stemmer, stopwords=stopwords)
        assert lexical_gaps(questions, analyzer).gap.tolist() == lexical_gaps(questions, analyzer.__call__).gap.tolist()


# Any text: characters of any script (combining marks among them), pieces that fold, join or split unusually
# (both apostrophes, citation markers in ASCII and other digits, underscores, the control character texts are
# joined by), whitespace.
ANY_TEXT = st.lists(
    st.one_of(
        st.characters(codec="utf-8", exclude_categories=("Cs",)),
        st.sampled_from(["[2]", "[1, 3]", "[٢]", "x[4]y", "don't", "don’t", "_", "\x01", " ", "İ", "ß", "ﬁ", "ǰ"]),
        st.sampled_from(["The", "running", "runs", "Refunds", "\u0307", "Σ", "ς", "2"]),
    ),
    max_size=12,
).map("".join)


@settings(max_examples=300, deadline=None)
@given(questions=st.lists(ANY_TEXT, min_size=1, max_size=4), passages=st.lists(ANY_TEXT, min_size=1, max_size=4))
def test_bm25s_gaps_of_any_text_are_those_of_each_text_analyzed(questions: list[str], passages: list[str]) -> None:
    document = "\n".join(passages)
    starts = [sum(len(p) + 1 for p in passages[:i]) for i in range(len(passages))]
    items = [
        cg.EvalItem(
            f"q{number}",
            question or "?",
            tuple(
                cg.GoldSpan(cg.Span("d", starts[i], starts[i] + len(passages[i])))
                for i in range(number % 2, len(passages), 2)
                if passages[i]
            ),
        )
        for number, question in enumerate(questions)
    ]
    prepared = cause_questions(items, {"d": document})
    for stemmer, stopwords in (("english", "en"), (None, None)):
        analyzer = BM25Analyzer(stemmer=stemmer, stopwords=stopwords)
        expected = lexical_gaps(prepared, analyzer.__call__).gap.tolist()
        assert lexical_gaps(prepared, analyzer).gap.tolist() == expected


def test_word_terms_are_the_terms_of_each_word_as_found() -> None:
    # Each word as the word rule finds it, analyzed alone, against its fold's term: a fold that adds a combining
    # mark ("ǰ", "İ") is not split again.
    analyzer = BM25Analyzer()
    found = [word for word in TRICKY if WORD.fullmatch(word)]
    assert {"ǰob", "İt", "don’t", "THE"} <= set(found)
    assert analyzer.word_terms(tokenize(" ".join(found))) == [(analyzer(word) or [None])[0] for word in found]
    assert analyzer.word_terms(["the", "running", "ǰob".casefold()]) == [None, "run", "ǰob".casefold()]


def test_hits_kept_from_causes_are_the_hits_found_alone() -> None:
    # failure_causes_only and failure_causes keep each configuration's hits for failure_hits and hit_elsewhere to
    # read: whatever was asked first, and at any split threshold, they are question_hits' own.
    for k, split, partial in ((3, 0.5, 0.5), (1, 0.9, 0.5), (5, 0.2, 0.9)):
        alone = failure_hits(load_workspace(SAMPLE), k=k, partial_threshold=partial)
        workspace = load_workspace(SAMPLE)
        failure_causes(workspace, k=k, configs=workspace.names[:1], split_threshold=split, partial_threshold=partial)
        failure_causes_only(workspace, k=k, split_threshold=split, partial_threshold=partial)
        kept = failure_hits(workspace, k=k, partial_threshold=partial)
        pd.testing.assert_frame_equal(kept, alone, check_exact=True)
        assert alone.to_numpy().any()
