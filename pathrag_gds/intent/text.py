"""Plain text handling for intent: words, crude English stems, the wh-word and its noun, the asked clause.

No model and no ontology here: what the question's words say on their own.

Example:
    >>> head_noun("which village was bob in".split(), 0)
    'village'
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import lru_cache
from itertools import takewhile

from pathrag_gds.intent.lexicon import (
    ATTRIBUTE_NOUNS,
    ATTRIBUTE_OPENERS,
    AUXILIARY_OPENERS,
    COPULAS,
    KIND_OF_WORDS,
    LINK_RELATIVES,
    MASK,
    NOUN_PHRASE_WORDS,
    NOUN_WH,
    NOUNLESS_WH,
    PERSON_WH,
    PHRASE_CLOSERS,
    REQUEST_OPENERS,
    STOP_WORDS,
    TEMPORAL_WORDS,
    VERB_PARTICLES,
)


@lru_cache(maxsize=65536)
def singular(word: str) -> str:
    """A crude English singular: `movies` -> `movie`, `languages` -> `language`, `boxes` -> `box`."""
    w = word.lower()
    if len(w) > 4 and w.endswith(("vies", "kies", "zies")):  # movies, cookies
        return w[:-1]
    if len(w) > 4 and w.endswith("ies"):
        return w[:-3] + "y"
    if len(w) > 4 and re.search(r"(s|x|ch|sh)es$", w):
        return w[:-2]
    if len(w) > 3 and w.endswith("s") and not w.endswith("ss"):
        return w[:-1]
    return w


def words(text: str) -> list[str]:
    """Lower-case words (letters, digits, apostrophes).

    Example:
        >>> words("Who is Bob's owner?")
        ['who', 'is', "bob's", 'owner']
    """
    return re.findall(r"[a-z0-9']+", text.lower())


def stem(word: str) -> str:
    """A crude English stem: :func:`singular`, then `-ing` / `-ed` off (`cleaned` -> `clean`).

    Example:
        >>> [stem(w) for w in ("cleaned", "meeting", "spilling", "stopped", "used", "incidents")]
        ['clean', 'meet', 'spill', 'stop', 'used', 'incident']
    """
    w = singular(word)
    for suffix in ("ing", "ed"):
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            w = w[: -len(suffix)]
            if len(w) > 3 and w[-1] == w[-2] and w[-1] not in "lsz":  # stopped -> stop, not spill
                w = w[:-1]
            break
    return w


def verb_key(word: str) -> str:
    """A verb's form that its inflections share: :func:`stem`, a final `e` off, a final `y` as `i`.

    Example:
        >>> [verb_key(w) for w in ("make", "makes", "study", "studied", "marry", "married", "chases")]
        ['mak', 'mak', 'studi', 'studi', 'marri', 'marri', 'chas']
    """
    w = stem(word)
    if w.endswith("e") and len(w) > 3:
        w = w[:-1]
    if w.endswith("y") and len(w) > 3:
        w = w[:-1] + "i"
    return w


def stems(text: str) -> list[str]:
    """The stems of the words of `text` (apostrophes split words)."""
    return [stem(w) for w in re.findall(r"[a-z0-9]+", text.lower())]


def asks_for_a_kind(tokens: Sequence[str], i: int) -> bool:
    """Is the word at `i` a kind word (`types`, `sort`) that is itself the asked noun?

    "What types are the movies directed by X?" asks for a category of the movies (their genres),
    not for movies: the wh-word's noun is `types`, and the subject comes after the verb. Only
    "what kind of animal" reads the noun after `of` as the type word.

    Example:
        >>> asks_for_a_kind("what types are the movies".split(), 1)
        True
        >>> asks_for_a_kind("what kind of film".split(), 1)
        False
    """
    return tokens[i] in KIND_OF_WORDS and (i + 1 >= len(tokens) or tokens[i + 1] != "of")


def asks_kind_of_named(tokens: Sequence[str], wh: str) -> bool:
    """`what kind of movie is X?`: kind word, `of`, a noun, a copula, then the masked entity alone.

    Example:
        >>> asks_kind_of_named("what kind of movie is x".split(), "what")
        True
        >>> asks_kind_of_named("what kind of dog chases x".split(), "what")
        False
    """
    if not wh or wh not in tokens:
        return False
    i = list(tokens).index(wh)
    if len(tokens) < i + 4 or tokens[i + 1] not in KIND_OF_WORDS or tokens[i + 2] != "of":
        return False
    rest = list(tokens[i + 3 :])
    cop = next((k for k, x in enumerate(rest) if x in COPULAS), None)
    return cop is not None and cop >= 1 and rest[cop + 1 :] == [MASK.lower()]


def noun_phrase(tokens: Sequence[str], start: int) -> list[str]:
    """Up to two words of the noun phrase after position `start` (`which village` -> [`village`]).

    Leading `the`/`kind of`/auxiliaries are skipped (`what are the languages`); when the skipped words
    hold an auxiliary verb followed by the subject (`what did X ...`, `what was X the director of`)
    the words after it are not a type word, so the phrase is empty. A kind word right after the
    wh-word and not followed by `of` is the asked noun itself (:func:`asks_for_a_kind`).

    Example:
        >>> noun_phrase("what kind of animal is x".split(), 0), noun_phrase("what did x star in".split(), 0)
        (['animal'], [])
        >>> noun_phrase("what types are the movies directed by x".split(), 0)
        ['types']
    """
    i = start + 1
    skipped: list[str] = []
    while i < len(tokens) and tokens[i] in STOP_WORDS:
        if tokens[i] in KIND_OF_WORDS and i + 1 < len(tokens) and tokens[i + 1] == "of":
            skipped.append(tokens[i])
            i += 2
            continue
        if not skipped and asks_for_a_kind(tokens, i):
            return [tokens[i]]
        skipped.append(tokens[i])
        i += 1
    if MASK.lower() in skipped or (skipped and skipped[0] in AUXILIARY_OPENERS):
        return []
    return content_run(tokens, i)


def content_run(tokens: Sequence[str], i: int) -> list[str]:
    """The words from `i` on up to the first stop word, at most a noun phrase's length.

    Example:
        >>> content_run("the company that employs x".split(), 1)
        ['company']
    """
    run: list[str] = []
    while i < len(tokens) and tokens[i] not in STOP_WORDS and len(run) < NOUN_PHRASE_WORDS:
        run.append(tokens[i])
        i += 1
    return run


def closed_phrase(tokens: Sequence[str], phrase: Sequence[str]) -> bool:
    """Is `phrase` (two words or more) a whole noun phrase: followed by a copula, an auxiliary or nothing?

    A relative word closes it too. Then its last word is its head, as in every English compound
    ("which lifeboat volunteer is ..." asks for a volunteer); a phrase followed by other words may
    end in a verb instead ("which dog keeps chasing ...", "which words describe X").

    Example:
        >>> closed_phrase("which lifeboat volunteer is married to x".split(), ["lifeboat", "volunteer"])
        True
        >>> closed_phrase("which words describe x".split(), ["words", "describe"])
        False
    """
    n = len(phrase)
    if n < 2:
        return False
    for i in range(len(tokens) - n + 1):
        if list(tokens[i : i + n]) == list(phrase):
            return i + n == len(tokens) or tokens[i + n] in PHRASE_CLOSERS
    return False


def names_a_property(phrase: str) -> bool:
    """Does the phrase hold a property noun (`name`, `age`, `colour`)? Then it is no link of a chain.

    Example:
        >>> names_a_property("name"), names_a_property("old boat"), names_a_property("ages")
        (True, False, True)
    """
    return any(singular(w) in ATTRIBUTE_NOUNS for w in phrase.split())


def link_nouns(masked: str) -> tuple[str, ...]:
    """The nouns a chain of possessives from X, or of `of` phrases and relative clauses into X, names.

    Nearest X first, each names the entity at its link: "X's father's boat" passes a father and
    ends at a boat; "the dinghy of X's son" passes a son and ends at a dinghy; "the grandfather of
    the girl who skippers X" passes a girl. Each phrase gives its last word
    (its head); the phrase after the last possessive gives up to two words before a function word
    ("X's old boat is ..." -> `old boat`), of which the reader takes the one a type fits best.

    Example:
        >>> link_nouns("What is the name of X's father's boat?")
        ('father', 'boat', 'name')
        >>> link_nouns("Where is the dinghy of X's son?"), link_nouns("who is the brother of the wife of X")
        (('son', 'dinghy'), ('wife', 'brother'))
        >>> link_nouns("Who directed X?"), link_nouns("Where is X's favourite toy kept?")
        ((), ('favourite toy',))
        >>> link_nouns("Where does the grandfather of the girl who skippers X live?")
        ('girl', 'grandfather')
    """
    toks = re.findall(r"[\w-]+|'s\b", masked.replace("\u2019", "'"))
    if MASK not in toks:
        return ()
    x = toks.index(MASK)
    nouns: list[str] = []
    i = x
    while i + 2 < len(toks) and toks[i + 1] == "'s" and toks[i + 2] != "'s":
        # the words up to the next possessive (at most three), else the one word after this one
        run = list(takewhile(lambda w: w != "'s", toks[i + 2 : i + 6]))
        if i + 2 + len(run) < len(toks) and toks[i + 2 + len(run)] == "'s" and len(run) <= 3:
            nouns.append(run[-1].lower())
            i += 1 + len(run)
            continue
        # the phrase after the last possessive: up to two words before a function word
        phrase = " ".join(takewhile(lambda w: w.lower() not in STOP_WORDS, run[:2]))
        nouns.append((phrase or run[0]).lower())
        break
    end = x
    while end >= 3:
        if toks[end - 1].lower() == "of":  # "the [w] noun of" before the phrase that holds X
            at = end - 2
        else:  # "the [w] noun that [v v v]" before it: a relative clause about X
            rel = range(end - 1, max(end - 5, 1), -1)
            at = next((r - 1 for r in rel if toks[r].lower() in LINK_RELATIVES), -1)
            if at < 1 or toks[at].lower() in STOP_WORDS:
                break
        det = next((d for d in (at - 1, at - 2) if d >= 0 and toks[d].lower() in {"the", "a", "an"}), None)
        if det is None:
            break
        nouns.append(toks[at].lower())
        end = det
    return tuple(nouns)


def head_noun(tokens: Sequence[str], start: int) -> str:
    """The last word of :func:`noun_phrase` (the head of a short English noun phrase)."""
    phrase = noun_phrase(tokens, start)
    return phrase[-1] if phrase else ""


def opening_wh(tokens: Sequence[str]) -> int | None:
    """The position of the wh-word that opens the question (first, or after a preposition), if any.

    "Where were the people who founded X born?" asks where; its `who` is a relative pronoun.
    MetaQA's "the films directed by X were written by who" has no opening wh-word.

    Example:
        >>> opening_wh("where were the people who founded x born".split())
        0
        >>> opening_wh("in which city".split())
        1
        >>> opening_wh("the films by x were written by who".split()) is None
        True
    """
    for i, w in enumerate(tokens[:2]):
        if w in PERSON_WH or w in NOUN_WH or w in NOUNLESS_WH:
            return i
        if w not in VERB_PARTICLES:
            return None
    return None


def wh_and_noun(masked: str) -> tuple[str, str]:
    """The wh-word and the noun it asks about (`which village` -> (`which`, `village`)).

    `which`/`what` take the noun after them (`what movies`, `what are the languages`, `what was the
    release year`); `who`/`where`/`when` need no noun (`who is the director` keeps `director` only
    as a hint for relations, not as the type word). `how old` and the other
    :data:`~pathrag_gds.intent.lexicon.ATTRIBUTE_OPENERS` give (`how`, the property).

    Example:
        >>> wh_and_noun("In which village was X?"), wh_and_noun("how old is X")
        (('which', 'village'), ('how', 'old'))
    """
    tokens = words(masked)
    opening = opening_wh(tokens)
    if opening is not None and tokens[opening] not in PERSON_WH:
        tokens = tokens[opening:]  # a later `who` is a relative pronoun ("the people who founded")
    elif any(w in PERSON_WH for w in tokens):
        return ("who" if "who" in tokens else "whom"), ""
    for i, w in enumerate(tokens):
        if w in NOUN_WH:
            phrase = [n for n in noun_phrase(tokens, i) if not n.endswith("'s")]
            return w, " ".join(phrase)
        if w in NOUNLESS_WH:
            return w, ""
    low = masked.lower()
    for opener in ATTRIBUTE_OPENERS:
        if low.startswith(opener):
            return "how", opener.split()[1]
    return "", " ".join(request_noun(tokens))


def request_noun(tokens: Sequence[str]) -> list[str]:
    """The noun phrase a request without a wh-word asks for: its opening noun phrase.

    "name the people living in X", "the company that employs X's siblings", "X's kids": the head
    of the phrase they open with is what they ask. Only a request that opens with an imperative
    of asking, a determiner or a possessive topic is read; other openings give nothing.

    Example:
        >>> request_noun("name the people living in x".split()), request_noun("x's kids".split())
        (['people', 'living'], ['kids'])
        >>> request_noun("the company that employs x's siblings".split()), request_noun("describe x".split())
        (['company'], [])
    """
    i = 0
    while i < len(tokens) and (tokens[i] in REQUEST_OPENERS or tokens[i] == f"{MASK.lower()}'s"):
        i += 1
    if i == 0:
        return []
    return list(takewhile(lambda w: not w.endswith("'s"), content_run(tokens, i)))


def main_clause(question: str, wh: str, mentions: Iterable[str] = ()) -> str | None:
    """The clause a wh-word asks about, when a clause of time follows it; else None.

    "Where was Bob when the kitchen was cleaned up?" asks where Bob was; the clean-up only says
    when. A `when` that is itself the question's wh-word (MetaQA's "[Macbeth], when was it
    released") opens no later clause, nor does one inside a name (`[When Nietzsche Wept]`, or any
    of `mentions`).

    Example:
        >>> main_clause("Where was Bob when the kitchen was cleaned up?", "where")
        'Where was Bob?'
        >>> main_clause("the movie [Macbeth], when was it released", "when") is None
        True
        >>> main_clause("what is [When Harry Met Sally] about", "what") is None
        True
    """
    if not wh:
        return None
    low = re.sub(r"\[[^\]]*\]", lambda m: "_" * len(m.group()), question.lower())
    for mention in mentions:
        low = re.sub(rf"(?<!\w){re.escape(mention.lower())}(?!\w)", lambda m: "_" * len(m.group()), low)
    at = re.search(rf"(?<!\w){re.escape(wh)}(?!\w)", low)
    if at is None:
        return None
    later_words = "|".join(TEMPORAL_WORDS)
    later = re.search(rf"(?<![\w'])(?:{later_words})(?![\w'])", low[at.end() :])
    if later is None:
        return None
    head = question[: at.end() + later.start()].rstrip(" ,;:-")
    return head + "?" if len(words(head)) >= 2 else None
