"""A workspace whose one document holds hostile text (a script, an ``onerror``, markdown, ``$`` signs): what the
Context waste page's browser test checks is drawn as written, and docs/refresh_images.py photographs for the docs."""

from __future__ import annotations

from pathlib import Path

from corpora import swept

import contextgrid as cg

HOSTILE = [
    "<script>window.__pwned = 1</script>",
    '<img src=x onerror="window.__pwned=2">',
    "**bold**",
    "[link](http://x)",
    "$x^2$",
    "$5",
]
EVIDENCE = "The fee is $5 per return, or $x^2$ for x returns: **bold** claims."
DOCUMENTS = {
    "policy.md": "Returns policy.\n\n"
    + "Refunds are available within 30 days of purchase. " * 10
    + f"{HOSTILE[0]} {HOSTILE[1]} See [link](http://x).\n\n{EVIDENCE}\n\n"
    + "Store credit is offered after 30 days and up to 90 days. " * 10,
}
ITEMS = (
    cg.EvalItem(id="fee", question="What does a return cost? **bold** $5", anchors=(cg.Anchor("policy.md", EVIDENCE),)),
    cg.EvalItem(
        id="window",
        question="How long is the refund window?",
        anchors=(cg.Anchor("policy.md", "Refunds are available within 30 days of purchase."),),
    ),
)


def hostile_workspace(root: Path) -> Path:
    """``root`` as a BM25 sweep of the hostile document: chunks of 120 and 400 characters, 30 overlapping."""
    return swept(root, sizes=[120, 400], overlap=30, documents=DOCUMENTS, items=ITEMS)


def fee_query(root: Path) -> dict[str, object]:
    """The Context waste page's choices that draw the hostile evidence: question ``fee``, every configuration."""
    return {"question": "fee", "k": 5, "configs": ",".join(cg.load_workspace(root).names)}
