r"""Reading a Markdown or plain-text file into its text and its sections (headings, depth, ranges).

A file is refused, with a message that says what to do, when it is binary (a NUL byte, or not
UTF-8), empty or only white space, or holds control characters. Markdown headings (ATX `#` and
setext underlines, not the `#` lines of code blocks) come from markdown-it-py; a plain-text file,
or text before the first heading, is one unheaded section.

Example:
    >>> doc = parse_text("# Bob\n\nA cat.\n\n## Home\n\nA house.\n", markdown=True)
    >>> [(s.path, s.range) for s in doc.sections]
    [(('Bob',), (0, 33)), (('Bob', 'Home'), (15, 33))]
    >>> doc.text[doc.sections[1].body[0] : doc.sections[1].body[1]].strip()
    'A house.'
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from markdown_it import MarkdownIt

from pathrag_gds.datasets.checks import bad_character
from pathrag_gds.datasets.rows import DatasetError

#: File name endings read as Markdown; everything else is plain text.
MARKDOWN_SUFFIXES = frozenset({".md", ".markdown", ".mdown", ".mkd"})
#: File name endings `load documents` accepts.
TEXT_SUFFIXES = MARKDOWN_SUFFIXES | {".txt", ".text"}


@dataclass(frozen=True, slots=True)
class SectionSpan:
    """One heading of a document (or its unheaded content): heading path, depth, character ranges.

    `range` runs from the heading to the next heading of the same or a higher level (subsections
    included); `body` is the section's own text, after its heading line and before the next heading.
    """

    path: tuple[str, ...]  #: headings from the top down to this one ("" for unheaded content)
    depth: int  #: heading level (1 for `#`), 0 for unheaded content
    range: tuple[int, int]
    body: tuple[int, int]

    @property
    def heading(self) -> str:
        """The section's own heading."""
        return self.path[-1] if self.path else ""


@dataclass(frozen=True, slots=True)
class ParsedText:
    """A document's text (newlines normalised), title and sections in reading order."""

    text: str
    title: str
    sections: tuple[SectionSpan, ...]
    markdown: bool


def read_source(path: Path) -> str:
    """The text of a document file, refused when it is binary, empty or holds control characters.

    Raises:
        DatasetError: naming the file and what to do.
    """
    if not path.is_file():
        raise DatasetError(f"{path}: no such file; give the path of a Markdown or text file")
    if path.suffix.lower() not in TEXT_SUFFIXES:
        raise DatasetError(
            f"{path}: not a Markdown or plain-text file (ends in {path.suffix or 'nothing'}); "
            f"convert it to text first (accepted: {', '.join(sorted(TEXT_SUFFIXES))})"
        )
    raw = path.read_bytes()
    if b"\x00" in raw:
        raise DatasetError(f"{path}: binary file (holds NUL bytes); convert it to Markdown or plain text")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DatasetError(
            f"{path}: not UTF-8 text (byte {exc.start}); convert it to UTF-8 Markdown or plain text"
        ) from exc
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if not text.strip():
        raise DatasetError(f"{path}: the file is empty; give it some text or leave it out")
    bad = bad_character(text, multiline=True)
    if bad:
        raise DatasetError(f"{path}: holds a {bad}; remove it (is it a binary file?)")
    return text


def _line_starts(text: str) -> list[int]:
    starts = [0]
    starts.extend(i + 1 for i, ch in enumerate(text) if ch == "\n")
    return starts


def _headings(text: str) -> list[tuple[int, int, int, str]]:
    """(level, heading start, heading end, heading text) of every Markdown heading, in order."""
    starts = _line_starts(text)
    tokens = MarkdownIt("commonmark").parse(text)
    out = []
    for i, tok in enumerate(tokens):
        if tok.type != "heading_open" or tok.map is None:
            continue
        first, last = tok.map
        start = starts[first]
        end = starts[last] if last < len(starts) else len(text)
        title = " ".join(tokens[i + 1].content.split()) if i + 1 < len(tokens) else ""
        out.append((int(tok.tag[1:]), start, end, title))
    return out


def parse_text(text: str, *, markdown: bool, default_title: str = "") -> ParsedText:
    """Split a document's text into sections (Markdown headings, or one unheaded section)."""
    heads = _headings(text) if markdown else []
    sections: list[SectionSpan] = []
    first = heads[0][1] if heads else len(text)
    if text[:first].strip():
        sections.append(SectionSpan(path=("",), depth=0, range=(0, first), body=(0, first)))
    stack: list[tuple[int, str]] = []
    for i, (level, start, end, title) in enumerate(heads):
        while stack and stack[-1][0] >= level:
            stack.pop()
        stack.append((level, title))
        next_start = heads[i + 1][1] if i + 1 < len(heads) else len(text)
        close = next((h[1] for h in heads[i + 1 :] if h[0] <= level), len(text))
        sections.append(
            SectionSpan(
                path=tuple(t for _, t in stack),
                depth=level,
                range=(start, close),
                body=(min(end, next_start), next_start),
            )
        )
    h1 = next((t for lv, _, _, t in heads if lv == 1 and t), "")
    return ParsedText(text=text, title=h1 or default_title, sections=tuple(sections), markdown=markdown)


def parse_file(path: Path) -> ParsedText:
    """Read and split a Markdown (`.md`) or plain-text (`.txt`) file.

    Its title: the first `#` heading, else the file name without its ending.

    Raises:
        DatasetError: a binary, empty or unreadable file.
    """
    text = read_source(path)
    return parse_text(text, markdown=path.suffix.lower() in MARKDOWN_SUFFIXES, default_title=path.stem)
