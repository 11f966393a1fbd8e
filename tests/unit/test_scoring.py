import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from model_fixtures import COMMITTED

from pathrag_gds.config import Settings
from pathrag_gds.encoders import Embedder
from pathrag_gds.errors import InvalidInput, ModelError
from pathrag_gds.scoring import BiEncoderScorer, CrossEncoderScorer, QuestionScorer, get_scorer, reset_scorers


@pytest.fixture(scope="module")
def bi() -> BiEncoderScorer:
    return BiEncoderScorer(Embedder.load(threads=2))


def test_question_scorer_never_scores_a_text_twice() -> None:
    seen: list[str] = []

    def fn(texts: list[str]) -> list[float]:
        seen.extend(texts)
        return [float(len(t)) for t in texts]

    qs = QuestionScorer("q", fn)
    assert qs.score(["aa", "b", "aa"]) == [2.0, 1.0, 2.0]
    assert qs.score(["b", "ccc"]) == [1.0, 3.0]
    assert qs.score([]) == []
    assert seen == ["aa", "b", "ccc"]
    assert (qs.calls, qs.texts_scored, len(qs)) == (3, 3, 3)


def test_bi_encoder_ranks_the_answer_first(bi: BiEncoderScorer) -> None:
    texts = [
        "Marie Curie won the Nobel Prize in Physics.",
        "Marie Curie was born in Warsaw.",
        "Toyota owns Lexus.",
    ]
    scores = bi.score("Where was Marie Curie born?", texts)
    assert len(scores) == 3 and all(-1.0 <= s <= 1.0 for s in scores)
    assert int(np.argmax(scores)) == 1
    assert scores[2] < min(scores[:2])


def test_bi_encoder_empty_and_bad_question(bi: BiEncoderScorer) -> None:
    assert bi.score("anything?", []) == []
    assert bi.for_question("anything?").score([]) == []
    with pytest.raises(InvalidInput, match="question is empty"):
        bi.score("  ", ["x"])


def test_for_question_matches_score_and_caches(bi: BiEncoderScorer) -> None:
    texts = ["Bob is owned by Jane.", "Jane lives in Paris.", "Bob is owned by Jane."]
    direct = bi.score("Who owns Bob?", texts)
    qs = bi.for_question("Who owns Bob?")
    np.testing.assert_allclose(qs.score(texts), direct, atol=1e-6)
    qs.score(texts[:2])
    assert qs.texts_scored == 2 and qs.calls == 2


def test_text_embeddings_cached_across_queries_with_lru() -> None:
    s = BiEncoderScorer(Embedder.load(threads=1), cache_size=2)
    s.score("q1?", ["a", "b"])
    assert (s.cache_misses, s.cache_hits) == (2, 0)
    s.score("q2?", ["a", "b"])
    assert (s.cache_misses, s.cache_hits) == (2, 2)
    s.score("q3?", ["c"])  # evicts "a" (least recently used)
    s.score("q4?", ["a"])
    assert s.cache_misses == 4


def test_get_scorer_default_is_cached_bi_encoder() -> None:
    reset_scorers()
    s = get_scorer(Settings(threads=1))
    assert isinstance(s, BiEncoderScorer) and s.name == "bi-encoder:sentences"
    assert get_scorer(Settings(threads=1)) is s


def _toy_cross_encoder(folder: Path) -> Path:
    """An ONNX 'cross-encoder' whose logit is 0.1 * (tokens of the second segment) - 1."""
    import onnx
    from onnx import TensorProto, helper

    folder.mkdir(parents=True)
    ids = helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["b", "s"])
    mask = helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["b", "s"])
    types = helper.make_tensor_value_info("token_type_ids", TensorProto.INT64, ["b", "s"])
    out = helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["b", 1])
    nodes = [
        helper.make_node("Mul", ["attention_mask", "token_type_ids"], ["m"]),
        helper.make_node("Cast", ["m"], ["mf"], to=TensorProto.FLOAT),
        helper.make_node("ReduceSum", ["mf", "axes"], ["n"], keepdims=1),
        helper.make_node("Mul", ["n", "scale"], ["ns"]),
        helper.make_node("Sub", ["ns", "one"], ["logits"]),
    ]
    inits = [
        helper.make_tensor("axes", TensorProto.INT64, [1], [1]),
        helper.make_tensor("scale", TensorProto.FLOAT, [], [0.1]),
        helper.make_tensor("one", TensorProto.FLOAT, [], [1.0]),
    ]
    graph = helper.make_graph(nodes, "toy", [ids, mask, types], [out], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.save(model, str(folder / "model_int8.onnx"))
    shutil.copyfile(COMMITTED / "tokenizer.json", folder / "tokenizer.json")
    manifest = {"kind": "cross-encoder", "max_length": 16, "num_labels": 1, "files": {}}
    (folder / "manifest.json").write_text(json.dumps(manifest))
    return folder


def test_cross_encoder_raw_sigmoid_and_truncation(tmp_path: Path) -> None:
    folder = _toy_cross_encoder(tmp_path / "toy")
    raw = CrossEncoderScorer.load(folder, activation="raw", threads=1)
    sig = CrossEncoderScorer.load(folder, threads=1)
    texts = ["paris", "paris is in france", "word " * 50]
    r = raw.score("where?", texts)
    # second segment = text tokens + [SEP]; pairs truncate longest-first at 16 tokens
    assert r[0] == pytest.approx(0.1 * 2 - 1)
    assert r[1] == pytest.approx(0.1 * 5 - 1)
    assert r[2] == pytest.approx(0.1 * (16 - 4) - 1)  # 16 minus "[CLS] where ? [SEP]": 11 text + [SEP]
    np.testing.assert_allclose(sig.score("where?", texts), 1 / (1 + np.exp(-np.array(r))), atol=1e-6)
    assert raw.score("where?", []) == []
    qs = raw.for_question("where?")
    assert qs.score(texts + texts) == pytest.approx(r + r) and qs.texts_scored == 3


def test_cross_encoder_errors(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="models export"):
        CrossEncoderScorer.load(tmp_path / "missing")
    with pytest.raises(ModelError, match="not a cross-encoder"):
        CrossEncoderScorer.load(COMMITTED)
    folder = _toy_cross_encoder(tmp_path / "toy")
    with pytest.raises(ModelError, match="--cross-encoder"):
        CrossEncoderScorer.load(folder, quantization="fp32")
    with pytest.raises(InvalidInput, match="activation"):
        CrossEncoderScorer.load(folder, activation="softmax")  # type: ignore[arg-type]
