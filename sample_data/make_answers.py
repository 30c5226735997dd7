"""A simulated generator: answers for some configurations of a workspace that `contextgrid sweep` wrote.

    python sample_data/make_answers.py WORKSPACE [--configs NAME,NAME] [--seed 0]

For each chosen configuration and each question it assembles the context
from the run's top chunks with contextgrid.answering.context.assemble_context, then
answers as a real generator tends to: mostly a sentence of the passage
holding the evidence, with its citation; sometimes with invented content
added, a citation of a passage the context never had, or a second passage
quoted; a refusal, usually, when there was nothing to answer from, and now
and then a confident answer anyway; a refusal, sometimes, when the evidence
was there. Every choice comes from a random generator seeded by the seed,
the configuration and the question, so the same workspace gives the same
answers.

It writes answers/<config>.jsonl and adds `answers = "answers/<config>.jsonl"`
to those configurations in contextgrid.toml (replacing any answers line a
previous run added); every other line of the manifest is kept as it was.
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import re
import sys
import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path

from contextgrid.workspace.answers import resolved_items
from contextgrid.answering.lexical import words
from contextgrid.chunking import SENTENCE_END
from contextgrid.core.errors import ContextGridError
from contextgrid.answering.context import assemble_context
from contextgrid.data.records import Answer, AssembledContext, EvalItem
from contextgrid.workspace.model import MANIFEST, Workspace
from contextgrid.workspace.manifest import load_workspace

TOP = 5
"""How many of a run's chunks are offered to the context, best first."""

BUDGET = 600
"""The context's token budget: the longer chunkings lose their lower-ranked passages to it."""

REFUSALS = (
    "The passages do not contain the answer to this question.",
    "I cannot answer this from the provided passages.",
    "There is not enough information in the context to say.",
    "The context does not contain anything about this, so I do not know.",
)
INVENTED = (
    "This is standard practice across the industry.",
    "Most customers receive a confirmation email within 24 hours.",
    "Exceptions can be requested through your regional account manager.",
    "The policy was last revised following feedback from customers.",
    "You may also be eligible for a loyalty discount on future orders.",
    "Please keep your receipt as proof of eligibility.",
)
OPENERS = ("", "", "", "According to the documentation, ", "Based on the passages, ")

_CITED = re.compile(r"[\s.;:,!?]+$")
_MARKUP = re.compile(r"^(?:[-*|>]\s*|\d+[.)]\s+)+")


def _sentences(text: str) -> list[str]:
    """The statements of ``text`` a generator would repeat: no headings or questions, list and table marks
    dropped, whitespace collapsed, at most 45 words each."""
    cuts = [0, *(match.end() for match in SENTENCE_END.finditer(text)), len(text)]
    found = []
    for start, end in itertools.pairwise(cuts):
        sentence = _MARKUP.sub("", " ".join(text[start:end].split()[:45]))
        if len(words(sentence)) >= 3 and not sentence.startswith("#") and not sentence.endswith("?"):
            found.append(sentence)
    return found


def _cite(sentence: str, *numbers: int) -> str:
    """``sentence`` with ``[n]`` markers before its closing full stop."""
    marks = "".join(f"[{number}]" for number in numbers)
    return f"{_CITED.sub('', sentence)} {marks}." if marks else f"{_CITED.sub('', sentence)}."


def _best_sentence(text: str, evidence: frozenset[str], rng: random.Random) -> str | None:
    sentences = _sentences(text)
    if not sentences:
        return None
    if not evidence:
        return rng.choice(sentences)
    return max(sentences, key=lambda sentence: len(words(sentence) & evidence))


def _opened(opener: str, text: str) -> str:
    """``text`` after an opener such as "According to the documentation, ", its first word lowercased if plain."""
    first = text.split(" ", 1)[0]
    plain = first[:1].isupper() and first[1:].islower()
    return opener + (text[0].lower() + text[1:] if opener and plain else text)


def _refusal(rng: random.Random) -> Answer:
    return Answer(rng.choice(REFUSALS))


def generate(
    item: EvalItem, context: AssembledContext, gold: Sequence[int], evidence: str, rng: random.Random
) -> Answer:
    """One simulated answer to ``item`` from ``context``; ``gold`` are the passage numbers holding evidence."""
    passages = len(context.chunks)
    opener = rng.choice(OPENERS)
    roll = rng.random()
    if not item.is_resolved or passages == 0:
        if roll < 0.7:
            return _refusal(rng)
        # A confident answer with nothing to answer from: the top passage if any, dressed up.
        first = _best_sentence(context.chunks[0].text, frozenset(), rng) if passages else None
        made_up = rng.choice(INVENTED)
        if first is None:
            return Answer(_opened(opener, _cite(made_up, 1)), (1,))
        return Answer(f"{_opened(opener, _cite(first, 1))} {made_up}", (1,))
    if not gold:
        # The evidence exists, but retrieval missed it.
        if roll < 0.5:
            return _refusal(rng)
        first = _best_sentence(context.chunks[0].text, words(item.question), rng)
        if first is None or roll >= 0.8:
            return Answer(_opened(opener, rng.choice(INVENTED)))
        return Answer(_opened(opener, _cite(first, 1)), (1,))
    if roll < 0.08:
        return _refusal(rng)
    number = gold[0]
    sentence = _best_sentence(context.chunks[number - 1].text, words(evidence), rng) or evidence
    citations = [number]
    text = _opened(opener, _cite(sentence, number))
    if roll < 0.25:
        text += " " + rng.choice(INVENTED)
    elif roll < 0.37:
        beyond = passages + rng.randint(1, 3)
        text = _opened(opener, _cite(sentence, number, beyond))
        citations.append(beyond)
    elif roll < 0.5 and passages > 1:
        other = rng.choice([n for n in range(1, passages + 1) if n != number])
        extra = _best_sentence(context.chunks[other - 1].text, words(item.question), rng)
        if extra is not None:
            text += " " + _cite(extra, other)
            citations.append(other)
    return Answer(text, tuple(citations))


def _evidence(item: EvalItem, documents: Mapping[str, str]) -> str:
    return " ".join(documents[gold.span.doc_id][gold.span.start : gold.span.end] for gold in item.gold)


def answer_lines(
    workspace: Workspace, name: str, *, seed: int = 0, top: int = TOP, budget_tokens: int = BUDGET
) -> list[str]:
    """The JSON Lines of configuration ``name``'s answers, one per question."""
    documents = workspace.documents
    items = resolved_items(workspace)
    chunks = {chunk.id: chunk for chunk in workspace.chunks(name)}
    run, qrels = workspace.run(name), workspace.qrels(name)
    lines = []
    for item in items:
        ranked = run.get(item.id, ())[:top]
        context = assemble_context([chunks[chunk_id] for chunk_id in ranked], budget_tokens)
        judged = qrels.get(item.id, {})
        gold = [n for n, chunk in enumerate(context.chunks, 1) if judged.get(chunk.id, 0) > 0]
        rng = random.Random(f"{seed}/{name}/{item.id}")
        answer = generate(item, context, gold, _evidence(item, documents), rng)
        record = {
            "question_id": item.id,
            "answer": answer.text,
            "citations": list(answer.citations),
            "context_chunk_ids": [chunk.id for chunk in context.chunks],
        }
        lines.append(json.dumps(record, ensure_ascii=False))
    return lines


def with_answers(manifest: str, files: Mapping[str, str]) -> str:
    """``manifest`` with ``answers = "<file>"`` in each configuration named in ``files``, and in no other.

    An answers line already in a configuration is replaced; every other line is kept.
    """
    data = tomllib.loads(manifest)
    lines = manifest.splitlines()
    headers = [n for n, line in enumerate(lines) if re.match(r"^\s*\[\[\s*config\s*\]\]", line)]
    tables = data.get("config", [])
    if len(headers) != len(tables):
        raise ContextGridError(f"{MANIFEST}: expected one [[config]] header per configuration")
    out = lines[: headers[0]] if headers else list(lines)
    for index, start in enumerate(headers):
        end = headers[index + 1] if index + 1 < len(headers) else len(lines)
        block = lines[start:end]
        # The configuration's own keys end at its first sub-table ([config.params]).
        keys_end = next((n for n in range(1, len(block)) if re.match(r"^\s*\[", block[n])), len(block))
        own = [line for line in block[1:keys_end] if not re.match(r"^\s*answers\s*=", line)]
        name = tables[index]["name"]
        if name in files:
            last = max((n for n, line in enumerate(own) if line.strip()), default=-1)
            own.insert(last + 1, f"answers = {json.dumps(files[name])}")
        out += [block[0], *own, *block[keys_end:]]
    text = "\n".join(out) + "\n"
    written = {table["name"]: table.get("answers") for table in tomllib.loads(text)["config"]}
    if written != {table["name"]: files.get(table["name"]) for table in tables}:
        raise ContextGridError(f"{MANIFEST}: could not add the answers lines safely")
    return text


def default_configs(names: Sequence[str], count: int = 4) -> list[str]:
    """Up to ``count`` configurations spread evenly over the manifest's order."""
    if len(names) <= count:
        return list(names)
    return [names[round(i * (len(names) - 1) / (count - 1))] for i in range(count)]


def make_answers(
    root: str | Path,
    *,
    configs: Sequence[str] | None = None,
    seed: int = 0,
    top: int = TOP,
    budget_tokens: int = BUDGET,
) -> tuple[str, ...]:
    """Write answers for ``configs`` (default: :func:`default_configs`) into the workspace at ``root``."""
    folder = Path(root)
    workspace = load_workspace(folder)
    names = list(configs) if configs is not None else default_configs(workspace.names)
    files = {}
    for name in names:
        workspace.config(name)
        if "/" in name or "\\" in name or name.startswith("."):
            raise ContextGridError(f"configuration name {name!r} cannot be used as a file name")
        relative = f"answers/{name}.jsonl"
        lines = answer_lines(workspace, name, seed=seed, top=top, budget_tokens=budget_tokens)
        (folder / "answers").mkdir(exist_ok=True)
        (folder / relative).write_text("\n".join(lines) + "\n", encoding="utf-8")
        files[name] = relative
    manifest = folder / MANIFEST
    manifest.write_text(with_answers(manifest.read_text(encoding="utf-8"), files), encoding="utf-8")
    load_workspace(folder)  # the manifest still loads, and every answers file it names exists
    return tuple(names)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("workspace", type=Path)
    parser.add_argument("--configs", help="comma-separated configuration names (default: four spread over the grid)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    configs = [part.strip() for part in args.configs.split(",") if part.strip()] if args.configs else None
    try:
        written = make_answers(args.workspace, configs=configs, seed=args.seed)
    except ContextGridError as error:
        print(f"make_answers: error: {error}", file=sys.stderr)
        return 2
    print(f"wrote answers for {', '.join(written)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
