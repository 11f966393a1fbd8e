"""ONNX Runtime session options for the int8 embedder, interleaved in one run: threads, spinning,
graph optimisation level, batch size, at sentence length (~14 tokens) and path-text length (~128).

Every configuration is its own session on the same model file; each round times every
configuration once (round robin), and the median of `--rounds` rounds is reported, so the
configurations share the machine's load.

    .venv/bin/python scripts/bench_ort_options.py
    .venv/bin/python scripts/bench_ort_options.py --json
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from collections.abc import Sequence

import onnxruntime as ort
from bench_encoders import make_texts
from tokenizers import Encoding

from pathrag_gds.backend.batching import length_sorted_batches, pad_batch
from pathrag_gds.encoders import Embedder

LEVELS = {
    "all": ort.GraphOptimizationLevel.ORT_ENABLE_ALL,
    "basic": ort.GraphOptimizationLevel.ORT_ENABLE_BASIC,
}


def session(path: str, threads: int, spin: bool, level: str) -> ort.InferenceSession:
    """A session with the given intra-op threads, spinning and optimisation level (sequential)."""
    o = ort.SessionOptions()
    o.graph_optimization_level = LEVELS[level]
    o.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    o.intra_op_num_threads = threads
    o.inter_op_num_threads = 1
    o.log_severity_level = 3
    o.add_session_config_entry("session.intra_op.allow_spinning", "1" if spin else "0")
    return ort.InferenceSession(path, o, providers=["CPUExecutionProvider"])


def run(sess: ort.InferenceSession, encodings: Sequence[Encoding], batch_size: int) -> None:
    """Encode every text once, in length-sorted batches."""
    for idx in length_sorted_batches([len(e.ids) for e in encodings], batch_size):
        ids, mask, types = pad_batch([encodings[i] for i in idx])
        sess.run(None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": types})


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    emb = Embedder.load(quantization="int8", threads=1)
    path = str(emb.model_path)
    configs = {
        "t1": session(path, 1, True, "all"),
        "t2 spin": session(path, 2, True, "all"),
        "t2 no-spin": session(path, 2, False, "all"),
        "t2 no-spin basic-opt": session(path, 2, False, "basic"),
    }
    data = {
        "~14 tok": emb.tokenize(make_texts(emb, 14, 256)),
        "~128 tok": emb.tokenize(make_texts(emb, 128, 64)),
    }
    plan = [
        (c, k, bs) for c in configs for k in data for bs in (8, 32, 128) if not (k == "~128 tok" and bs != 32)
    ]
    for sess in configs.values():
        run(sess, data["~14 tok"][:16], 16)
    rates: dict[str, list[float]] = {}
    for _ in range(args.rounds):
        for c, k, bs in plan:
            t0 = time.perf_counter()
            run(configs[c], data[k], bs)
            rates.setdefault(f"{c} | {k} | batch {bs}", []).append(len(data[k]) / (time.perf_counter() - t0))
    summary = {
        "nproc": os.cpu_count(),
        "load_avg": [round(x, 2) for x in os.getloadavg()],
        "texts_per_s": {k: round(statistics.median(v), 1) for k, v in rates.items()},
    }
    if args.json:
        print(json.dumps(summary))
        return 0
    print(f"nproc {summary['nproc']}, load average {summary['load_avg']}, median of {args.rounds} rounds")
    print("| session | length | batch | texts/s |\n|---|---|---|---|")
    for k, v in summary["texts_per_s"].items():
        c, length, batch = k.split(" | ")
        print(f"| {c} | {length} | {batch.split()[1]} | {v} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
