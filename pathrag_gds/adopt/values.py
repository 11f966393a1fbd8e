"""The user's property values as the loaders store them: text cleaned, vectors and maps left out.

`adopt` copies what the search reads (a name, a description, scalar attributes) from the user's
nodes; it never refuses their data for a character the loaders refuse, it cleans the copy.

Example:
    >>> property_value([0.1] * 16) is None  # a vector (the user's own embedding): not an attribute
    True
    >>> attributes({"name": "A", "__tmp_internal_id": "x", "year": 2015}, skip={"name"})
    {'year': 2015}
    >>> node_name({"title": "Glass Harbour"}, "name", "4:x:1")
    'Glass Harbour'
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from pathrag_gds.datasets.checks import BAD_IN_NAME, BAD_IN_TEXT, is_identifier

#: Fallbacks when a node has no `name` property.
NAME_FALLBACKS = ("name", "title", "id", "entity_id")
#: Float lists at least this long are vectors (the user's own embeddings), not attributes.
VECTOR_MIN = 16


def clean(text: str, *, multiline: bool = True) -> str:
    """Text the loaders accept: characters they refuse become spaces (the user's data is kept as it is)."""
    if not multiline:
        text = " ".join(text.split())
    return (BAD_IN_TEXT if multiline else BAD_IN_NAME).sub(" ", text).strip()


def property_value(value: Any) -> Any:
    """A property value as the loaders store it, or None when it is not one (maps, vectors)."""
    if isinstance(value, str):
        return clean(value)
    if isinstance(value, bool | int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, list):
        if value and all(isinstance(v, float) for v in value) and len(value) >= VECTOR_MIN:
            return None
        items = [property_value(v) for v in value]
        kinds = {type(v) for v in items}
        return (
            items
            if None not in items and len(kinds) <= 1 and not any(isinstance(v, list) for v in items)
            else None
        )
    if hasattr(value, "iso_format") or hasattr(value, "isoformat"):  # Neo4j / Python temporal values
        return str(value)
    return None


def attributes(props: Mapping[str, Any], skip: set[str]) -> dict[str, Any]:
    """The properties that become attributes: names that are identifiers, values the loaders store."""
    out = {}
    for key, raw in props.items():
        if key in skip or key.startswith("__") or not is_identifier(key):
            continue
        value = property_value(raw)
        if value is not None and value != "":
            out[key] = value
    return out


def node_name(props: Mapping[str, Any], name_property: str, fallback: str) -> str:
    """The node's name: `name_property`, else the first of :data:`NAME_FALLBACKS`, else `fallback`."""
    for key in (name_property, *NAME_FALLBACKS):
        value = props.get(key)
        if isinstance(value, str | int | float) and clean(str(value), multiline=False):
            return clean(str(value), multiline=False)
    return fallback
