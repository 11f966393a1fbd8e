"""The path explorer page: `GET /ui` and its static files, under a strict Content-Security-Policy.

The page is static (HTML, one script, one style sheet, Cytoscape.js vendored under `static/vendor/`,
no build step); it calls the API from the browser with the bearer token the user types, kept in the
tab's session storage. Serving it needs no token: it holds no data and no secret.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import Response

from pathrag_gds.api.errors import ApiError

STATIC_DIR = Path(__file__).with_name("static")

#: Nothing inline, nothing from elsewhere: scripts, styles, images and API calls from this origin only.
CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)

#: The page's own files (revalidated on each load, so an upgrade shows at once).
PAGE_FILES = {
    "explorer.html": "text/html; charset=utf-8",
    "explorer.js": "text/javascript; charset=utf-8",
    "explorer.css": "text/css; charset=utf-8",
    "favicon.svg": "image/svg+xml",
}
#: Vendored libraries: versioned names, so browsers may keep them.
VENDOR_FILES = {
    "cytoscape-3.35.0.min.js": "text/javascript; charset=utf-8",
    "cytoscape-LICENSE.txt": "text/plain; charset=utf-8",
}

router = APIRouter(include_in_schema=False)


@cache
def static_file(name: str) -> bytes:
    """The bytes of a file of `static/` (read once)."""
    return (STATIC_DIR / name).read_bytes()


def page_weight() -> dict[str, int]:
    """Bytes the browser loads for the page (the licence text is not loaded), by file."""
    names = [n for n in PAGE_FILES] + [f"vendor/{n}" for n in VENDOR_FILES if n.endswith(".js")]
    return {name: len(static_file(name)) for name in names}


def _respond(name: str, media_type: str, cache_control: str) -> Response:
    return Response(
        static_file(name),
        media_type=media_type,
        headers={
            "Content-Security-Policy": CONTENT_SECURITY_POLICY,
            "X-Content-Type-Options": "nosniff",
            "Referrer-Policy": "no-referrer",
            "X-Frame-Options": "DENY",
            "Cache-Control": cache_control,
        },
    )


def _not_found(path: str) -> ApiError:
    return ApiError(404, "not_found", f"no such file {path}: the explorer page is at /ui")


@router.api_route("/ui", methods=["GET", "HEAD"])
async def explorer_page() -> Response:
    """The explorer page."""
    return _respond("explorer.html", PAGE_FILES["explorer.html"], "no-cache")


@router.api_route("/ui/static/{name}", methods=["GET", "HEAD"])
async def explorer_file(name: str) -> Response:
    """A file of the page (only the listed ones: no path is ever built from the request)."""
    if name == "explorer.html" or name not in PAGE_FILES:
        raise _not_found(f"/ui/static/{name}")
    return _respond(name, PAGE_FILES[name], "no-cache")


@router.api_route("/ui/static/vendor/{name}", methods=["GET", "HEAD"])
async def explorer_vendor_file(name: str) -> Response:
    """A vendored library or its licence."""
    if name not in VENDOR_FILES:
        raise _not_found(f"/ui/static/vendor/{name}")
    return _respond(f"vendor/{name}", VENDOR_FILES[name], "public, max-age=31536000, immutable")
