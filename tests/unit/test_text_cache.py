"""The query-side vector table: encodes each text once, keeps the most recent, same vectors."""

from __future__ import annotations

import threading
from collections.abc import Sequence

import numpy as np
import pytest

from pathrag_gds.backend.text_cache import TextVectorCache


class Counting:
    """An encoder whose vector of a text is fixed by the text, counting what it was asked."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        self.asked.extend(texts)
        return np.asarray([[len(t), ord(t[0])] for t in texts], dtype=np.float32)


def test_each_text_is_encoded_once_and_rows_follow_the_order_asked() -> None:
    enc = Counting()
    cache = TextVectorCache(enc, maxsize=10)
    first = cache.vectors(["who", "owns", "who"])
    again = cache.vectors(["owns", "who"])
    assert enc.asked == ["who", "owns"]
    np.testing.assert_array_equal(first, enc(["who", "owns", "who"]))
    np.testing.assert_array_equal(again, first[[1, 0]])


def test_the_least_recently_used_text_goes_first() -> None:
    enc = Counting()
    cache = TextVectorCache(enc, maxsize=2)
    cache.vectors(["a", "b"])
    cache.vectors(["a"])  # "a" used again: "b" is now the oldest
    cache.vectors(["c"])
    assert len(cache) == 2
    enc.asked.clear()
    cache.vectors(["a", "b", "c"])
    assert enc.asked == ["b"]


def test_nothing_kept_at_maxsize_zero_and_a_negative_size_refused() -> None:
    enc = Counting()
    cache = TextVectorCache(enc, maxsize=0)
    cache.vectors(["a"])
    cache.vectors(["a"])
    assert enc.asked == ["a", "a"] and len(cache) == 0
    with pytest.raises(ValueError, match="maxsize"):
        TextVectorCache(enc, maxsize=-1)


def test_kept_vectors_cannot_be_changed_by_a_caller() -> None:
    cache = TextVectorCache(Counting())
    cache.vectors(["a"])[0][0] = 99.0  # the stacked copy may change ...
    assert cache.vectors(["a"])[0][0] == 1.0  # ... the kept row does not


def test_threads_asking_at_once_get_the_same_vectors() -> None:
    enc = Counting()
    cache = TextVectorCache(enc, maxsize=50)
    texts = [f"t{i}" for i in range(40)]
    out: list[np.ndarray] = []

    def ask() -> None:
        out.append(cache.vectors(texts))

    threads = [threading.Thread(target=ask) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for got in out:
        np.testing.assert_array_equal(got, enc(texts))
    assert len(cache) == 40


def test_one_kept_vector_is_shared_read_only() -> None:
    cache = TextVectorCache(Counting())
    v = cache.vector("abc")
    assert cache.vector("abc") is v
    with pytest.raises(ValueError):
        v[0] = 1.0
