"""Vectors of query-side texts (questions, their windows), encoded once and kept, bounded.

A chain model reads every question twice over: the masked question, then about twenty windows of
it (the words around the topic and around the question word). Users ask the same questions again
(a page reloaded, a retry, an FAQ), and a question's two window sets share some windows; the
encoder is the query path's largest cost, so its vectors are kept in a least-recently-used table
of `maxsize` texts. Texts missing from the table are encoded in one call, outside the lock, so
concurrent searches encode side by side; a text's vector does not depend on the texts encoded
with it (int8 models run one text per pass: `backend.batching.independent_batch_size`).

Example:
    >>> import numpy as np
    >>> calls = []
    >>> def encode(texts):
    ...     calls.append(list(texts))
    ...     return np.ones((len(texts), 2), dtype=np.float32)
    >>> cache = TextVectorCache(encode, maxsize=2)
    >>> cache.vectors(["a", "b", "a"]).shape
    (3, 2)
    >>> cache.vectors(["b", "c"]).shape  # "b" is kept; "c" pushes out "a"
    (2, 2)
    >>> calls
    [['a', 'b'], ['c']]
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence

import numpy as np

#: Query-side texts kept per model (384 float32 each: 1.5 KB, so 4,096 texts take 6 MB).
DEFAULT_MAXSIZE = 4096


class TextVectorCache:
    """A bounded, thread-safe table text -> vector in front of an encoder.

    Args:
        encode: texts -> their vectors, one row per text in order.
        maxsize: texts kept; the least recently used go first (0: nothing is kept).
    """

    def __init__(self, encode: Callable[[Sequence[str]], np.ndarray], maxsize: int = DEFAULT_MAXSIZE) -> None:
        """Keep the encoder; start empty."""
        if maxsize < 0:
            raise ValueError(f"maxsize must be >= 0, got {maxsize}")
        self._encode = encode
        self.maxsize = maxsize
        self._table: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        """Texts kept now."""
        return len(self._table)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """:meth:`vectors`, under the name encoders use (so the table stands in for one)."""
        return self.vectors(texts)

    def vector(self, text: str) -> np.ndarray:
        """The kept vector of one text (read-only, shared by every caller)."""
        return self._kept([text])[text]

    def vectors(self, texts: Sequence[str]) -> np.ndarray:
        """The vectors of `texts` (float32, one row each, in order), encoding only the ones not kept."""
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        found = self._kept(texts)
        return np.stack([found[t] for t in texts])

    def _kept(self, texts: Sequence[str]) -> dict[str, np.ndarray]:
        """Text -> its read-only vector, for each distinct text; the missing ones encoded in one call."""
        found: dict[str, np.ndarray] = {}
        with self._lock:
            for t in texts:
                v = self._table.get(t)
                if v is not None:
                    self._table.move_to_end(t)
                    found[t] = v
        missing = [t for t in dict.fromkeys(texts) if t not in found]
        if missing:
            encoded = np.asarray(self._encode(missing), dtype=np.float32)
            for t, v in zip(missing, encoded, strict=True):
                v.flags.writeable = False
                found[t] = v
            with self._lock:
                for t in missing:
                    self._table[t] = found[t]
                    self._table.move_to_end(t)
                while len(self._table) > self.maxsize:
                    self._table.popitem(last=False)
        return found
