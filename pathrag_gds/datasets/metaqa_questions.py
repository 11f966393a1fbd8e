r"""MetaQA question files (and gold chain files of other graphs): reading them, and qtypes as relation chains.

Files (MetaQA, Zhang et al., AAAI 2018; CC BY 3.0):

- `qa_dev.txt`: `question with [topic entity]<TAB>answer1|answer2|...`, one question a line;
- `qa_dev_qtype.txt` next to it: one line per question, its gold relation chain as entity-type
  tokens, e.g. `movie_to_director_to_movie`.

Chain files (other graphs than MetaQA, e.g. `tests/data/people/2-hop_chains.txt`, found next to
`2-hop.txt` as `<stem>_chains.txt` or given with `--chains`): one line per question, the gold
chain as `relation:direction` per hop, `parent_of:in,works_for:out`. `out` walks along the stored
arrow, `in` against it, `both` either way (a symmetric relationship stored once per pair). With a
chain file the chain text is the question's qtype.

Qtype tokens map to relationship types of the MetaQA ontology (`datasets/data/metaqa_ontology.yaml`):
every MetaQA relation runs from a movie to a value, so each `a_to_b` step with one side `movie`
walks the relation of the other token:

======================  =================  ============
token                   relationship type  target type
======================  =================  ============
actor                   starred_actors     Person
director                directed_by        Person
writer                  written_by         Person
year                    release_year       Year
language                in_language        Language
genre                   has_genre          Genre
tag, tags               has_tags           Tag
imdbrating              has_imdb_rating    Rating
imdbvotes               has_imdb_votes     Votes
======================  =================  ============

e.g. `movie_to_director_to_movie` -> (directed_by, directed_by).

Example:
    >>> q = parse_question_line("what movies did [Tom Cullen] act in\tWeekend", hop=1, index=0)
    >>> q.question, q.topic, q.answers
    ('what movies did Tom Cullen act in', 'Tom Cullen', ('Weekend',))
    >>> qtype_chain("movie_to_director_to_movie")
    ('directed_by', 'directed_by')
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from pathrag_gds.errors import InvalidInput
from pathrag_gds.ontology import Ontology

#: Qtype token -> (relationship type, its target entity type). See the module docstring.
QTYPE_RELATIONS: dict[str, tuple[str, str]] = {
    "actor": ("starred_actors", "Person"),
    "director": ("directed_by", "Person"),
    "writer": ("written_by", "Person"),
    "year": ("release_year", "Year"),
    "language": ("in_language", "Language"),
    "genre": ("has_genre", "Genre"),
    "tag": ("has_tags", "Tag"),
    "tags": ("has_tags", "Tag"),
    "imdbrating": ("has_imdb_rating", "Rating"),
    "imdbvotes": ("has_imdb_votes", "Votes"),
}
MOVIE_TOKEN = "movie"

#: One hop of a gold chain: relationship type and walk direction (`out`, `in` or `both`).
ChainStep = tuple[str, str]
CHAIN_DIRECTIONS = ("out", "in", "both")

_TOPIC = re.compile(r"\[([^\]]+)\]")


@dataclass(frozen=True, slots=True)
class MetaQAQuestion:
    """One question: the text with and without brackets, its topic entity, gold answers, qtype."""

    hop: int
    index: int  #: 0-based line number in its file
    raw: str  #: the question as in the file, with `[topic]`
    question: str  #: brackets removed
    topic: str
    answers: tuple[str, ...]
    qtype: str = ""
    chain: tuple[ChainStep, ...] = ()  #: the gold chain from a chain file, with directions

    @property
    def key(self) -> str:
        """`<hop>-hop:<line>`: a stable id of the question."""
        return f"{self.hop}-hop:{self.index}"


def parse_question_line(line: str, hop: int, index: int) -> MetaQAQuestion:
    """Parse `question with [topic]<TAB>a1|a2|...`.

    Raises:
        InvalidInput: no tab, no bracketed topic, or no answer.
    """
    text = line.rstrip("\r\n")
    if "\t" not in text:
        raise InvalidInput(f"line {index + 1}: expected 'question<TAB>answers', got {text[:80]!r}")
    raw, answers_text = text.split("\t", 1)
    m = _TOPIC.search(raw)
    if m is None:
        raise InvalidInput(f"line {index + 1}: no [topic entity] in {raw[:80]!r}")
    answers = tuple(a.strip() for a in answers_text.split("|") if a.strip())
    if not answers:
        raise InvalidInput(f"line {index + 1}: no answer after the tab")
    question = " ".join(_TOPIC.sub(lambda mm: mm.group(1), raw).split())
    return MetaQAQuestion(hop, index, raw.strip(), question, m.group(1).strip(), answers)


def hop_from_path(path: Path) -> int | None:
    """The hop count a file's folder or name states (`2-hop/qa_dev.txt` -> 2), else None."""
    for part in (path.parent.name, path.name):
        m = re.search(r"(\d+)-hop", part)
        if m:
            return int(m.group(1))
    return None


def default_qtype_path(path: Path) -> Path:
    """`qa_dev.txt` -> `qa_dev_qtype.txt` in the same folder."""
    return path.with_name(f"{path.stem}_qtype{path.suffix}")


def default_chains_path(path: Path) -> Path:
    """`2-hop.txt` -> `2-hop_chains.txt` in the same folder."""
    return path.with_name(f"{path.stem}_chains{path.suffix}")


def parse_chain(text: str) -> tuple[ChainStep, ...]:
    """Parse a gold chain `rel:out,rel:in,rel:both`.

    >>> parse_chain("parent_of:in, born_in:out")
    (('parent_of', 'in'), ('born_in', 'out'))

    Raises:
        ValueError: a token that is not `relation:out|in|both`.
    """
    steps = []
    for token in text.split(","):
        rel, _, d = token.strip().rpartition(":")
        if not rel or d not in CHAIN_DIRECTIONS:
            raise ValueError(f"chain token {token.strip()!r} is not 'relation:out|in|both' (in {text!r})")
        steps.append((rel, d))
    return tuple(steps)


def format_chain(chain: Iterable[ChainStep]) -> str:
    """The inverse of :func:`parse_chain`: `parent_of:in,born_in:out`."""
    return ",".join(f"{r}:{d}" for r, d in chain)


def read_chains(path: str | Path, expected: int | None = None) -> list[tuple[ChainStep, ...]]:
    """Read a chain file (one `rel:dir,...` line per question).

    Raises:
        InvalidInput: the file is missing, a line is malformed, or it has not `expected` lines.
    """
    p = Path(path)
    if not p.is_file():
        raise InvalidInput(f"chain file not found: {p}")
    lines = [ln.strip() for ln in p.read_text(encoding="utf-8").splitlines() if ln.strip()]
    if expected is not None and len(lines) != expected:
        raise InvalidInput(f"{p} has {len(lines)} chains for {expected} questions; pass the matching file")
    try:
        return [parse_chain(ln) for ln in lines]
    except ValueError as exc:
        raise InvalidInput(f"{p}: {exc}") from exc


def hops_of_qtype(qtype: str) -> int:
    """Hop count of a qtype: its number of `_to_` steps."""
    return len(qtype.split("_to_")) - 1


def read_questions(
    path: str | Path,
    qtypes: str | Path | None = None,
    hop: int | None = None,
    chains: str | Path | None = None,
) -> list[MetaQAQuestion]:
    """Read a question file and its qtype and chain files (found next to it when not given; optional).

    The hop count comes from `hop`, else the folder name (`2-hop`), else the first qtype or chain.

    Raises:
        InvalidInput: a file is missing, malformed, or the qtype file has another line count.
    """
    p = Path(path)
    if not p.is_file():
        raise InvalidInput(f"question file not found: {p}")
    lines = [ln for ln in p.read_text(encoding="utf-8").splitlines() if ln.strip()]
    qt_path = Path(qtypes) if qtypes is not None else default_qtype_path(p)
    types: list[str] = []
    if qt_path.is_file():
        types = [ln.strip() for ln in qt_path.read_text(encoding="utf-8").splitlines() if ln.strip()]
        if len(types) != len(lines):
            raise InvalidInput(
                f"{qt_path} has {len(types)} qtypes for {len(lines)} questions in {p}; pass the matching file"
            )
    elif qtypes is not None:
        raise InvalidInput(f"qtype file not found: {qt_path}")
    ch_path = Path(chains) if chains is not None else default_chains_path(p)
    gold: list[tuple[ChainStep, ...]] = []
    if chains is not None or ch_path.is_file():
        gold = read_chains(ch_path, len(lines))
    if hop is None:
        hop = hop_from_path(p) or (hops_of_qtype(types[0]) if types else len(gold[0]) if gold else None)
    if hop is None:
        raise InvalidInput(f"cannot tell the hop count of {p}: put it in an 'N-hop' folder or give qtypes")
    out = []
    for i, line in enumerate(lines):
        q = parse_question_line(line, hop, i)
        chain = gold[i] if gold else ()
        qtype = types[i] if types else format_chain(chain)
        out.append(MetaQAQuestion(q.hop, q.index, q.raw, q.question, q.topic, q.answers, qtype, chain))
    return out


def qtype_chain(qtype: str, ontology: Ontology | None = None) -> tuple[str, ...]:
    """The relationship types a qtype walks, in order (see the table in the module docstring).

    With an ontology, each relation must exist there and lead to the token's entity type.

    Raises:
        ValueError: an unknown token, a step without exactly one `movie`, or a mismatch with the ontology.
    """
    tokens = qtype.split("_to_")
    if len(tokens) < 2:
        raise ValueError(f"qtype {qtype!r} has no '_to_' step")
    chain = []
    for a, b in itertools.pairwise(tokens):
        if (a == MOVIE_TOKEN) == (b == MOVIE_TOKEN):
            raise ValueError(f"qtype {qtype!r}: step {a}_to_{b} must have exactly one 'movie'")
        other = b if a == MOVIE_TOKEN else a
        if other not in QTYPE_RELATIONS:
            raise ValueError(f"qtype {qtype!r}: unknown token {other!r}")
        rel, target = QTYPE_RELATIONS[other]
        if ontology is not None:
            rt = {r.type: r for r in ontology.relation_types}.get(rel)
            if rt is None or (rt.target_labels and target not in rt.target_labels):
                raise ValueError(f"ontology {ontology.id} has no relation {rel} to {target} (qtype {qtype})")
        chain.append(rel)
    return tuple(chain)
