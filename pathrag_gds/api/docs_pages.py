"""The API docs, Swagger UI at `/docs` and Redoc at `/redoc`, with every asset served from here.

FastAPI's own pages load Swagger UI and Redoc from a CDN: blank on a machine without internet.
These load them from `/docs/static/`, which serves the dist files that the `fastapi-offline` package
carries (pinned in the `server` extra: Swagger UI 5, Redoc 2; MIT, their licences in that
package). Swagger UI's online validator badge is off, Redoc asks for no web fonts, the favicon is
the explorer's, and a Content-Security-Policy lets the pages load nothing from another origin
(Redoc's own "API docs by Redocly" footer asks cdn.redoc.ly for its logo: refused, and Redoc then
hides it).
Without `fastapi-offline` installed the server falls back to FastAPI's CDN pages and logs a warning.
"""

from __future__ import annotations

import logging
from functools import cache
from importlib import resources

from fastapi import FastAPI, Request
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from fastapi.responses import HTMLResponse, Response

from pathrag_gds.api.errors import ApiError

log = logging.getLogger(__name__)

#: The package that carries the dist files, and the files the pages load from it.
ASSET_PACKAGE = "fastapi_offline"
ASSETS = {
    "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
    "swagger-ui.css": "text/css; charset=utf-8",
    "redoc.standalone.js": "text/javascript; charset=utf-8",
}
ASSET_PATH = "/docs/static"
FAVICON = "/ui/static/favicon.svg"

#: Same origin only. Swagger UI's start-up script and Redoc's styles are inline; Swagger UI draws
#: its icons from data: URLs and Redoc runs its search in a blob: worker.
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; font-src 'self' data:; worker-src 'self' blob:; connect-src 'self'; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)


@cache
def asset(name: str) -> bytes | None:
    """The bytes of one dist file (read once); None when `fastapi-offline` is not installed."""
    try:
        return (resources.files(ASSET_PACKAGE) / "static" / name).read_bytes()
    except (ModuleNotFoundError, FileNotFoundError):
        return None


def assets_installed() -> bool:
    """True when every dist file the pages load is there."""
    return all(asset(name) is not None for name in ASSETS)


def _page(response: HTMLResponse) -> HTMLResponse:
    response.headers["Content-Security-Policy"] = CONTENT_SECURITY_POLICY
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Cache-Control"] = "no-cache"
    return response


def offline_docs() -> bool:
    """True when the docs assets are installed; else a warning that FastAPI's CDN pages stand in."""
    if assets_installed():
        return True
    log.warning(
        "fastapi-offline is not installed: /docs and /redoc load Swagger UI and Redoc from a CDN "
        "(blank without internet); `pip install 'pathrag_gds[server]'` serves them from here"
    )
    return False


def install_docs(app: FastAPI, docs_url: str = "/docs", redoc_url: str = "/redoc") -> None:
    """Add `/docs`, `/redoc` and their assets to an app made with `docs_url=None, redoc_url=None`.

    Nothing happens when the app has FastAPI's own pages (:func:`offline_docs` was False).
    """
    if app.docs_url is not None or app.redoc_url is not None:
        return  # FastAPI's own pages (fastapi-offline is missing)
    openapi_url = app.openapi_url or "/openapi.json"

    @app.get(docs_url, include_in_schema=False)
    async def swagger_ui(request: Request) -> HTMLResponse:
        root = request.scope.get("root_path", "")
        return _page(
            get_swagger_ui_html(
                openapi_url=f"{root}{openapi_url}",
                title=f"{app.title} - Swagger UI",
                swagger_js_url=f"{root}{ASSET_PATH}/swagger-ui-bundle.js",
                swagger_css_url=f"{root}{ASSET_PATH}/swagger-ui.css",
                swagger_favicon_url=f"{root}{FAVICON}",
                swagger_ui_parameters={"validatorUrl": None},  # no badge from validator.swagger.io
            )
        )

    @app.get(redoc_url, include_in_schema=False)
    async def redoc(request: Request) -> HTMLResponse:
        root = request.scope.get("root_path", "")
        return _page(
            get_redoc_html(
                openapi_url=f"{root}{openapi_url}",
                title=f"{app.title} - ReDoc",
                redoc_js_url=f"{root}{ASSET_PATH}/redoc.standalone.js",
                redoc_favicon_url=f"{root}{FAVICON}",
                with_google_fonts=False,
            )
        )

    @app.api_route(ASSET_PATH + "/{name}", methods=["GET", "HEAD"], include_in_schema=False)
    async def docs_asset(name: str) -> Response:
        body = asset(name) if name in ASSETS else None  # only the listed files: no path from the request
        if body is None:
            raise ApiError(404, "not_found", f"no such file {ASSET_PATH}/{name}: the API docs are at /docs")
        return Response(
            body,
            media_type=ASSETS[name],
            headers={"Cache-Control": "public, max-age=86400", "X-Content-Type-Options": "nosniff"},
        )
