"""Synonyms of a relation's words from WordNet, so that generated questions say a hop other ways.

The ontology says a relation one way (`supplies`, `is the owner of`); the people who ask say it many
(`provides`, `furnishes`, `the proprietor of`). `tune --synonym-share S` rewords that share of the
generated hops with a synonym of the phrase's verb or role noun from the two most frequent WordNet
senses of the word; the chain text the question is trained against keeps the ontology's words, so
the model learns to map the other words onto them. The words come from a general lexical resource,
never from a benchmark question.

WordNet's database files are read as they are (`index.verb`, `data.verb`, `index.noun`,
`data.noun`): from `PATHRAG_WORDNET_DIR`, else Debian's `wordnet-base` (`/usr/share/wordnet`).

Example:
    >>> wn = WordNet.from_lines(
    ...     {"verb": ["own v 1 1 @ 1 0 00000010"]},
    ...     {"verb": {10: "00000010 40 v 03 own 0 have 0 possess 0 000 | have ownership"}},
    ... )
    >>> wn.synonyms("own", "verb")
    ['possess']
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

#: Where WordNet's database files are looked for when `PATHRAG_WORDNET_DIR` is not set.
WORDNET_DIRS = (Path("/usr/share/wordnet"),)
#: How many of a word's most frequent senses give synonyms (more: more words, more wrong senses).
SENSES = 2
#: Words never offered as a synonym: too general to say one relation.
STOP = frozenset({"be", "have", "do", "get", "make", "go", "take", "give", "put", "set"})
#: Irregular past participles and their bare verbs (`was written by`).
PARTICIPLES = {
    "written": "write", "given": "give", "taken": "take", "chosen": "choose", "driven": "drive",
    "stolen": "steal", "spoken": "speak", "broken": "break", "hidden": "hide", "ridden": "ride",
    "eaten": "eat", "seen": "see", "known": "know", "grown": "grow", "drawn": "draw",
    "thrown": "throw", "shown": "show", "sung": "sing", "begun": "begin", "worn": "wear",
}  # fmt: skip
#: Verbs whose past tense is the bare verb.
UNCHANGED_PAST = frozenset({"set", "put", "cut", "let", "hit", "shut", "spread", "cast"})


@dataclass
class WordNet:
    """A word's synonyms by part of speech, read from WordNet's index and data files."""

    index: Mapping[str, Mapping[str, list[int]]]
    data: Mapping[str, Mapping[int, str]] | None = None
    folder: Path | None = None
    _cache: dict[tuple[str, str], list[str]] = field(default_factory=dict, repr=False)

    @classmethod
    def from_lines(cls, index: Mapping[str, Iterable[str]], data: Mapping[str, Mapping[int, str]]) -> WordNet:
        """From index lines per part of speech and data lines by offset (tests, examples)."""
        return cls({pos: _read_index(lines) for pos, lines in index.items()}, data)

    @classmethod
    def load(cls, folder: Path) -> WordNet:
        """Read `folder`'s `index.verb` and `index.noun`; data lines are read by offset when asked."""
        index = {}
        for pos in ("verb", "noun"):
            with (folder / f"index.{pos}").open(encoding="utf-8", errors="replace") as f:
                index[pos] = _read_index(f)
        return cls(index, None, folder)

    def _data_line(self, pos: str, offset: int) -> str:
        if self.data is not None:
            return self.data[pos][offset]
        assert self.folder is not None
        with (self.folder / f"data.{pos}").open("rb") as f:
            f.seek(offset)
            return f.readline().decode("utf-8", errors="replace")

    def senses(self, word: str, pos: str, n: int = 4) -> list[tuple[list[str], str]]:
        """The `n` most frequent senses of `word`: (their other words, spaced; the gloss)."""
        out = []
        for offset in self.index.get(pos, {}).get(word.lower().replace(" ", "_"), [])[:n]:
            line = self._data_line(pos, offset)
            fields = line.split()
            count = int(fields[3], 16)
            words = []
            for lemma in fields[4 : 4 + 2 * count : 2]:
                text = lemma.split("(")[0].replace("_", " ").lower()
                if text != word and text not in words and text.split()[0] not in STOP and text.isascii():
                    words.append(text)
            out.append((words, line.partition("|")[2].strip()))
        return out

    def synonyms(self, word: str, pos: str) -> list[str]:
        """The other words of `word`'s most frequent senses (`pos` is `verb` or `noun`), spaced."""
        key = (word, pos)
        if key not in self._cache:
            words = [w for sense, _ in self.senses(word, pos, SENSES) for w in sense]
            self._cache[key] = list(dict.fromkeys(words))
        return self._cache[key]


def _read_index(lines: Iterable[str]) -> dict[str, list[int]]:
    """Each lemma's synset offsets, most frequent sense first (WordNet `index.<pos>` lines)."""
    out: dict[str, list[int]] = {}
    for line in lines:
        if not line or line.startswith(" "):
            continue  # the licence header
        fields = line.split()
        synsets, pointers = int(fields[2]), int(fields[3])
        out[fields[0]] = [int(o) for o in fields[6 + pointers : 6 + pointers + synsets]]
    return out


def wordnet_dir() -> Path | None:
    """Where WordNet's files are: `PATHRAG_WORDNET_DIR`, else a system copy, else None."""
    env = os.environ.get("PATHRAG_WORDNET_DIR")
    candidates = [Path(env)] if env else list(WORDNET_DIRS)
    return next((p for p in candidates if (p / "index.verb").is_file()), None)


@lru_cache(maxsize=2)
def load_wordnet(folder: Path) -> WordNet:
    """The WordNet of `folder`, read once per process."""
    return WordNet.load(folder)


def past(verb: str) -> str:
    """The past tense (and participle) of a bare verb, regular rules or the irregular table.

    Example:
        >>> [past(v) for v in ("supply", "wed", "pen", "make", "provide", "set up")]
        ['supplied', 'wedded', 'penned', 'made', 'provided', 'set up']
    """
    from pathrag_gds.training.phrasing import IRREGULAR_PAST

    first, _, rest = verb.partition(" ")
    irregular = {base: p for p, base in IRREGULAR_PAST.items()}
    if first in irregular:
        word = irregular[first]
    elif first in UNCHANGED_PAST:
        word = first
    elif first.endswith("e"):
        word = first + "d"
    elif first.endswith("y") and len(first) > 1 and first[-2] not in "aeiou":
        word = first[:-1] + "ied"
    elif (
        3 <= len(first) <= 4
        and first[-1] not in "aeiouwxy"
        and first[-2] in "aeiou"
        and first[-3] not in "aeiou"
    ):
        word = first + first[-1] + "ed"  # pen -> penned, wed -> wedded
    else:
        word = first + "ed"
    return f"{word} {rest}".rstrip()


def third_person(verb: str) -> str:
    """The present third-person singular of a bare verb (its first word).

    Example:
        >>> [third_person(v) for v in ("provide", "go on", "carry", "watch", "veto")]
        ['provides', 'goes on', 'carries', 'watches', 'vetoes']
    """
    from pathrag_gds.training.phrasing import plural

    first, _, rest = verb.partition(" ")
    word = first + "es" if first.endswith("o") else plural(first)
    return f"{word} {rest}".rstrip()


def phrase_word(phrase: str) -> tuple[str, str, Callable[[str], str | None]] | None:
    """(part of speech, the word to ask WordNet for, how a synonym is put back) of a relation phrase.

    None for a phrase with no verb, participle or role noun to replace (`is part of`).

    Example:
        >>> pos, word, put = phrase_word("was written by")
        >>> pos, word, put("pen")
        ('verb', 'write', 'was penned by')
        >>> phrase_word("takes place in")[1], phrase_word("is the owner of")[:2]
        ('take place', ('noun', 'owner'))
    """
    from pathrag_gds.training.phrasing import PREPOSITIONS, ROLE_PHRASE, base_verb, past_base_verb

    words = phrase.lower().split()
    if not words:
        return None
    role = ROLE_PHRASE.fullmatch(" ".join(words))
    if role:
        if " " in role.group(2):
            return None
        article = role.group(1)

        def noun(new: str) -> str:
            a = article if article == "the" else ("an" if new[0] in "aeiou" else "a")
            return f"is {a} {new} of"

        return "noun", role.group(2), noun
    if words[0] in {"is", "was", "are", "were"} and len(words) >= 2:  # `is located in`, `was written by`
        base = PARTICIPLES.get(words[1]) or past_base_verb(words[1])
        if base is None:
            return None
        return "verb", base, lambda new: " ".join([words[0], past(new), *words[2:]])
    base, was = base_verb(words[0]), False
    if base is None:
        base, was = past_base_verb(words[0]), True
    if base is None:
        return None
    tail = words[1:]
    if tail and tail[0] not in PREPOSITIONS:  # `takes place in`: the verb and its noun are one lemma
        base, tail = f"{base} {tail[0]}", tail[1:]

    def verb(new: str) -> str | None:
        if tail and new.split()[-1] in PREPOSITIONS:  # `lives in`: not `hides out in in`
            return None
        return " ".join([past(new) if was else third_person(new), *tail])

    return "verb", base, verb


def rewordings(phrase: str, words: Callable[[str, str], list[str]]) -> list[str]:
    """The phrase said with each synonym `words(word, pos)` gives for its verb or role noun.

    Example:
        >>> rewordings("supplies", lambda w, pos: ["provide", "furnish"])
        ['provides', 'furnishes']
        >>> rewordings("is part of", lambda w, pos: ["piece"])
        []
    """
    found = phrase_word(phrase)
    if found is None:
        return []
    from pathrag_gds.training.phrasing import PREPOSITIONS

    pos, word, put = found
    out = [put(w) for w in words(word, pos)]
    return [
        o
        for o in dict.fromkeys(out)
        if o
        and o != phrase
        and not any(a in PREPOSITIONS and b in PREPOSITIONS for a, b in itertools.pairwise(o.split()))
    ]


def synonym_table(
    phrases: Mapping[str, str],
    wordnet: WordNet,
    encode: Callable[[list[str]], Any] | None = None,
) -> dict[str, list[str]]:
    """Each relation phrase's rewordings, from the WordNet sense that reads most like its relation.

    `phrases`: phrase -> what the relation means (the ontology's description). With `encode` (the
    sentence encoder: texts -> unit vectors) the sense whose gloss and words are nearest that
    meaning gives the synonyms (`directed` a film is not `aimed`); without, the two most frequent.
    """
    out: dict[str, list[str]] = {}
    for phrase, meaning in phrases.items():
        found = phrase_word(phrase)
        if found is None:
            continue
        pos, word, _ = found
        senses = [s for s in wordnet.senses(word, pos) if s[0]]
        if not senses:
            continue
        if encode is None:
            chosen = [w for ws, _ in senses[:SENSES] for w in ws]
        else:
            import numpy as np

            vectors = np.asarray(
                encode([f"{phrase}: {meaning}"] + [f"{word}, {', '.join(ws)}: {g}" for ws, g in senses])
            )
            best = int(np.argmax(vectors[1:] @ vectors[0]))
            chosen = senses[best][0]
        options = rewordings(phrase, lambda w, p, c=chosen: c)  # type: ignore[misc]
        if options:
            out[phrase] = options
    return out
