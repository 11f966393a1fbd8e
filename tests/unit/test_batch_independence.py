"""A text's embedding and score do not depend on the texts it is batched with (int8 runs alone)."""

from __future__ import annotations

import numpy as np

from pathrag_gds.encoders import Embedder, independent_batch_size


def test_int8_runs_one_text_per_pass_fp32_keeps_batches() -> None:
    assert independent_batch_size("int8", 64) == 1
    assert independent_batch_size("fp32", 64) == 64


def test_embedding_is_the_same_alone_and_in_a_batch() -> None:
    e = Embedder.load(quantization="int8")
    x = "Bob is owned by Jane."
    others = [
        "Whiskerville is a Place.",
        "The spilled milk incident takes place in the kitchen of Bob's house on a sunny morning.",
        "Martha owns Bob's house.",
    ] * 4
    alone = e.encode([x])[0]
    batched = e.encode([*others, x], batch_size=64)[-1]
    np.testing.assert_array_equal(alone, batched)
