"""The entities a question names: in brackets, by name, or in other words; and the text with them masked.

Named and described entities are never the answer (unless the question asks about them: an attribute
or definition question).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from pathrag_gds.intent.lexicon import (
    DESCRIBED_MIN_WORDS,
    FUNCTION_WORDS,
    MASK,
    MIN_NAME_CHARS,
    NAME_TITLES,
    STOP_WORDS,
)
from pathrag_gds.intent.text import stems
from pathrag_gds.paths import EntityRecord, identity_nouns, kind_nouns


def bracket_mentions(question: str) -> list[str]:
    """Mentions written in square brackets (`[Tom Cullen]`), as MetaQA marks topic entities.

    Example:
        >>> bracket_mentions("what films did [Tom Cullen] act in")
        ['Tom Cullen']
    """
    return [m.strip() for m in re.findall(r"\[([^\]]+)\]", question) if m.strip()]


def named_entities(question: str, entities: Iterable[EntityRecord]) -> dict[str, str]:
    """Entities whose name occurs in the question as whole words: id -> name (names >= 3 chars).

    A name inside a longer matched name is dropped (`Bob` vs `Bob the Cat`) only when both are the
    same entity; different entities both count.

    Example:
        >>> named_entities("Who owns Bob?", [EntityRecord("b", ("Animal",), "Bob")])
        {'b': 'Bob'}
    """
    q = question.lower()
    out: dict[str, str] = {}
    for e in entities:
        name = e.name.lower().strip()
        if len(name) >= MIN_NAME_CHARS and re.search(rf"(?<!\w){re.escape(name)}(?!\w)", q):
            out[e.id] = e.name
    return out


def _proper_parts(name: str) -> list[str]:
    """The words of a proper name that may stand for it alone (`Kit` and `Penhallow` of `Kit Penhallow`).

    A name is proper when each of its words but function words is capitalised; titles
    (:data:`~pathrag_gds.intent.lexicon.NAME_TITLES`) and short words are not parts. A name of one
    word has no parts (the whole name matches it).

    Example:
        >>> _proper_parts("Kit Penhallow"), _proper_parts("Mrs Patel"), _proper_parts("Old oak tree")
        (['Kit', 'Penhallow'], ['Patel'], [])
    """
    words = re.findall(r"[\w'-]+", name)
    content = [w for w in words if w.lower() not in FUNCTION_WORDS]
    if len(words) < 2 or not all(w[:1].isupper() for w in content):
        return []
    return [w for w in content if len(w) >= MIN_NAME_CHARS and w.lower() not in NAME_TITLES and w.isalpha()]


def part_names(
    question: str, entities: Iterable[EntityRecord], named: Mapping[str, str] | None = None
) -> dict[str, str]:
    """Entities the question names by one word of their proper name (`Kit's sister`): id -> that word.

    People in stories are called by a first name or a surname alone. The word must be written
    capitalised, as a whole word (a possessive `'s` may follow), outside the names already found
    (`named`), and be a part (:func:`_proper_parts`) of exactly one entity's name: `Penhallow`
    beside two Penhallows names neither.

    Example:
        >>> kit = EntityRecord("k", ("Person",), "Kit Penhallow")
        >>> mara = EntityRecord("m", ("Person",), "Mara Penhallow")
        >>> part_names("Who is Kit's sister?", [kit, mara])
        {'k': 'Kit'}
        >>> part_names("Where do the Penhallows live?", [kit, mara]), part_names("a kit bag?", [kit])
        ({}, {})
    """
    named = named or {}
    taken = [
        (m.start(), m.end())
        for n in named.values()
        for m in re.finditer(rf"(?<!\w){re.escape(n)}(?!\w)", question, flags=re.IGNORECASE)
    ]
    owners: dict[str, set[str]] = {}
    for e in entities:
        for part in _proper_parts(e.name):
            owners.setdefault(part, set()).add(e.id)
    out: dict[str, str] = {}
    for part, ids in owners.items():
        if len(ids) != 1 or ids & set(named):
            continue
        for m in re.finditer(rf"(?<![\w'-]){re.escape(part)}(?![\w-])", question):
            if not any(a <= m.start() and m.end() <= b for a, b in taken):
                out.setdefault(next(iter(ids)), part)
    return out


def _plain_values(attributes: Mapping[str, Any]) -> set[str]:
    """Attribute values (list items too) of one to three plain words, lower case (`silver grey`)."""
    out: set[str] = set()
    for value in attributes.values():
        for v in value if isinstance(value, list | tuple) else [value]:
            words = v.lower().split() if isinstance(v, str) else []
            if 0 < len(words) <= 3 and all(w.isalpha() for w in words):
                out.add(" ".join(words))
    return out


def definite_descriptions(
    question: str, entities: Iterable[EntityRecord], named: Mapping[str, str] | None = None
) -> dict[str, str]:
    """Entities the question picks out as `the <attribute value> <kind>`: id -> the words that do.

    "the silver grey cat" names the one entity whose kind (:func:`~pathrag_gds.paths.kind_nouns`)
    is `cat` and one of whose attributes is `silver grey`, as its name would ("the boxer dog": a
    breed before the species). The definite article is required (`which grey cat ...?` asks for the
    cat), and the description must fit exactly one candidate: a description two entities fit names
    neither. Entities in `named` are skipped.

    Example:
        >>> smokey = EntityRecord("s", ("Animal",), "Smokey", "", {"species": "cat", "fur": "grey"})
        >>> bob = EntityRecord("b", ("Animal",), "Bob", "", {"species": "cat", "fur": "orange"})
        >>> definite_descriptions("Who owns the grey cat?", [smokey, bob])
        {'s': 'the grey cat'}
        >>> definite_descriptions("Which grey cat sleeps?", [smokey, bob]), definite_descriptions(
        ...     "Who owns the cat?", [smokey, bob])
        ({}, {})
    """
    named = named or {}
    q = question.lower()
    fits: dict[str, dict[str, str]] = {}  # span -> id -> span as written
    for e in entities:
        if e.id in named:
            continue
        values = _plain_values(e.attributes)
        for kind in kind_nouns(e.attributes):
            for mod in values - {kind}:
                pattern = rf"(?<!\w)the\s+{re.escape(mod)}\s+{re.escape(kind)}(?!\w)"
                for m in re.finditer(pattern, q):
                    fits.setdefault(m.group(0), {})[e.id] = question[m.start() : m.end()]
    out: dict[str, str] = {}
    for ids in fits.values():
        if len(ids) == 1:
            out.update(ids)
    return out


#: Modifiers a role description may put before the role (`the OLD lighthouse keeper`).
ROLE_MODIFIERS = 2


def role_descriptions(
    question: str, entities: Iterable[EntityRecord], named: Mapping[str, str] | None = None
) -> dict[str, str]:
    """Entities the question picks out as `the <what it is>`: id -> the words that do.

    "the harbour master" names the one entity whose kind or role (:func:`~pathrag_gds.paths.
    identity_nouns`: `occupation: harbour master`, `species: dog`) it is, as a name would. Up to
    :data:`ROLE_MODIFIERS` words may stand before it when the entity's own text holds them ("the
    old lighthouse keeper" of "The old lighthouse keeper of Gull Point"). The description must fit
    exactly one of the candidates, the named ones included: "the cat" beside a named cat names
    no other cat. A span inside a longer one that fits is not read on its own, nor is a span
    inside a name the question holds. Entities in `named` are never picked.

    Example:
        >>> agnes = EntityRecord("a", ("Person",), "Agnes", "", {"occupation": "harbour master"})
        >>> port = EntityRecord("p", ("Place",), "Penmorrow", "", {"place_type": "harbour"})
        >>> role_descriptions("Where does the harbour master live?", [agnes, port])
        {'a': 'the harbour master'}
        >>> bob = EntityRecord("b", ("Animal",), "Bob", "", {"species": "cat"})
        >>> smokey = EntityRecord("s", ("Animal",), "Smokey", "", {"species": "cat"})
        >>> role_descriptions("Does Bob like the cat?", [bob, smokey], {"b": "Bob"})
        {}
    """
    named = named or {}
    q = question.lower()
    fits: dict[tuple[int, int], set[str]] = {}  # span -> ids it fits
    for e in entities:
        text = " ".join([e.name, e.description, *map(str, e.attributes.values())])
        own = set(re.findall(r"[a-z]+", text.lower()))
        for value in identity_nouns(e.attributes):
            pattern = rf"(?<!\w)the\s+((?:[a-z]+\s+){{0,{ROLE_MODIFIERS}}}?){re.escape(value)}(?!\w)"
            for m in re.finditer(pattern, q):
                if all(w in own for w in m.group(1).split()):
                    fits.setdefault((m.start(), m.end()), set()).add(e.id)
    names = [
        (m.start(), m.end())
        for n in named.values()
        for m in re.finditer(rf"(?<!\w){re.escape(n.lower())}(?!\w)", q)
    ]
    out: dict[str, str] = {}
    for (a, b), ids in sorted(fits.items(), key=lambda kv: kv[0][0] - kv[0][1]):
        inside = [(c, d) for (c, d) in fits if c <= a and b <= d and (c, d) != (a, b)] + [
            (c, d) for (c, d) in names if c <= a and b <= d
        ]
        if len(ids) == 1 and not inside and not ids & set(named):
            out.setdefault(next(iter(ids)), question[a:b])
    return out


def mask_mentions(question: str, mentions: Iterable[str]) -> str:
    """The question with bracketed and named mentions replaced by `X` (they are not the answer).

    Example:
        >>> mask_mentions("Did [Heat] star Al Pacino?", ["Al Pacino"])
        'Did X star X?'
    """
    text = re.sub(r"\[[^\]]*\]", MASK, question)
    for m in sorted(set(mentions), key=len, reverse=True):
        if len(m) >= MIN_NAME_CHARS:
            text = re.sub(rf"(?<!\w){re.escape(m)}(?!\w)", MASK, text, flags=re.IGNORECASE)
    return text


def described_entities(
    question: str, entities: Iterable[EntityRecord], named: Mapping[str, str] | None = None
) -> dict[str, str]:
    """Entities the question names in other words: id -> the name or kind it matched.

    An entity is described when every word of its name, or of one of its kind attributes
    (:func:`~pathrag_gds.paths.kind_nouns`: `event_type: first meeting`), occurs in the question
    up to its stem, the name or kind has at least :data:`DESCRIBED_MIN_WORDS` content words
    (one-word names are matched exactly, by :func:`named_entities`), and one of them is a word of
    the question outside the `named` mentions (id -> name, as :func:`named_entities` returns; those
    entities are skipped): a title inside a longer named title is not described by it ("Wild River"
    in "The River Wild"), while "Kitchen clean-up" is, by "cleaned up" beside the named kitchen.

    Example:
        >>> cleanup = EntityRecord("c", ("Event",), "Kitchen clean-up")
        >>> meeting = EntityRecord("m", ("Event",), "Encounter", "", {"event_type": "first meeting"})
        >>> described_entities("Where was Bob when the kitchen was cleaned up?", [cleanup, meeting])
        {'c': 'Kitchen clean-up'}
        >>> described_entities("Where did Bob first meet Joy?", [cleanup, meeting])
        {'m': 'first meeting'}
    """
    named = named or {}
    q = set(stems(question))
    outside = {w for w in stems(mask_mentions(question, named.values())) if w not in STOP_WORDS}
    out: dict[str, str] = {}
    for e in entities:
        if e.id in named:
            continue
        for phrase in (e.name, *kind_nouns(e.attributes)):
            phrase_stems = stems(phrase)
            content = [w for w in phrase_stems if w not in FUNCTION_WORDS]
            if (
                len(content) >= DESCRIBED_MIN_WORDS
                and all(w in q for w in phrase_stems)
                and any(w in outside for w in content)
            ):
                out[e.id] = phrase
                break
    return out


def type_mentions(text: str, named: Mapping[str, str], labels: Mapping[str, str]) -> str:
    """`text` with each named mention replaced by its entity's type (`Bob` -> `the animal`).

    Relation sentences are written in type words ("Animal hides in Place"), so a clause that says
    what kind of thing its subject is matches them where `X` cannot. Brackets are masked as `X`.

    Args:
        text: a question or a clause of it.
        named: entity id -> the mention in the text (:func:`named_entities`).
        labels: entity id -> type label.

    Example:
        >>> type_mentions("Where was Bob?", {"bob": "Bob"}, {"bob": "Animal"})
        'Where was the animal?'
    """
    kinds: dict[str, set[str]] = {}
    for eid, mention in named.items():
        kinds.setdefault(mention, set()).add(re.sub(r"(?<=[a-z])(?=[A-Z])", " ", labels[eid]).lower())
    out = mask_mentions(text, ())  # brackets only
    for mention in sorted(kinds, key=len, reverse=True):
        if len(mention) >= MIN_NAME_CHARS:
            the = "the " + " or ".join(sorted(kinds[mention]))
            out = re.sub(
                rf"(?<!\w)(?:(?:the|an?)\s+)?{re.escape(mention)}(?!\w)", the, out, flags=re.IGNORECASE
            )
    return out
