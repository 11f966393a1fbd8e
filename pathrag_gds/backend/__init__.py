"""The ONNX backend of the encoders and scorers: model folders, sessions, batching, pooling.

Modules: `model_folder` (files, JSON, tokenizer, quantization and thread knobs), `session` (one shared
onnxruntime session per file), `batching` (checks, length-sorted batches, padding), `pooling`
(sentence-transformers' pooling and normalisation in numpy).
"""
