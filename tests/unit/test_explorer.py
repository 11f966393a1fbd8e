"""The explorer page's files and headers, without a database or a browser."""

from __future__ import annotations

import hashlib
import re
from html.parser import HTMLParser

import pytest
from fastapi.testclient import TestClient

from pathrag_gds.api import create_app
from pathrag_gds.api.explorer import (
    CONTENT_SECURITY_POLICY,
    PAGE_FILES,
    STATIC_DIR,
    VENDOR_FILES,
    page_weight,
)
from pathrag_gds.config import Settings


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
