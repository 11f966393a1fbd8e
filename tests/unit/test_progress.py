"""Progress bars (one library, rate and ETA, no `%/s`) and the quiet-by-default logging (issue 53)."""

from __future__ import annotations

import ast
import io
import logging
from collections.abc import Iterator
from contextlib import redirect_stderr
from typing import Any, ClassVar

import pytest

from pathrag_gds import indexing, warmup
from pathrag_gds.config import PACKAGE_DIR, Settings
from pathrag_gds.progress import bar, quiet, set_share


def test_one_progress_library_and_only_through_pathrag_gds_progress() -> None:
    offenders = []
    for path in PACKAGE_DIR.rglob("*.py"):
        if path.name == "progress.py" and path.parent == PACKAGE_DIR:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            offenders += [f"{path.name}: {n}" for n in names if n.startswith(("tqdm", "rich.progress"))]
    assert offenders == []


def test_a_count_bar_shows_its_rate_and_time_left() -> None:
    err = io.StringIO()
    with redirect_stderr(err), bar(10, "write rows", "row") as b:
        for _ in range(10):
            b.update(1)
    last = err.getvalue().split("\r")[-1]
    assert "10/10" in last and "row/s" in last and "<" in last, last


class _FakeGraph:
    settings = Settings()


def test_the_vector_index_bar_shows_a_share_and_eta_never_a_percent_rate(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    base = {"type": "VECTOR", "labelsOrTypes": ["Entity"], "properties": ["embedding"], "dimensions": 384}
    states: Iterator[dict[str, Any]] = iter(
        [
            {**base, "state": "POPULATING", "populationPercent": 0.0},
            {**base, "state": "POPULATING", "populationPercent": 37.5},
            {**base, "state": "POPULATING", "populationPercent": 80.0},
            {**base, "state": "ONLINE", "populationPercent": 100.0},
        ]
    )
    monkeypatch.setattr(indexing, "vector_index_state", lambda _g, _n: next(states))
    monkeypatch.setattr(indexing.time, "sleep", lambda _s: None)
    state = indexing.ensure_vector_index(_FakeGraph(), 384)  # type: ignore[arg-type]
    assert state["state"] == "ONLINE"
    err = capsys.readouterr().err
    assert "vector index pathrag_entity_embedding: 100%" in err and "%/s" not in err and "<" in err, err


def test_set_share_moves_by_updates() -> None:
    with redirect_stderr(io.StringIO()), bar(100.0, "index", "%", percent=True) as b:
        set_share(b, 40.0)
        set_share(b, 30.0)  # a share never goes back
        set_share(b, 250.0)
        assert b.n == 100.0


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


@pytest.fixture
def records() -> Iterator[_Records]:
    root = logging.getLogger()
    handler, level = _Records(), root.level
    root.addHandler(handler)
    root.setLevel(logging.WARNING)
    yield handler
    root.removeHandler(handler)
    root.setLevel(level)


def test_quiet_hides_warnings_unless_verbose(records: _Records) -> None:
    with quiet("", "onnxruntime"):
        logging.warning("Please consider to run pre-processing before quantization.")
    assert records.messages == [] and logging.getLogger().level == logging.WARNING
    logging.getLogger().setLevel(logging.INFO)  # -v
    with quiet(""):
        logging.warning("shown with -v")
    assert records.messages == ["shown with -v"]


def test_warm_up_keeps_a_hint_per_community_for_verbose(
    monkeypatch: pytest.MonkeyPatch, records: _Records
) -> None:
    class Info:
        communities: ClassVar[dict[str, dict[str, int]]] = {"a": {"size": 3}, "b": {"size": 2}}

    def warm(_graph: Any, _service: Any, cid: str, scoped: bool = True) -> int:
        logging.getLogger("pathrag_gds.chain_model").warning("community %r has no chain model", cid)
        return 1

    monkeypatch.setattr(warmup, "read_graph_info", lambda _g, _s: Info())
    monkeypatch.setattr(warmup, "_service", lambda _g, _s: None)
    monkeypatch.setattr(warmup, "_warm_community", warm)
    settings = Settings(chain_planning=False)
    assert warmup.warm_up(None, settings).communities == ["a", "b"]  # type: ignore[arg-type]
    assert records.messages == [], "db start: no warning per community"
    logging.getLogger().setLevel(logging.INFO)
    warmup.warm_up(None, settings)  # type: ignore[arg-type]
    # -v shows them: one a community (the question with no community given says the first again)
    assert set(records.messages) == {"community 'a' has no chain model", "community 'b' has no chain model"}
