"""The explorer page's files and headers, without a database or a browser."""

from __future__ import annotations

import hashlib
import re
from html.parser import HTMLParser

import pytest
from fastapi.testclient import TestClient

from pathrag_gds.api import create_app
from pathrag_gds.api.examples import MAX_EXAMPLES, community_examples, pick_questions
from pathrag_gds.api.explorer import (
    CONTENT_SECURITY_POLICY,
    PAGE_FILES,
    STATIC_DIR,
    VENDOR_FILES,
    page_weight,
)
from pathrag_gds.api.info import mode_infos, query_defaults
from pathrag_gds.api.requests import NO_HOPS, QueryOptions, resolve
from pathrag_gds.config import Settings
from pathrag_gds.datasets.bob_suite import load_suite
from pathrag_gds.modes import MODES
from pathrag_gds.ontology import Ontology, RelationType


class _Tags(HTMLParser):
    """Every start tag with its attributes, and the text inside <script> and <style>."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.inline: list[str] = []
        self._open: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        self._open = tag

    def handle_endtag(self, tag: str) -> None:
        self._open = None

    def handle_data(self, data: str) -> None:
        if self._open in ("script", "style") and data.strip():
            self.inline.append(data)


def _page() -> _Tags:
    tags = _Tags()
    tags.feed((STATIC_DIR / "explorer.html").read_text(encoding="utf-8"))
    return tags


def test_page_has_nothing_inline_and_loads_only_served_files() -> None:
    page = _page()
    assert page.inline == []
    assert not any(tag == "style" for tag, _ in page.tags)
    for tag, attrs in page.tags:
        assert "style" not in attrs, tag
        assert not [a for a in attrs if a.startswith("on")], (tag, attrs)
    served = {f"/ui/static/{n}" for n in PAGE_FILES if n != "explorer.html"}
    served |= {f"/ui/static/vendor/{n}" for n in VENDOR_FILES}
    loaded = [a.get("src") or a.get("href") for t, a in page.tags if t in ("script", "link")]
    assert loaded and set(loaded) <= served, loaded
    assert {f"/ui/static/vendor/{n}" for n in VENDOR_FILES if n.endswith(".js")} <= set(loaded)


def test_vendored_cytoscape_matches_its_readme_and_licence() -> None:
    readme = (STATIC_DIR / "vendor" / "README.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `([^`]+)` .*\| `([0-9a-f]{64})` \|$", readme, flags=re.M)
    assert rows and {name for name, _ in rows} == {n for n in VENDOR_FILES if n.endswith(".js")}
    for name, sha in rows:
        assert hashlib.sha256((STATIC_DIR / "vendor" / name).read_bytes()).hexdigest() == sha, name
    licence = (STATIC_DIR / "vendor" / "cytoscape-LICENSE.txt").read_text(encoding="utf-8")
    assert "Cytoscape Consortium" in licence and "Permission is hereby granted" in licence


@pytest.fixture(scope="module")
def client() -> TestClient:
    # no database is touched: warm-up off, and the page's routes never call the service
    settings = Settings(neo4j_uri="bolt://127.0.0.1:1", external_db=True, api_token="t" * 20)
    return TestClient(create_app(settings, warm_up=False), base_url="http://127.0.0.1")


def test_page_and_files_are_served_with_a_strict_policy_and_no_token(client: TestClient) -> None:
    for path, kind in [
        ("/ui", "text/html"),
        ("/ui/static/explorer.js", "text/javascript"),
        ("/ui/static/explorer.css", "text/css"),
        ("/ui/static/vendor/cytoscape-3.35.0.min.js", "text/javascript"),
    ]:
        r = client.get(path)
        assert r.status_code == 200, (path, r.text)
        assert r.headers["content-type"].startswith(kind)
        assert r.headers["content-security-policy"] == CONTENT_SECURITY_POLICY
        assert r.headers["x-content-type-options"] == "nosniff"
    assert "'unsafe-inline'" not in CONTENT_SECURITY_POLICY and "'unsafe-eval'" not in CONTENT_SECURITY_POLICY
    assert "immutable" in client.get("/ui/static/vendor/cytoscape-3.35.0.min.js").headers["cache-control"]
    assert client.get("/ui").headers["cache-control"] == "no-cache"
    assert client.get("/v1/info").status_code == 401  # the API behind it still wants the token


@pytest.mark.parametrize(
    "path",
    [
        "/ui/static/explorer.html",
        "/ui/static/nope.js",
        "/ui/static/..%2Fexplorer.py",
        "/ui/static/vendor/README.md",
        "/ui/static/vendor/..%2F..%2Fapp.py",
    ],
)
def test_only_listed_files_are_served(client: TestClient, path: str) -> None:
    r = client.get(path)
    assert r.status_code == 404 and r.json()["error"]["code"] in ("not_found", "http_error"), r.text


def test_page_weight_counts_what_the_browser_loads() -> None:
    weight = page_weight()
    assert set(weight) == {"explorer.html", "explorer.js", "explorer.css", "favicon.svg"} | {
        f"vendor/{n}" for n in VENDOR_FILES if n.endswith(".js")
    }
    vendored = STATIC_DIR / "vendor" / "cytoscape-3.35.0.min.js"
    assert weight["vendor/cytoscape-3.35.0.min.js"] == vendored.stat().st_size > 100_000


# --- what the page reads from the server: defaults, modes, example questions ------------------------


def test_page_offers_every_mode_and_takes_the_depth_from_the_server() -> None:
    tags = _page().tags
    options = [a["value"] for t, a in tags if t == "option"]
    assert options == list(MODES)
    [hops] = [a for t, a in tags if t == "input" and a.get("id") == "hop-depth"]
    assert "value" not in hops  # filled from /v1/info's defaults, never a number of the page's own


def test_info_defaults_are_what_a_question_without_options_runs_with() -> None:
    for settings in (Settings(), Settings(max_depth=3), Settings(max_depth=9, api_max_hop_depth=4)):
        eff = resolve(settings, QueryOptions())
        assert query_defaults(settings).model_dump() == {
            "mode": eff.mode,
            "hop_depth": eff.hop_depth,
            "top_n": eff.top_n,
            "seed_n": eff.seed_n,
        }
    modes = mode_infos()
    assert [m.name for m in modes] == list(MODES) and all(m.description for m in modes)
    assert [m.name for m in modes if not m.uses_hop_depth] == list(NO_HOPS)


def test_info_is_typed_in_the_schema(client: TestClient) -> None:
    schema = client.app.openapi()  # type: ignore[attr-defined]
    ref = schema["paths"]["/v1/info"]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
    assert ref == {"$ref": "#/components/schemas/InfoOut"}
    info = schema["components"]["schemas"]["InfoOut"]
    assert {"defaults", "modes", "limits", "graph"} <= set(info["required"])
    assert set(schema["components"]["schemas"]["QueryDefaults"]["properties"]) == {
        "mode",
        "hop_depth",
        "top_n",
        "seed_n",
    }
    examples = schema["paths"]["/v1/communities/{community_id}/examples"]["get"]
    assert examples["responses"]["200"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/ExamplesOut"
    }


def test_demo_examples_come_from_its_eval_file_and_hold_its_village_question() -> None:
    suite = load_suite()
    assert suite.community_id == "DefaultCommunity_FictionalStories"
    out = community_examples(_NoGraph(), Ontology("x"), suite.community_id)  # type: ignore[arg-type]
    assert out.source == "eval" and 1 < len(out.questions) <= MAX_EXAMPLES
    spec = {q.query for q in suite.queries}
    assert set(out.questions) <= spec
    assert "In which village was Bob when the milk was spilled?" in out.questions


def test_pick_questions_spreads_over_path_lengths() -> None:
    qs = [("a0", 0), ("b0", 0), ("c1", 1), ("d2", 2), ("e3", 3), ("f4", 4), ("g", None)]
    assert pick_questions(qs, 4) == ["b0", "c1", "d2", "f4"]
    assert pick_questions(qs, 8) == ["b0", "c1", "d2", "e3", "f4", "a0", "g"]
    assert pick_questions([("x", None), ("y", None)], 1) == ["x"]


class _NoGraph:
    """A graph that must not be read (the community has an evaluation file)."""

    def read(self, *args: object, **kwargs: object) -> list[dict[str, object]]:
        raise AssertionError("read the graph for a community with an evaluation file")


class _Graph:
    """The rows `api_examples.cypher` would return, and the parameters it was given."""

    def __init__(self, rows: list[dict[str, object]]) -> None:
        self.rows = rows
        self.settings = Settings()
        self.calls: list[tuple[str, dict[str, object]]] = []

    def read(self, name: str, **params: object) -> list[dict[str, object]]:
        self.calls.append((name, params))
        return self.rows


def test_other_communities_get_questions_written_from_their_edges() -> None:
    onto = Ontology(
        "o",
        relation_types=(
            RelationType("OWNS", "owns", "is owned by"),
            RelationType("LOCATED_IN", "is located in", "is the location of"),
        ),
    )
    graph = _Graph(
        [
            {"type": "OWNS", "source_labels": ["Adopted__Person"], "target": "Bob the Cat"},
            {"type": "LOCATED_IN", "source_labels": [], "target": "Whiskerville"},
            {"type": "OWNS", "source_labels": ["Person"], "target": ""},
        ]
    )
    out = community_examples(graph, onto, "Somewhere_Else")  # type: ignore[arg-type]
    assert out.model_dump() == {
        "community_id": "Somewhere_Else",
        "source": "graph",
        "questions": ["Which Person owns Bob the Cat?", "Which entity is located in Whiskerville?"],
    }
    [(name, params)] = graph.calls
    assert name == "api_examples" and params["types"] == ["OWNS", "LOCATED_IN"]
    assert params["community_id"] == "Somewhere_Else" and params["limit"] == 2
    assert community_examples(_Graph([]), onto, "Empty").source == "none"  # type: ignore[arg-type]
    assert community_examples(_NoGraph(), Ontology("none"), "Bare").questions == []  # type: ignore[arg-type]
