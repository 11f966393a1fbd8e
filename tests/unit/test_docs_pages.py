"""Issue 53: /docs and /redoc reference no outside host, and every asset they load answers 200 from
the server (no database: warm-up off, the docs never call the service). The pages in Chromium with
every outside host unresolvable: tests/integration/test_docs_browser.py."""

from __future__ import annotations

import logging
import re
from html.parser import HTMLParser

import pytest
from fastapi.testclient import TestClient

from pathrag_gds.api import create_app, docs_pages
from pathrag_gds.config import Settings

SETTINGS = Settings(neo4j_uri="bolt://127.0.0.1:1", external_db=True, api_token="t" * 20)


class _Refs(HTMLParser):
    """Every URL a page's tags load (src, href)."""

    def __init__(self) -> None:
        super().__init__()
        self.refs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.refs += [v for k, v in attrs if k in ("src", "href") and v]


@pytest.fixture(scope="module")
def client() -> TestClient:
    return TestClient(create_app(SETTINGS, warm_up=False), base_url="http://127.0.0.1")


@pytest.mark.parametrize(("page", "assets"), [("/docs", 3), ("/redoc", 2)])
def test_docs_pages_load_only_what_the_server_serves(client: TestClient, page: str, assets: int) -> None:
    r = client.get(page)
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    assert not re.search(r"https?://|//[a-z0-9.-]+\.[a-z]{2,}/", r.text, flags=re.I), r.text  # no other host
    if page == "/docs":  # Swagger UI would show a badge from validator.swagger.io
        assert '"validatorUrl": null' in r.text
    policy = r.headers["content-security-policy"]
    assert "default-src 'self'" in policy and "http" not in policy
    refs = _Refs()
    refs.feed(r.text)
    assert len(refs.refs) == assets and all(ref.startswith("/") for ref in refs.refs), refs.refs
    for ref in refs.refs:
        asset = client.get(ref)
        assert asset.status_code == 200, ref
        assert asset.headers["content-type"].split(";")[0] in ("text/javascript", "text/css", "image/svg+xml")
        assert len(asset.content) > (100 if ref.endswith(".svg") else 100_000), ref
    assert client.get("/openapi.json").json()["info"]["title"] == "pathrag_gds"


def test_the_assets_are_swagger_ui_and_redoc_from_the_pinned_package() -> None:
    assert docs_pages.assets_installed()
    assert b"SwaggerUIBundle" in (docs_pages.asset("swagger-ui-bundle.js") or b"")
    assert b".swagger-ui" in (docs_pages.asset("swagger-ui.css") or b"")
    assert b"Redoc" in (docs_pages.asset("redoc.standalone.js") or b"")


@pytest.mark.parametrize(
    "path", ["/docs/static/nope.js", "/docs/static/..%2Fapp.py", "/docs/static/__init__.py"]
)
def test_only_the_listed_assets_are_served(client: TestClient, path: str) -> None:
    r = client.get(path)
    assert r.status_code == 404 and r.json()["error"]["code"] == "not_found", r.text


def test_without_the_asset_package_the_cdn_pages_stand_in_with_a_warning(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(docs_pages, "assets_installed", lambda: False)
    with caplog.at_level(logging.WARNING, logger=docs_pages.__name__):
        client = TestClient(create_app(SETTINGS, warm_up=False), base_url="http://127.0.0.1")
    assert "fastapi-offline is not installed" in caplog.text
    assert client.get("/docs").status_code == 200 and "cdn" in client.get("/docs").text
    assert client.get("/docs/static/swagger-ui.css").status_code == 404
