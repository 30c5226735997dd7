"""The two resampling engines: sign flips for the permutation test, resampled
question indices for the bootstrap.

Both take each pair's per-question differences with its ties already exactly
zero (see :meth:`contextgrid.significance.alignment.AlignedScores.differences`), and
work on the configurations' score matrix where that gives the same
differences: a sign flip or a resample is linear in the scores, so one matrix
product per batch serves every pair at once, the pair's null value being the
difference of two columns. Twenty configurations cost one product with twenty
columns, not one per each of their 190 pairs. A pair with a tie the tolerance
zeroed (float noise such as 0.1 + 0.2 against 0.3), and any pair when there are
at most ``GATHERED_PAIRS``, is resampled from its own differences instead.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import numpy.typing as npt

__all__ = ["TIE_RTOL", "bootstrap_mean_differences", "rows_per_batch", "sign_flip_sums"]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.intp]

TIE_RTOL = 1e-9
"""Null values within this fraction of the scores' total magnitude of the observed value count as equal to it
(relative, unlike the absolute :data:`contextgrid.core.checks.TIE_TOLERANCE` between two scores): sums computed
in a different order differ in the last bits, and a tie that rounding breaks would change a p-value."""

BATCH_CELLS = 1 << 22
"""Random draws per batch (about 32 MB as float64). Depends on the number of
questions only, so a pair's result does not depend on how many other pairs ran."""


GATHERED_PAIRS = 3
"""Up to this many pairs, each pair's resampled differences are summed directly; beyond it, counting
the draws once and one matrix product for every configuration is cheaper. The two agree to rounding,
and both use the same draws."""


def rows_per_batch(n_questions: int, remaining: int) -> int:
    """Resamples drawn per batch: bounded memory whatever the question count."""
    return max(1, min(BATCH_CELLS // n_questions, 4096, remaining))


def _random_flips(n_questions: int, n_resamples: int, rng: np.random.Generator) -> Iterator[FloatArray]:
    done = 0
    while done < n_resamples:
        rows = rows_per_batch(n_questions, n_resamples - done)
        cells = rows * n_questions
        bits = np.unpackbits(np.frombuffer(rng.bytes(-(-cells // 8)), dtype=np.uint8), count=cells)
        yield bits.reshape(rows, n_questions).astype(np.float64)
        done += rows


def _all_flips(n_questions: int) -> Iterator[FloatArray]:
    codes = np.arange(1 << n_questions, dtype=np.int64)
    # Row r keeps question q's sign when bit q of r is 0 and flips it when it is 1.
    yield ((codes[:, None] >> np.arange(n_questions)) & 1).astype(np.float64)


def _split_pairs(
    scores: FloatArray, first: IntArray, second: IntArray, differences: FloatArray
) -> tuple[IntArray, IntArray]:
    """Pairs resampled from their own ``differences``, and pairs the score matrix gives the same differences for."""
    pairs = np.arange(len(first), dtype=np.intp)
    if len(first) <= GATHERED_PAIRS:
        return pairs, pairs[:0]
    zeroed = np.any(differences != scores[first] - scores[second], axis=1)
    return pairs[zeroed], pairs[~zeroed]


def sign_flip_sums(
    scores: FloatArray,
    first: IntArray,
    second: IntArray,
    differences: FloatArray,
    *,
    n_resamples: int,
    rng: np.random.Generator,
) -> tuple[FloatArray, FloatArray, bool]:
    """Each pair's summed difference under every drawn relabelling within the questions, and each relabelling's
    sum of signs.

    Swapping the two configurations' scores on a question flips the sign of its difference, so the null
    distribution of the summed difference is ``sum(s_q * d_q)`` over sign vectors ``s``, ``d`` being
    ``differences[p]`` (a tie is 0 whatever its sign). With ``B`` a 0/1 matrix of flips, ``s = 1 - 2B`` and
    ``S @ x = sum(x) - 2 * (B @ x)``. The sum of signs ``sum(s_q)`` is what a shift of every difference by the
    same amount adds to a relabelled sum, which is all the test's inversion needs (see
    :mod:`contextgrid.significance.inversion`).

    Returns
    -------
    sums, signs, exact
        ``sums[r, p]`` is ``sum(s_q * d_q)`` of pair ``p`` under relabelling ``r``, ``signs[r]`` is
        ``sum(s_q)``. When ``2 ** n_questions <= n_resamples`` every sign vector is enumerated once
        (``exact`` is True), as ``scipy.stats.permutation_test`` does; otherwise ``n_resamples`` are drawn.
    """
    n_questions = scores.shape[1]
    totals = scores.sum(axis=1)
    sums = differences.sum(axis=1)
    own, batched = _split_pairs(scores, first, second, differences)
    own_differences = np.ascontiguousarray(differences[own].T)
    exact = n_questions < 62 and (1 << n_questions) <= n_resamples
    batches = _all_flips(n_questions) if exact else _random_flips(n_questions, n_resamples, rng)
    rows = (1 << n_questions) if exact else n_resamples
    null = np.empty((rows, len(first)), dtype=np.float64)
    signs = np.empty(rows, dtype=np.float64)
    transposed = np.ascontiguousarray(scores.T)
    done = 0
    for flips in batches:
        stop = done + len(flips)
        signs[done:stop] = n_questions - 2.0 * flips.sum(axis=1)
        if len(batched):
            flipped = totals - 2.0 * (flips @ transposed)
            null[done:stop, batched] = flipped[:, first[batched]] - flipped[:, second[batched]]
        if len(own):
            null[done:stop, own] = sums[own] - 2.0 * (flips @ own_differences)
        done = stop
    return null, signs, exact


def bootstrap_mean_differences(
    scores: FloatArray,
    first: IntArray,
    second: IntArray,
    differences: FloatArray,
    *,
    n_resamples: int,
    rng: np.random.Generator,
) -> FloatArray:
    """Mean of each pair's ``differences`` on ``n_resamples`` resamples of the questions, drawn with replacement.

    Every pair sees the same resampled questions, so the pairing is kept.
    Returns an array of shape ``(n_resamples, n_pairs)``.
    """
    n_questions = scores.shape[1]
    transposed = np.ascontiguousarray(scores.T)
    own, batched = _split_pairs(scores, first, second, differences)
    own_differences = np.ascontiguousarray(differences[own].T)
    out = np.empty((n_resamples, len(first)), dtype=np.float64)
    done = 0
    while done < n_resamples:
        rows = rows_per_batch(n_questions, n_resamples - done)
        picks = rng.integers(0, n_questions, size=(rows, n_questions))
        if len(first) <= GATHERED_PAIRS:
            for pair, difference in enumerate(differences):
                out[done : done + rows, pair] = difference[picks].sum(axis=1) / n_questions
        else:
            # How often each question was drawn in each resample: a resample's mean is then a dot product.
            offsets = (np.arange(rows) * n_questions)[:, None]
            drawn = np.bincount((picks + offsets).ravel(), minlength=rows * n_questions).reshape(rows, n_questions)
            counted = drawn.astype(np.float64)
            if len(batched):
                means = (counted @ transposed) / n_questions
                out[done : done + rows, batched] = means[:, first[batched]] - means[:, second[batched]]
            if len(own):
                out[done : done + rows, own] = (counted @ own_differences) / n_questions
        done += rows
    return out
