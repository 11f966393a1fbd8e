"""The first hop read near the topic: the words around `X`, and a small learned weighting of them.

One pooled vector of the whole question keeps little word order, so a chain with the question's
relations in another order scores nearly as well as the asked one ("who acted in the films directed
by the director of X": `directed_by, directed_by, starred` against `starred, starred, directed_by`).
The relation nearest the named entity is the chain's first hop, and which side of it that relation
stands on depends on the English form: "the director of X" before it, "X's director" after it,
"the films X directed" around it. So each chain's first hop is read against every short run of
words holding `X` (:func:`topic_windows`), grouped by where the run lies and whether `X` is
possessive (:data:`WINDOW_CLASSES`); the best cosine per group is one feature
(:func:`window_features`), and `tune` fits one weight per group on generated questions held out
from training (:func:`fit_weights`): no rule says which side matters, the graph's own questions do.

Pure: numpy only, no model and no database.

Example:
    >>> [(text, WINDOW_CLASSES[c]) for text, c in topic_windows("who directed X's films", 2)]
    [("directed X's", "before X's"), ("X's films", "after X's")]
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

import numpy as np

#: Where a run of words lies around the topic, and whether the topic is possessive (`X's`).
WINDOW_CLASSES = ("before X", "after X", "around X", "before X's", "after X's", "around X's")
#: The longest run of words read (the topic included) unless a model says otherwise.
DEFAULT_MAX_WORDS = 6
#: Where a run of words lies around the question word (`who`, `which`, ...): the answer's end.
ANSWER_CLASSES = ("before wh", "after wh", "around wh")
#: Question words whose first one stands for the answer ("who acted in ...", "... directed by who").
WH_WORDS = frozenset({"who", "whom", "whose", "what", "which", "where", "when"})


def topic_windows(masked_question: str, max_words: int = DEFAULT_MAX_WORDS) -> list[tuple[str, int]]:
    """Every run of 2 to `max_words` words holding the masked topic, with its class index.

    Example:
        >>> topic_windows("the director of X", 3)
        [('of X', 0), ('director of X', 0)]
    """
    words = masked_question.split()
    out: dict[str, int] = {}
    for i, word in enumerate(words):
        core = re.sub(r"[^\w']", "", word)
        if core not in ("X", "X's"):
            continue
        possessive = 3 if core == "X's" else 0
        for text, side in runs_holding(words, i, max_words):
            out.setdefault(text, side + possessive)
    return list(out.items())


def runs_holding(words: Sequence[str], i: int, max_words: int) -> Iterator[tuple[str, int]]:
    """Every run of 2 to `max_words` of `words` holding word `i`, shorter runs first, with its side.

    Side 0: the run ends at word `i`; 1: it starts there; 2: it holds it inside.

    Example:
        >>> list(runs_holding("the director of X".split(), 3, 3))
        [('of X', 0), ('director of X', 0)]
    """
    for n in range(2, max_words + 1):
        for a in range(max(0, i - n + 1), min(i, len(words) - n) + 1):
            b = a + n - 1
            yield " ".join(words[a : b + 1]), 0 if b == i else 1 if a == i else 2


def answer_windows(masked_question: str, max_words: int = DEFAULT_MAX_WORDS) -> list[tuple[str, int]]:
    """Every run of 2 to `max_words` words holding the question's first wh-word, with its class.

    The last hop of a chain is the relation the answer stands in, and English often says it next
    to the question word: "who ACTED IN the films ...", "... are DIRECTED BY who". Classes index
    :data:`ANSWER_CLASSES`; how much each counts is fitted per model. Empty without a wh-word.

    Example:
        >>> answer_windows("the films of X are directed by who", 3)
        [('by who', 0), ('directed by who', 0)]
        >>> [t for t, c in answer_windows("who acted in X", 3)]
        ['who acted', 'who acted in']
    """
    words = masked_question.split()
    plain = [re.sub(r"[^\w]", "", w).lower() for w in words]
    i = next((k for k, w in enumerate(plain) if w in WH_WORDS), None)
    if i is None:
        return []
    out: dict[str, int] = {}
    for text, side in runs_holding(words, i, max_words):
        out.setdefault(text, side)
    return list(out.items())


def window_features(
    cosines: np.ndarray, classes: Sequence[int], n_classes: int = len(WINDOW_CLASSES)
) -> np.ndarray:
    """Per text, the best cosine within each window class (texts x windows -> texts x classes).

    A class the question has no window of takes the mean of the text's other classes, so its
    weight neither lifts nor sinks anything.

    Example:
        >>> window_features(np.array([[0.2, 0.8, 0.5]]), [0, 0, 1]).round(2).tolist()
        [[0.8, 0.5, 0.65, 0.65, 0.65, 0.65]]
    """
    cls = np.asarray(classes)
    feats = np.zeros((cosines.shape[0], n_classes))
    present = np.zeros(n_classes, dtype=bool)
    for c in range(n_classes):
        if (cls == c).any():
            feats[:, c] = cosines[:, cls == c].max(axis=1)
            present[c] = True
    if present.any():
        feats[:, ~present] = feats[:, present].mean(axis=1, keepdims=True)
    return feats


def fit_weights(
    groups: Sequence[tuple[np.ndarray, np.ndarray, Sequence[int]]],
    *,
    temperature: float,
    steps: int = 300,
    lr: float = 0.05,
    ridge: float = 0.01,
) -> list[float]:
    """One weight per feature, so that `base + features @ w` ranks each gold chain first.

    Each group is one question: its chains' whole-question scores (n), their features (n x k: the
    first hop's window features, one per class, and any others the caller adds) and the indices
    of its gold chains. The loss is the softmax
    cross-entropy of the gold chains at the chain model's temperature (as it was trained), plus
    `ridge * |w|^2`; Adam, full batch.

    Example:
        >>> g = (np.array([0.5, 0.5]), np.array([[1.0, 0, 0, 0, 0, 0], [0, 1.0, 0, 0, 0, 0]]), [0])
        >>> w = fit_weights([g], temperature=0.05)
        >>> w[0] > 0 > w[1]
        True
    """
    k = int(next((f.shape[1] for _, f, _ in groups), len(WINDOW_CLASSES)))
    w = np.zeros(k)
    m, v = np.zeros(k), np.zeros(k)
    usable = [(b, f, list(gold)) for b, f, gold in groups if len(gold) and len(b)]
    if not usable:
        return [0.0] * k
    for t in range(1, steps + 1):
        grad = 2 * ridge * w
        for base, feats, gold in usable:
            s = (base + feats @ w) / temperature
            p = np.exp(s - s.max())
            p /= p.sum()
            q = np.zeros_like(p)
            q[gold] = p[gold] / p[gold].sum()
            grad += (p - q) @ feats / temperature / len(usable)
        m = 0.9 * m + 0.1 * grad
        v = 0.999 * v + 0.001 * grad**2
        w -= lr * (m / (1 - 0.9**t)) / (np.sqrt(v / (1 - 0.999**t)) + 1e-8)
    return [round(float(x), 4) for x in w] if np.isfinite(w).all() else [0.0] * k
