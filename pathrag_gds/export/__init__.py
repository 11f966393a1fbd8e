"""Export sentence-transformers models to ONNX (fp32 and int8) with a manifest. Needs torch.

Only `python -m pathrag_gds models export` imports this module; the query path never does.

Recipe (reproducible: the same versions give the same bytes, see `manifest.json` -> `export`):

1. fp32: `torch.onnx.export` (TorchScript exporter, opset 17, eager attention, traced with a padded
   batch so the attention mask stays in the graph) of the transformer; output the token embeddings
   (embedding model) or the logits (cross-encoder). Pooling/normalisation run in numpy
   (:mod:`pathrag_gds.encoders`) exactly as the sentence-transformers config says.
2. Fusion: onnxruntime's transformer optimizer (`optimize_model`, model type `bert`) fuses
   embeddings + LayerNorm, attention, bias + GELU and skip + LayerNorm, so quantization sees whole
   attention blocks.
3. int8: dynamic quantization, per-channel symmetric int8 weights, uint8 activations. The FFN
   output projections of the first two and the last layer stay fp32: they carry the largest
   activation outliers and cost most of the ranking fidelity (measured with int8 run one text per
   pass: top-1 agreement 0.917 -> 0.983 on the fidelity set, for about 2 MB and a few percent of
   speed).

Example:
    >>> from pathrag_gds.export import export_embedding
    >>> export_embedding(Path("models"))  # doctest: +SKIP
    ExportResult(...)
"""

from __future__ import annotations

from pathrag_gds.export.convert import OPSET, ffn_output_nodes, quantize_int8
from pathrag_gds.export.exporters import (
    CONFIG_FILES,
    EMBEDDING_NAME,
    SOURCE_PACKAGE,
    UPSTREAM,
    ExportResult,
    export_cross_encoder,
    export_embedding,
)
from pathrag_gds.export.manifest import sha256, verify, write_manifest
from pathrag_gds.export.tools import TRAIN_HINT, require_torch, tool_versions, torch_available

#: The tool versions a manifest records (the name the fidelity test reads).
_tool_versions = tool_versions

__all__ = [
    "CONFIG_FILES",
    "EMBEDDING_NAME",
    "OPSET",
    "SOURCE_PACKAGE",
    "TRAIN_HINT",
    "UPSTREAM",
    "ExportResult",
    "export_cross_encoder",
    "export_embedding",
    "ffn_output_nodes",
    "quantize_int8",
    "require_torch",
    "sha256",
    "tool_versions",
    "torch_available",
    "verify",
    "write_manifest",
]
