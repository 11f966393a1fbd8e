"""Documents without a database: reading files, sections, the chunker, mention lookup, keys, as_of."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime
from pathlib import Path

import pytest
from tokenizers import Tokenizer

from pathrag_gds.api.errors import ApiError
from pathrag_gds.api.models import QueryRequest, resolve
from pathrag_gds.config import Settings
from pathrag_gds.datasets.demo import DEMO_STORY, DEMO_STORY_V2
from pathrag_gds.datasets.loader import DatasetError
from pathrag_gds.documents.chunking import Chunker
from pathrag_gds.documents.embed import chunk_text
from pathrag_gds.documents.mentions import MentionIndex
from pathrag_gds.documents.model import plan_document
from pathrag_gds.documents.parse import parse_file, parse_text, read_source
from pathrag_gds.errors import ConfigError, InvalidInput
from pathrag_gds.provenance import parse_as_of

SETTINGS = Settings.from_env({})


def _whole(text: str, offset: int, markdown: bool) -> list[tuple[int, int, str]]:
    """A chunker that keeps each section body whole (stripped), for key tests."""
    stripped = text.strip()
    if not stripped:
        return []
    start = offset + text.index(stripped)
    return [(start, start + len(stripped), stripped)]


# --- reading files -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "content", "needle"),
    [
        ("photo.md", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "binary file"),
        ("latin1.txt", "café".encode("latin-1"), "not UTF-8"),
        ("empty.md", b"", "empty"),
        ("blank.md", b"  \n\n\t\n", "empty"),
        ("escape.md", b"# A\n\x1b[2J text\n", r"control character U\+001B"),
        ("report.pdf", b"%PDF-1.7", "not a Markdown or plain-text file"),
    ],
)
def test_bad_files_are_refused_with_what_to_do(
    tmp_path: Path, name: str, content: bytes, needle: str
) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(DatasetError, match=needle) as err:
        read_source(path)
    assert str(path) in str(err.value)


def test_missing_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="no such file"):
        read_source(tmp_path / "nope.md")


def test_windows_newlines_and_bom_are_normalised(tmp_path: Path) -> None:
    path = tmp_path / "w.md"
    path.write_bytes("\ufeff# T\r\n\r\nBody.\r\n".encode())
    assert read_source(path) == "# T\n\nBody.\n"


# --- sections --------------------------------------------------------------------------------------


def test_headings_become_a_tree_of_sections_with_ranges() -> None:
    text = (
        "Intro line.\n\n# Top\n\nA.\n\nSetext\n------\n\n```\n# not a heading\n```\n\n"
        "### Deep\n\nB.\n\n# Next\n\nC.\n"
    )
    doc = parse_text(text, markdown=True, default_title="file")
    paths = [s.path for s in doc.sections]
    assert paths == [("",), ("Top",), ("Top", "Setext"), ("Top", "Setext", "Deep"), ("Next",)]
    assert [s.depth for s in doc.sections] == [0, 1, 2, 3, 1]
    assert doc.title == "Top"
    top, setext, deep, nxt = doc.sections[1:]
    assert text[top.range[0] : top.range[1]].startswith("# Top") and top.range[1] == nxt.range[0]
    assert setext.range[1] == nxt.range[0], "a section's range includes its subsections"
    assert "# not a heading" in text[setext.body[0] : setext.body[1]], "code blocks are not headings"
    assert text[deep.body[0] : deep.body[1]].strip() == "B."
    assert nxt.range[1] == len(text)


def test_plain_text_is_one_unheaded_section_titled_by_the_file(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("# not a heading in plain text\nBob is a cat.\n", encoding="utf-8")
    doc = parse_file(path)
    assert doc.title == "notes" and not doc.markdown
    assert [(s.path, s.depth, s.body) for s in doc.sections] == [(("",), 0, (0, len(doc.text)))]


# --- the chunker -------------------------------------------------------------------------------------


def test_chunker_keeps_the_token_budget_and_exact_offsets() -> None:
    tokenizer_path = SETTINGS.models_dir / SETTINGS.embedding_model / "tokenizer.json"
    chunker = Chunker(tokenizer_path, tokens=32, overlap=8, model="m")
    count = Tokenizer.from_file(str(tokenizer_path))
    count.no_truncation()
    count.no_padding()
    story = DEMO_STORY.read_text(encoding="utf-8")
    body = story[story.index("### The kitchen clean-up") :]
    chunks = chunker.split(body, offset=1000, markdown=True)
    assert len(chunks) > 3
    for start, end, text in chunks:
        assert body[start - 1000 : end - 1000] == text
        assert len(count.encode(text, add_special_tokens=False).ids) <= 32
    assert any(a[1] > b[0] for a, b in itertools.pairwise(chunks)), "neighbours overlap"
    assert "32 tokens of m, overlap 8" in chunker.name


def test_chunker_refuses_an_overlap_as_large_as_the_budget() -> None:
    with pytest.raises(ConfigError, match="PATHRAG_CHUNK_OVERLAP"):
        Chunker(SETTINGS.models_dir / SETTINGS.embedding_model / "tokenizer.json", tokens=16, overlap=16)


# --- mentions ------------------------------------------------------------------------------------


def test_mentions_match_names_and_aliases_longest_first() -> None:
    index = MentionIndex(
        [
            ("garden", "Garden", ()),
            ("shed", "Garden shed", ()),
            ("bob", "Bob", ("Bobby", "the orange cat")),
            ("a", "A", ()),  # too short to match
        ]
    )
    assert index.find("A cat hid in the GARDEN-SHED.") == ["shed"]
    assert index.find("The orange cat, Bobby, sat in the garden.") == ["bob", "garden"]
    assert index.find("Nobody here.", "Bob's heading") == ["bob"]
    assert index.find("Bobcat") == []


# --- keys and versions -----------------------------------------------------------------------------


def test_an_unchanged_passage_keeps_its_key_when_an_earlier_one_changes() -> None:
    index = MentionIndex([("bob", "Bob", ()), ("attic", "Attic", ()), ("milk", "Spilled milk incident", ())])
    v1 = parse_file(DEMO_STORY)
    v2 = parse_file(DEMO_STORY_V2)
    p1 = plan_document("story", "c", v1, _whole, index)
    p2 = plan_document("story", "c", v2, _whole, index)
    assert [s.id for s in p1.sections] == [s.id for s in p2.sections], "same headings: same section keys"
    ids1 = {c.id: c for c in p1.chunks}
    changed = [c for c in p2.chunks if c.id not in ids1]
    assert [c.headings[-1] for c in changed] == ["The kitchen clean-up"]
    moved = [c for c in p2.chunks if c.id in ids1 and ids1[c.id].range != c.range]
    assert moved and all(c.range[0] > changed[0].range[0] for c in moved), "later passages move"
    assert p1.content_hash != p2.content_hash
    milk = next(c for c in p1.chunks if c.headings[-1] == "The spilled milk incident")
    assert milk.mentions == ("bob", "milk"), "an event is named by its scene's heading"
    assert milk.headings == (
        "The Adventures of Bob the Cat",
        "Chapter 3: Milk on the tiles",
        milk.headings[-1],
    )


def test_plan_rows_order_children_and_link_neighbours() -> None:
    text = "# T\n\nSame.\n\n## A\n\nSame.\n\n## A\n\nOther.\n"
    plan = plan_document("k", "c", parse_text(text, markdown=True), _whole, MentionIndex([]))
    assert len({c.id for c in plan.chunks}) == 3, "equal texts in different sections are different chunks"
    assert len({s.id for s in plan.sections}) == 3, "two `## A` are two sections"
    top = plan.sections[0]
    assert [s.parent for s in plan.sections] == [None, top.id, top.id]
    row = plan.row()
    orders = [(c["section"], c["order"]) for c in row["chunks"]]
    assert orders == [(top.id, 0), (plan.sections[1].id, 0), (plan.sections[2].id, 0)]
    assert [s["order"] for s in row["sections"]] == [0, 1, 2], "the chunk of T comes before its subsections"
    assert row["next"] == [[plan.chunks[0].id, plan.chunks[1].id], [plan.chunks[1].id, plan.chunks[2].id]]
    assert row["ranges"][plan.chunks[2].id] == list(plan.chunks[2].range)


def test_chunks_are_embedded_with_their_heading_path() -> None:
    assert chunk_text("Bob hid.", ["", "Ch 3", "Clean-up"]) == "Ch 3 > Clean-up: Bob hid."
    assert chunk_text("Bob hid.", None) == "Bob hid."


# --- as_of ---------------------------------------------------------------------------------------


def test_as_of_parses_iso_moments_and_refuses_others() -> None:
    assert parse_as_of("2026-02-01T10:00:00Z") == datetime(2026, 2, 1, 10, tzinfo=UTC)
    assert parse_as_of("2026-02-01T10:00:00+02:00") == datetime(2026, 2, 1, 8, tzinfo=UTC)
    assert parse_as_of(None) is None
    with pytest.raises(InvalidInput, match="ISO 8601"):
        parse_as_of("yesterday")


def test_api_checks_as_of() -> None:
    eff = resolve(SETTINGS, QueryRequest(question="Who?", as_of="2026-02-01"))
    assert eff.as_of == "2026-02-01"
    with pytest.raises(ApiError) as err:
        resolve(SETTINGS, QueryRequest(question="Who?", as_of="last week"))
    assert err.value.status == 422 and "ISO 8601" in str(err.value.message)
