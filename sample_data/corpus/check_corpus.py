#!/usr/bin/env python3
"""Validate the bundled sample corpus (documents/ and questions.jsonl).

Standard library only. Run from anywhere:

    python3 sample_data/corpus/check_corpus.py

Checks
------
* documents/ holds at least 26 Markdown files, each valid UTF-8 and between
  1,000 and 61,440 bytes; at least two are over 30 KB, one is 55 KB or more
  (near 60 KB), and at least three are under 2 KB.
* questions.jsonl has at least 160 questions with ids q001, q002, ... in order
  and unique; every line has "id", "question", "gold" and "reference_answer".
* every gold entry names an existing document, has grade 1 or 2, and its
  "quote" occurs exactly once, verbatim, in that document; answerable
  questions have a non-empty reference answer, unanswerable ones have
  "gold": [] and "reference_answer": null.
* the optional "distractors" list (near-duplicate passages that must NOT be
  taken for the answer) names existing documents and quotes that occur
  exactly once in them, and never repeats a gold passage.
* counts by kind: >= 25 questions with two or more gold passages, >= 20 with
  a long gold quote (400-1,200 characters), >= 15 with a near-duplicate
  distractor, >= 16 unanswerable.

Exit status 0 when everything passes, 1 otherwise (problems are listed).
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
DOCS = HERE / "documents"
QUESTIONS = HERE / "questions.jsonl"

MIN_DOCS = 26
MIN_BYTES, MAX_BYTES = 1_000, 61_440
BIG_BYTES, MIN_BIG = 30 * 1024, 2
NEAR_60_BYTES = 55 * 1024
SMALL_BYTES, MIN_SMALL = 2 * 1024, 3

MIN_QUESTIONS = 160
MIN_TWO_PASSAGE = 25
LONG_MIN, LONG_MAX, MIN_LONG = 400, 1_200, 20
MIN_DISTRACTOR = 15
MIN_UNANSWERABLE = 16
QUOTE_MIN, QUOTE_MAX = 20, 1_200


def main() -> int:
    problems: list[str] = []

    # ---- documents -------------------------------------------------------
    texts: dict[str, str] = {}
    sizes: dict[str, int] = {}
    paths = sorted(DOCS.glob("*.md")) if DOCS.is_dir() else []
    if not paths:
        problems.append(f"no *.md documents in {DOCS}")
    for path in paths:
        raw = path.read_bytes()
        sizes[path.name] = len(raw)
        try:
            texts[path.name] = raw.decode("utf-8")
        except UnicodeDecodeError as error:
            problems.append(f"{path.name}: not valid UTF-8 ({error})")
            continue
        if raw.startswith(b"\xef\xbb\xbf"):
            problems.append(f"{path.name}: starts with a byte-order mark")
        if b"\r" in raw:
            problems.append(f"{path.name}: contains carriage returns")
        if not MIN_BYTES <= len(raw) <= MAX_BYTES:
            problems.append(f"{path.name}: {len(raw):,} bytes, outside {MIN_BYTES:,}..{MAX_BYTES:,}")
    if len(paths) < MIN_DOCS:
        problems.append(f"{len(paths)} documents, need at least {MIN_DOCS}")
    big = [n for n, s in sizes.items() if s > BIG_BYTES]
    small = [n for n, s in sizes.items() if s < SMALL_BYTES]
    if len(big) < MIN_BIG:
        problems.append(f"{len(big)} documents over 30 KB, need {MIN_BIG}")
    if not any(s >= NEAR_60_BYTES for s in sizes.values()):
        problems.append("no document near 60 KB (>= 55 KB)")
    if len(small) < MIN_SMALL:
        problems.append(f"{len(small)} documents under 2 KB, need {MIN_SMALL}")

    # ---- questions -------------------------------------------------------
    items: list[dict] = []
    if not QUESTIONS.is_file():
        problems.append(f"missing {QUESTIONS}")
    else:
        for number, line in enumerate(QUESTIONS.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                problems.append(f"questions.jsonl line {number}: blank line")
                continue
            try:
                value = json.loads(line)
            except json.JSONDecodeError as error:
                problems.append(f"questions.jsonl line {number}: bad JSON ({error})")
                continue
            if not isinstance(value, dict):
                problems.append(f"questions.jsonl line {number}: not a JSON object")
                continue
            items.append(value)

    kinds: Counter[str] = Counter()
    ids: Counter[str] = Counter(str(item.get("id")) for item in items)
    for dup, count in ids.items():
        if count > 1:
            problems.append(f"id {dup} used {count} times")
    per_doc: Counter[str] = Counter()

    def check_quote(qid: str, what: str, entry: object) -> tuple[str, str] | None:
        if not isinstance(entry, dict):
            problems.append(f"{qid}: {what} entry is not an object")
            return None
        doc_id, quote = entry.get("doc_id"), entry.get("quote")
        if doc_id not in texts:
            problems.append(f"{qid}: {what} names unknown document {doc_id!r}")
            return None
        if not isinstance(quote, str) or not quote.strip():
            problems.append(f"{qid}: {what} in {doc_id} has no quote")
            return None
        if not QUOTE_MIN <= len(quote) <= QUOTE_MAX:
            problems.append(f"{qid}: {what} quote in {doc_id} is {len(quote)} characters")
        found = texts[doc_id].count(quote)
        if found != 1:
            problems.append(f"{qid}: {what} quote occurs {found} times in {doc_id}: {quote[:70]!r}...")
        return doc_id, quote

    for position, item in enumerate(items, 1):
        qid = str(item.get("id"))
        if qid != f"q{position:03d}":
            problems.append(f"question {position} has id {qid!r}, expected q{position:03d}")
        for key in ("id", "question", "gold", "reference_answer"):
            if key not in item:
                problems.append(f"{qid}: missing key {key!r}")
        question = item.get("question")
        if not isinstance(question, str) or not question.strip():
            problems.append(f"{qid}: empty question")
        gold = item.get("gold")
        answer = item.get("reference_answer")
        if not isinstance(gold, list):
            problems.append(f"{qid}: gold is not a list")
            continue
        if not gold:
            kinds["unanswerable"] += 1
            if answer is not None:
                problems.append(f"{qid}: unanswerable question must have reference_answer null")
        else:
            kinds["answerable"] += 1
            if not isinstance(answer, str) or not answer.strip():
                problems.append(f"{qid}: answerable question needs a reference_answer")
        gold_passages = set()
        long_quote = False
        for entry in gold:
            found = check_quote(qid, "gold", entry)
            if found is None:
                continue
            gold_passages.add(found)
            per_doc[found[0]] += 1
            if entry.get("grade") not in (1, 2):
                problems.append(f"{qid}: grade {entry.get('grade')!r} is not 1 or 2")
            if LONG_MIN <= len(found[1]) <= LONG_MAX:
                long_quote = True
        if gold and not any(isinstance(e, dict) and e.get("grade") == 2 for e in gold):
            problems.append(f"{qid}: no gold passage with grade 2")
        if len(gold_passages) != len(gold):
            problems.append(f"{qid}: repeated gold passage")
        if len(gold) >= 2:
            kinds["two-passage"] += 1
        if long_quote:
            kinds["long-quote"] += 1
        distractors = item.get("distractors", [])
        if not isinstance(distractors, list):
            problems.append(f"{qid}: distractors is not a list")
            distractors = []
        for entry in distractors:
            found = check_quote(qid, "distractor", entry)
            if found is not None and found in gold_passages:
                problems.append(f"{qid}: distractor is also a gold passage")
        if distractors:
            kinds["distractor"] += 1

    if len(items) < MIN_QUESTIONS:
        problems.append(f"{len(items)} questions, need at least {MIN_QUESTIONS}")
    for kind, need in (
        ("two-passage", MIN_TWO_PASSAGE),
        ("long-quote", MIN_LONG),
        ("distractor", MIN_DISTRACTOR),
        ("unanswerable", MIN_UNANSWERABLE),
    ):
        if kinds[kind] < need:
            problems.append(f"{kinds[kind]} {kind} questions, need at least {need}")

    # ---- summary ---------------------------------------------------------
    total = sum(sizes.values())
    print(f"documents: {len(sizes)} files, {total:,} bytes")
    print(f"  smallest {min(sizes.values(), default=0):,} B, largest {max(sizes.values(), default=0):,} B")
    print(f"  over 30 KB: {', '.join(sorted(big)) or '-'}")
    print(f"  under 2 KB: {', '.join(sorted(small)) or '-'}")
    for name in sorted(sizes, key=sizes.get):
        print(f"    {sizes[name]:>7,} B  {per_doc[name]:>3} gold  {name}")
    print(f"questions: {len(items)}")
    for kind in ("answerable", "unanswerable", "two-passage", "long-quote", "distractor"):
        print(f"  {kind:<13} {kinds[kind]}")
    unused = [name for name in sizes if per_doc[name] == 0]
    if unused:
        print(f"  documents with no gold passage: {', '.join(sorted(unused))}")
    if problems:
        print(f"\nFAILED: {len(problems)} problem(s)")
        for problem in problems:
            print(f"  - {problem}")
        return 1
    print("\nOK: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
