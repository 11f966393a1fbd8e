"""What a load refuses before writing: bad characters, invalid names, values Neo4j cannot store."""

from __future__ import annotations

import re
from typing import Any

from pathrag_gds.datasets.rows import Dataset, DatasetError

_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")

#: Refused in ids and names: control characters (Unicode Cc: C0, DEL, C1), lone surrogates (Cs) and
#: the line / paragraph separators (Zl, Zp).
_BAD_IN_NAME = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")
#: Refused in descriptions and other text: the same, except tab, line feed, carriage return and the
#: Unicode line separators.
_BAD_IN_TEXT = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")
#: The two patterns, for callers that clean text rather than refuse it (`adopt`).
BAD_IN_NAME, BAD_IN_TEXT = _BAD_IN_NAME, _BAD_IN_TEXT


def bad_character(value: str, *, multiline: bool = False) -> str | None:
    r"""Why `value` cannot be stored as an id or name (or, `multiline`, a description), else None.

    Refused: control characters (NUL, escape, ...; in names also tab and line breaks), the line
    separators U+2028 / U+2029 in names, and lone surrogates (a broken `\ud800` escape or an
    invalid UTF-8 byte read leniently).

    Example:
        >>> bad_character("Bob\x00"), bad_character("two\nlines", multiline=True)
        ('control character U+0000', None)
    """
    m = (_BAD_IN_TEXT if multiline else _BAD_IN_NAME).search(value)
    if m is None:
        return None
    code = ord(m.group())
    if 0xD800 <= code <= 0xDFFF:
        return f"lone surrogate U+{code:04X} (not valid Unicode text)"
    if code in (0x2028, 0x2029):
        return f"line separator U+{code:04X}"
    return f"control character U+{code:04X}"


def check_text(value: str, what: str, *, multiline: bool = False) -> str:
    """Return `value` if :func:`bad_character` finds nothing in it.

    Raises:
        DatasetError: naming the field and the character, and saying to remove it.
    """
    bad = bad_character(value, multiline=multiline)
    if bad:
        raise DatasetError(f"{what} {value!r} holds a {bad}: remove it from the data")
    return value


def check_text_value(value: Any, what: str) -> Any:
    """Return a property value if its strings pass :func:`check_text` (line breaks allowed)."""
    for v in value if isinstance(value, list) else [value]:
        if isinstance(v, str):
            check_text(v, what, multiline=True)
    return value


def is_identifier(name: str) -> bool:
    """Whether `name` can be a label, relationship type or property name (letters, digits, `_`)."""
    return bool(_IDENT.match(name))


def check_identifier(name: str, what: str) -> str:
    """Return `name` if it can be a label / relationship type / property name.

    Raises:
        DatasetError: it holds characters other than letters, digits and `_`.
    """
    if not is_identifier(name):
        raise DatasetError(f"{what} {name!r} is not a valid name: use letters, digits and '_' only")
    return name


def check_value(value: Any, where: str) -> Any:
    """Return `value` if Neo4j can store it as a property (a scalar or a list of scalars).

    Raises:
        DatasetError: a map, a nested list or a mixed list.
    """
    scalar = (str, int, float, bool)
    if value is None or isinstance(value, scalar):
        return value
    if (
        isinstance(value, list | tuple)
        and all(isinstance(v, scalar) for v in value)
        and len({type(v) for v in value}) <= 1
    ):
        return list(value)
    raise DatasetError(
        f"{where}: value {value!r} is not a scalar or a list of scalars of one kind; flatten it"
    )


def check_dataset(dataset: Dataset) -> None:
    """Check every id, name and text of a dataset for :func:`bad_character` before anything is written.

    Raises:
        DatasetError: naming the first bad value and its character.
    """
    check_text(dataset.community_id, "community id")
    for e in dataset.entities:
        check_text(e.id, "entity id")
        check_text(e.name, f"entity {e.id!r} name")
        check_text(e.description, f"entity {e.id!r} description", multiline=True)
        for key, value in e.attributes.items():
            check_text_value(value, f"entity {e.id!r} attribute {key!r}")
    for r in dataset.relationships:
        where = f"relationship {r.source!r} {r.type} {r.target!r}"
        check_text(r.source, f"{where}: source")
        check_text(r.target, f"{where}: target")
        for key, value in r.attributes.items():
            check_text_value(value, f"{where} attribute {key!r}")
    for c in dataset.chunks:
        check_text(c.id, "chunk id")
        check_text(c.text, f"chunk {c.id!r} text", multiline=True)
        check_text(c.source, f"chunk {c.id!r} source")
