r"""Triple files (`subject, relation, object`) read into a :class:`Dataset`, bad rows kept with line numbers.

Formats:
    metaqa: `subject|relation|object`, one triple a line (MetaQA's `kb.txt`), exactly 3 fields.
    tsv:    tab-separated; csv: comma-separated (RFC 4180 quoting). Exactly 3 fields, or a header
            row `subject, relation, object[, more...]` whose extra columns become relationship
            properties (string values; empty cells are left out).
    jsonl:  one JSON object a line: `subject`/`relation`/`object` (or `source`/`type`/`target`, or
            `head`/`relation`/`tail`), optional `attributes` (scalars or lists of scalars).

Blank lines and, except in metaqa files, lines starting with `#` are skipped. Every other line is a
triple or a bad row (wrong number of fields, empty field, invalid JSON, relation not in the ontology,
an attribute name that cannot be a property name, a control character or lone surrogate in a field,
bytes that are not UTF-8), reported with its line number: nothing is dropped silently, and a file
without bad rows passes the loader's checks. Each line is decoded on its own, so one bad byte
spoils only its line.

Entities: the subject gets the relation's first source label, the object its first target label
(from the ontology); a string used with several types is one entity with several labels. Entity
ids are :func:`~pathrag_gds.datasets.loader.entity_id` (`<community_id>:<name>`, the community
escaped), so that graphs loaded into different communities never share nodes; the name is the
string itself.

Example:
    >>> onto = Ontology.from_mapping({"id": "o", "entity_types": [{"label": "Movie"}, {"label": "Person"}],
    ...     "relationship_types": [{"type": "directed_by", "source": ["Movie"], "target": ["Person"]}]})
    >>> tf = read_triples_text("Heat|directed_by|Michael Mann\nHeat|acted|x\n", "metaqa", onto, "m")
    >>> [e.id for e in tf.dataset.entities], [(b.line, b.reason) for b in tf.bad_rows]
    (['m:Heat', 'm:Michael Mann'], [(2, "relation 'acted' is not in ontology o")])
"""

from __future__ import annotations

import csv
import io
import json
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pathrag_gds.datasets.checks import is_identifier
from pathrag_gds.datasets.loader import (
    Dataset,
    DatasetError,
    EntityRow,
    RelationRow,
    bad_character,
    check_text,
    check_value,
    entity_id,
)
from pathrag_gds.ontology import Ontology
from pathrag_gds.progress import bar as progress_bar

FORMATS = ("metaqa", "tsv", "csv", "jsonl")

_KEYS = (("subject", "relation", "object"), ("source", "type", "target"), ("head", "relation", "tail"))


@dataclass(frozen=True, slots=True)
class Triple:
    """One parsed line."""

    line: int
    subject: str
    relation: str
    object: str
    attributes: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class BadRow:
    """A line that cannot be loaded, and why."""

    line: int
    reason: str
    text: str = ""


@dataclass
class TripleFile:
    """The result of reading a triple file."""

    dataset: Dataset
    bad_rows: list[BadRow] = field(default_factory=list)
    lines_read: int = 0
    triples: int = 0
    duplicates: int = 0

    def bad_summary(self) -> dict[str, int]:
        """Bad rows counted by reason kind (the reason without its specifics)."""
        return dict(Counter(_reason_kind(b.reason) for b in self.bad_rows).most_common())


def _reason_kind(reason: str) -> str:
    for kind in (
        "relation",
        "expected",
        "empty",
        "invalid JSON",
        "not a JSON object",
        "attribute",
        "bad character",
        "invalid UTF-8",
    ):
        if reason.startswith(kind):
            return kind
    return reason


def check_format(fmt: str) -> str:
    """Return `fmt` if it is a known format.

    Raises:
        DatasetError: naming the known formats.
    """
    if fmt not in FORMATS:
        raise DatasetError(f"unknown triple format {fmt!r}: use one of {', '.join(FORMATS)}")
    return fmt


def printable(text: str) -> str:
    """`text` with control characters, lone surrogates and undecodable bytes written as escapes."""
    out = []
    for ch in text:
        if 0xDC80 <= ord(ch) <= 0xDCFF:  # a byte that is not UTF-8 (decoded with surrogateescape)
            out.append(f"\\x{ord(ch) - 0xDC00:02x}")
        elif ch.isprintable() or ch == "\t":
            out.append(ch)
        else:
            out.append(ascii(ch)[1:-1])
    return "".join(out)


def _invalid_utf8(line: int, text: str) -> BadRow | None:
    """A bad row when `text` (decoded with surrogateescape) holds bytes that are not UTF-8."""
    for col, ch in enumerate(text, start=1):
        if 0xDC80 <= ord(ch) <= 0xDCFF:
            return BadRow(
                line,
                f"invalid UTF-8: byte 0x{ord(ch) - 0xDC00:02X} at character {col}; convert the file "
                "to UTF-8 or fix the line",
                printable(text),
            )
    return None


def _triple_or_bad(line: int, fields: list[str], text: str, attrs: dict[str, Any]) -> Triple | BadRow:
    s, r, o = (f.strip() for f in fields[:3])
    for value, what in ((s, "subject"), (r, "relation"), (o, "object")):
        if not value:
            return BadRow(line, f"empty {what}", printable(text))
        bad = bad_character(value)
        if bad:
            return BadRow(line, f"bad character in {what}: {bad}; remove it", printable(text))
    for key, value in attrs.items():
        if not is_identifier(key):
            return BadRow(
                line,
                f"attribute name {key!r} is not a valid name: use letters, digits and '_' only",
                printable(text),
            )
        for v in value if isinstance(value, list) else [value]:
            bad = bad_character(v, multiline=True) if isinstance(v, str) else None
            if bad:
                return BadRow(line, f"bad character in attribute {key!r}: {bad}; remove it", printable(text))
    return Triple(line, s, r, o, attrs)


def _parse_metaqa(lines: Iterable[str]) -> Iterator[Triple | BadRow]:
    for n, raw in enumerate(lines, start=1):
        text = raw.rstrip("\r\n")
        if not text.strip():
            continue
        invalid = _invalid_utf8(n, text)
        if invalid:
            yield invalid
            continue
        fields = text.split("|")
        if len(fields) != 3:
            yield BadRow(n, f"expected 3 fields separated by '|', found {len(fields)}", text)
            continue
        yield _triple_or_bad(n, fields, text, {})


def _parse_delimited(lines: Iterable[str], delimiter: str) -> Iterator[Triple | BadRow]:
    reader = csv.reader(
        lines, delimiter=delimiter, quoting=csv.QUOTE_NONE if delimiter == "\t" else csv.QUOTE_MINIMAL
    )
    header: list[str] | None = None
    first = True
    name = "tabs" if delimiter == "\t" else "commas"
    while True:
        try:
            fields = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            yield BadRow(reader.line_num, f"expected delimited fields: {exc}")
            continue
        n = reader.line_num
        text = delimiter.join(fields)
        invalid = _invalid_utf8(n, text)
        if invalid:
            yield invalid
            continue
        if not fields or not "".join(fields).strip() or fields[0].lstrip().startswith("#"):
            continue
        if first:
            first = False
            if [f.strip().lower() for f in fields[:3]] == ["subject", "relation", "object"]:
                header = [f.strip() for f in fields]
                continue
        width = len(header) if header else 3
        if len(fields) != width:
            yield BadRow(n, f"expected {width} fields separated by {name}, found {len(fields)}", text)
            continue
        attrs: dict[str, Any] = {}
        if header:
            attrs = {k: v.strip() for k, v in zip(header[3:], fields[3:], strict=True) if v.strip()}
        yield _triple_or_bad(n, fields, text, attrs)


def _parse_jsonl(lines: Iterable[str]) -> Iterator[Triple | BadRow]:
    for n, raw in enumerate(lines, start=1):
        text = raw.strip()
        if not text or text.startswith("#"):
            continue
        invalid = _invalid_utf8(n, text)
        if invalid:
            yield invalid
            continue
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as exc:
            yield BadRow(n, f"invalid JSON ({exc.msg})", text)
            continue
        if not isinstance(obj, dict):
            yield BadRow(n, "not a JSON object", text)
            continue
        keys = next((k for k in _KEYS if all(x in obj for x in k)), _KEYS[0])
        values = []
        for key in keys:
            v = obj.get(key)
            values.append("" if v is None or isinstance(v, dict | list) else str(v))
        attrs = obj.get("attributes") or {}
        if not isinstance(attrs, dict):
            yield BadRow(n, "attributes must be a JSON object", text)
            continue
        try:
            attrs = {str(k): check_value(v, f"line {n}") for k, v in attrs.items()}
        except DatasetError:
            yield BadRow(n, "attribute values must be scalars or lists of scalars", text)
            continue
        yield _triple_or_bad(n, values, text, attrs)


def parse_lines(lines: Iterable[str], fmt: str) -> Iterator[Triple | BadRow]:
    """Parse lines of a triple file; yields triples and bad rows in file order."""
    check_format(fmt)
    if fmt == "metaqa":
        return _parse_metaqa(lines)
    if fmt == "jsonl":
        return _parse_jsonl(lines)
    return _parse_delimited(lines, "\t" if fmt == "tsv" else ",")


def _build(
    rows: Iterable[Triple | BadRow], ontology: Ontology, community_id: str, limit: int | None
) -> TripleFile:
    if not community_id.strip():
        raise DatasetError("the community id is empty; pass --community ID")
    check_text(community_id, "the community id")
    known = {r.type: r for r in ontology.relation_types}
    entities: dict[str, dict[str, None]] = {}  # name -> ordered set of labels
    rels: dict[tuple[str, str, str], RelationRow] = {}
    out = TripleFile(Dataset(ontology=ontology, community_id=community_id))
    for row in rows:
        if limit is not None and row.line > limit:
            break
        out.lines_read = row.line
        if isinstance(row, BadRow):
            out.bad_rows.append(row)
            continue
        rt = known.get(row.relation)
        if rt is None:
            out.bad_rows.append(
                BadRow(
                    row.line,
                    f"relation {row.relation!r} is not in ontology {ontology.id}",
                    f"{row.subject}|{row.relation}|{row.object}",
                )
            )
            continue
        out.triples += 1
        for name, labels in ((row.subject, rt.source_labels), (row.object, rt.target_labels)):
            label_set = entities.setdefault(name, {})
            if labels:
                label_set[labels[0]] = None
        key = (row.subject, row.relation, row.object)
        if key in rels:
            out.duplicates += 1
            if not row.attributes:
                continue
        rels[key] = RelationRow(
            entity_id(community_id, row.subject),
            row.relation,
            entity_id(community_id, row.object),
            row.attributes,
        )
    out.dataset.entities = [
        EntityRow(id=entity_id(community_id, name), name=name, labels=tuple(labels))
        for name, labels in entities.items()
    ]
    out.dataset.relationships = list(rels.values())
    return out


def read_triples_text(
    text: str, fmt: str, ontology: Ontology, community_id: str, limit: int | None = None
) -> TripleFile:
    """Read triples from a string (see :func:`read_triples`)."""
    return _build(parse_lines(io.StringIO(text), fmt), ontology, community_id, limit)


def read_triples(
    path: str | Path,
    fmt: str,
    ontology: Ontology,
    community_id: str,
    limit: int | None = None,
    *,
    progress: bool = False,
) -> TripleFile:
    """Read a triple file into a dataset of one community.

    Args:
        path: the file.
        fmt: one of :data:`FORMATS`.
        ontology: relation types with their source and target entity types.
        community_id: the community (and, escaped, the prefix of every entity id).
        limit: read only the first `limit` lines.
        progress: show a bar of the bytes read (rate, ETA) on stderr.

    Lines are decoded one by one: a line with bytes that are not UTF-8 is a bad row (with its line
    number), the rest of the file is read.

    Raises:
        DatasetError: the file is missing or unreadable, or the format is unknown.
    """
    check_format(fmt)
    p = Path(path)
    if not p.is_file():
        raise DatasetError(f"triple file not found: {p}; check the path")
    try:
        size = p.stat().st_size
        with (
            p.open("rb") as fh,
            progress_bar(size, f"read {p.name}", "B", enabled=progress, unit_scale=True) as bar,
        ):

            def lines() -> Iterator[str]:
                for raw in fh:
                    bar.update(len(raw))
                    yield raw.decode("utf-8", "surrogateescape")

            return _build(parse_lines(lines(), fmt), ontology, community_id, limit)
    except OSError as exc:
        raise DatasetError(f"cannot read {p} ({exc.strerror}); check the file") from exc
