"""A soup of chain scorers: the weights of models trained on other walks, averaged into one model.

`tune` (`--seeds N`, three by default) trains N chain scorers, each on the questions its own seed
walks (as the ensemble does), then averages their fp32 ONNX weights element-wise ("model soups",
Wortsman et al. 2022) and quantizes the mean once. A short fine-tuning from one base model stays
close to it, so the runs average well; which walks one run happened to draw weighs less, and the
search still runs one model (an ensemble encodes the question once per member). Only
floating-point weights that the runs changed differ; every other initializer must be equal, else
the folders are not runs of one export and the soup is refused.

The untrained encoder can join the soup with a weight of its own (`anchor`): weight-space
ensembling of a fine-tuned model with the model it started from ("WiSE-FT", Wortsman et al. 2022)
keeps much of what the base model knew of the language (that a partner is a spouse) that a short
fine-tuning on one graph's generated phrasing trades away, at no query-time cost.

Example:
    >>> import numpy as np
    >>> mean_arrays([np.array([1.0, 2.0], np.float32), np.array([3.0, 4.0], np.float32)]).tolist()
    [2.0, 3.0]
    >>> mean_arrays([np.array([1.0], np.float32), np.array([3.0], np.float32)], [0.75, 0.25]).tolist()
    [1.5]
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from pathrag_gds.errors import ModelError

FP32 = "model_fp32.onnx"
INT8 = "model_int8.onnx"


def mean_arrays(arrays: Sequence[np.ndarray], weights: Sequence[float] | None = None) -> np.ndarray:
    """The element-wise (weighted) mean of arrays of one shape, in the first one's dtype."""
    out: np.ndarray = np.average(np.stack(arrays), axis=0, weights=weights).astype(arrays[0].dtype)
    return out


def soup_weights(runs: int, anchor: float) -> list[float]:
    """The runs' weights (equal) and, with `anchor` > 0, the anchor model's last; they sum to 1.

    Example:
        >>> soup_weights(3, 0.25)
        [0.25, 0.25, 0.25, 0.25]
        >>> soup_weights(2, 0.0)
        [0.5, 0.5]
    """
    if not 0.0 <= anchor < 1.0:
        raise ModelError(f"the anchor's weight must be in [0, 1), got {anchor}")
    share = (1.0 - anchor) / runs
    return [share] * runs + ([anchor] if anchor > 0 else [])


def average_onnx(sources: Sequence[Path], out: Path, weights: Sequence[float] | None = None) -> int:
    """Write the (weighted) mean of the ONNX models `sources` (one graph, other weights) to `out`.

    Returns:
        How many floating-point initializers differed between the runs (and were averaged).

    Raises:
        ModelError: the models do not share one graph (names, shapes or fixed values differ).
    """
    import onnx
    from onnx import numpy_helper

    models = [onnx.load(str(s)) for s in sources]
    base = models[0]
    others = [{i.name: i for i in m.graph.initializer} for m in models[1:]]
    differing = 0
    for init in base.graph.initializer:
        first = numpy_helper.to_array(init)
        arrays = [first]
        for src, inits in zip(sources[1:], others, strict=True):
            other = inits.get(init.name)
            array = None if other is None else numpy_helper.to_array(other)
            if array is None or array.shape != first.shape or array.dtype != first.dtype:
                raise ModelError(f"{src}: not a run of the same export as {sources[0]} ({init.name} differs)")
            arrays.append(array)
        if all(np.array_equal(first, a) for a in arrays[1:]):
            continue
        if first.dtype.kind != "f":
            raise ModelError(f"{sources[0]}: the runs differ in a fixed value ({init.name}); not one export")
        differing += 1
        init.CopyFrom(numpy_helper.from_array(mean_arrays(arrays, weights), init.name))
    onnx.save(base, str(out))
    return differing


def soup_folder(
    folder: Path, members: Sequence[Path], anchor: Path | None = None, anchor_weight: float = 0.0
) -> dict[str, Any]:
    """Average `folder`'s model with the `members`' into `folder` (fp32 and int8), members removed.

    With `anchor` (a folder holding the untrained encoder's fp32 export of the same graph) and
    `anchor_weight` > 0, the anchor joins the mean with that weight (:func:`soup_weights`); it is
    left in place. The runs encode no chain texts: the caller encodes them with the soup. Returns
    the manifest's new `files` entries.
    """
    import shutil

    from pathrag_gds.export.convert import quantize_int8
    from pathrag_gds.export.manifest import file_entry

    sources = [folder / FP32, *(m / FP32 for m in members)]
    weights = soup_weights(len(sources), anchor_weight if anchor is not None else 0.0)
    if anchor is not None and anchor_weight > 0:
        sources.append(anchor / FP32)
    missing = [str(s) for s in sources if not s.is_file()]
    if missing:
        raise ModelError(f"no fp32 model to average in {', '.join(missing)}; re-run the tune")
    config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    mixed = folder / f".soup-{FP32}"
    average_onnx(sources, mixed, weights)
    mixed.replace(folder / FP32)
    recipe = quantize_int8(
        folder / FP32,
        folder / INT8,
        num_heads=int(config["num_attention_heads"]),
        hidden_size=int(config["hidden_size"]),
    )
    for m in members:
        shutil.rmtree(m)
    return {
        "fp32": file_entry(folder / FP32, "fp32"),
        "int8": file_entry(folder / INT8, "int8") | {"recipe": recipe},
    }
