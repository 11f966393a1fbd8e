"""Averaging ONNX models of one export (a soup of chain scorers): weights averaged, the rest checked."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from pathrag_gds.errors import ModelError
from pathrag_gds.training.chain_soup import average_onnx


def _model(path: Path, weight: list[float], shape: list[int] | None = None) -> Path:
    w = numpy_helper.from_array(np.asarray(weight, np.float32).reshape(shape or [2, 1]), "w")
    axes = numpy_helper.from_array(np.asarray([0], np.int64), "axes")
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["y"])],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 1])],
        [w, axes],
    )
    onnx.save(helper.make_model(graph), str(path))
    return path


def _weights(path: Path) -> dict[str, np.ndarray]:
    return {i.name: numpy_helper.to_array(i) for i in onnx.load(str(path)).graph.initializer}


def test_the_soup_is_the_mean_of_the_weights_that_differ(tmp_path: Path) -> None:
    a = _model(tmp_path / "a.onnx", [1.0, 2.0])
    b = _model(tmp_path / "b.onnx", [3.0, 6.0])
    c = _model(tmp_path / "c.onnx", [2.0, 1.0])
    assert average_onnx([a, b, c], tmp_path / "soup.onnx") == 1
    out = _weights(tmp_path / "soup.onnx")
    assert out["w"].ravel().tolist() == pytest.approx([2.0, 3.0])
    assert out["axes"].tolist() == [0] and out["axes"].dtype == np.int64


def test_models_of_another_graph_are_refused_with_the_folder(tmp_path: Path) -> None:
    a = _model(tmp_path / "a.onnx", [1.0, 2.0])
    wide = _model(tmp_path / "wide.onnx", [1.0, 2.0, 3.0, 4.0], [2, 2])
    with pytest.raises(ModelError, match=r"wide\.onnx: not a run of the same export"):
        average_onnx([a, wide], tmp_path / "soup.onnx")
    assert not (tmp_path / "soup.onnx").exists()


def test_the_tune_command_refuses_an_ensemble_of_one_model_and_of_cross_encoders(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from pathrag_gds.cli import main

    assert main(["tune", "--community", "people", "--seeds", "1", "--ensemble"]) == 2
    assert "give --seeds 2 or more" in capsys.readouterr().err
    assert main(["tune", "--community", "people", "--model", "paths", "--seeds", "2", "--ensemble"]) == 2
    assert "--ensemble is for the chain model" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "seeds", "soup"),
    [([], 3, True), (["--seeds", "1"], 1, True), (["--seeds", "2", "--ensemble"], 2, False)],
)
def test_plain_tune_builds_a_soup_of_three_chain_models(
    argv: list[str], seeds: int, soup: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The default build is the one the docs measure: three runs averaged, not one draw."""
    from pathrag_gds.cli import main
    from pathrag_gds.errors import InvalidInput
    from pathrag_gds.training import chain_tune

    seen: list[chain_tune.ChainTuneOptions] = []

    def capture(options: chain_tune.ChainTuneOptions, *_: object, **__: object) -> None:
        seen.append(options)
        raise InvalidInput("stop before any training")

    monkeypatch.setattr(chain_tune, "tune_chains", capture)
    assert main(["tune", "--community", "people", *argv]) == 2
    assert (seen[0].seeds, seen[0].soup) == (seeds, soup)


def test_a_model_file_written_again_is_loaded_again(tmp_path: Path) -> None:
    """The soup replaces the first run's files in place: a process that loaded them must not reuse them."""
    from pathrag_gds.backend.session import get_session

    path = tmp_path / "m.onnx"
    x = np.asarray([[1.0, 1.0]], np.float32)
    _model(path, [1.0, 2.0])
    assert get_session(path, 1).run(None, {"x": x})[0].tolist() == [[3.0]]
    _model(tmp_path / "next.onnx", [3.0, 6.0]).replace(path)
    assert get_session(path, 1).run(None, {"x": x})[0].tolist() == [[9.0]]
