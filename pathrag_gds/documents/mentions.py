"""Which of a community's entities a chunk mentions: their names and aliases, word for word.

No extraction model: a name (or alias) is mentioned where its words appear in a row, case and
punctuation aside ("Bob's house" in "bob's House!"). At each word the longest name wins, so "Garden
shed" is one mention and not also "Garden". Lookup is a dictionary per position, so a community of
tens of thousands of entities costs no more per word than a small one.

Example:
    >>> index = MentionIndex([("e1", "Bob", ()), ("e2", "Bob's house", ("the yellow house",))])
    >>> index.find("Bob ran to Bob's house, the yellow house.")
    ['e1', 'e2']
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_WORD = re.compile(r"\w+")

#: Names shorter than this (in characters) are not matched: "A", "it" would match everywhere.
MIN_NAME_CHARS = 2


def words(text: str) -> tuple[str, ...]:
    """The lower-cased words of a text (letters and digits; apostrophes and dashes split words)."""
    return tuple(w.lower() for w in _WORD.findall(text))


class MentionIndex:
    """Entity names and aliases of one community, looked up by their words.

    Args:
        entities: (entity id, name, aliases) triples.
    """

    def __init__(self, entities: Iterable[tuple[str, str, Iterable[str]]]) -> None:
        self._names: dict[tuple[str, ...], list[str]] = {}
        self.longest = 0
        for eid, name, aliases in entities:
            for phrase in (name, *aliases):
                key = words(phrase)
                if not key or len(phrase.strip()) < MIN_NAME_CHARS:
                    continue
                ids = self._names.setdefault(key, [])
                if eid not in ids:
                    ids.append(eid)
                self.longest = max(self.longest, len(key))

    def __len__(self) -> int:
        return len(self._names)

    def find(self, *texts: str) -> list[str]:
        """Ids of the entities mentioned in the texts, each once, in order of first mention."""
        found: dict[str, None] = {}
        for text in texts:
            ws = words(text)
            i = 0
            while i < len(ws):
                for n in range(min(self.longest, len(ws) - i), 0, -1):
                    ids = self._names.get(ws[i : i + n])
                    if ids:
                        found.update(dict.fromkeys(ids))
                        i += n
                        break
                else:
                    i += 1
        return list(found)
