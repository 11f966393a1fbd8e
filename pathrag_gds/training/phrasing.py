"""Idiomatic question forms for one relation, read from its ontology phrase (pure, no graph).

The templates of :mod:`pathrag_gds.training.questions` nest relative clauses ("What is the place
that Jane lives in?"). People ask shorter: "Where does Jane live?", "Who are Bob's friends?",
"In which room did the incident take place?". This module turns a relation phrase into those forms
with a little grammar, and only when the phrase has a shape it can read:

- a role noun (`is a friend of`, `is the home of`, `is the release year of`): the subject is the
  object's ROLE, so ask with a possessive: ``Who are Bob's friends?``, ``What is Jane's home?``;
- a present-tense verb (`lives in`, `takes place in`, `owns`): do-support, present and past:
  ``Where does Jane live?``, ``Which animal did Jane own?``, ``In which room did X take place?``;
- a past-tense verb (`directed`, `starred in`, `wrote`): do-support in the past only:
  ``Which movies did Tom Hanks star in?``, ``What did Nora Ephron write?``;
- a copula with a participle (`is located in`): ``Where is the bakery located?``;
- a transitive verb with a common agent noun (`owns` -> owner, `directed` -> director): the subject
  is the object's agent: ``Who is the owner of the dog that chases Bob?``, ``Who is Rex's owner?``.

Nested descriptions read the same way (:meth:`Sentence.subject_nouns`, :meth:`Sentence.where_clause`):
"Bob's squirrel friend", "the owner of Rex", "the tree where Joy lives".

Other shapes (`is in`, `has the genre`) give no extra forms; the nested templates still cover them.

Example:
    >>> Sentence.parse("lives in").object_forms("Jane", "place", "Where")[::2]
    ['Where does Jane live?', 'Which place does Jane live in?']
    >>> Sentence.parse("is a friend of").subject_forms("Bob", "animal", "Who")[:3]
    ["Who is Bob's friend?", "Who are Bob's friends?", "Which animal is Bob's friend?"]
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pathrag_gds.paths import KIND_KEYS, kind_noun

__all__ = ["KIND_KEYS", "kind_noun"]  # re-exported: the generator names entities by their kind

#: Prepositions after which the answer is a location (`Where ...?` when it is not a person).
LOCATIVE = frozenset({"in", "at", "on", "into", "inside", "near"})
PREPOSITIONS = LOCATIVE | frozenset({"of", "with", "by", "to", "from", "for", "after", "before", "about"})
#: Irregular past tenses and their bare verbs (the regular `-ed` ones are read by rule).
IRREGULAR_PAST = {
    "wrote": "write", "made": "make", "won": "win", "led": "lead", "took": "take", "gave": "give",
    "sang": "sing", "built": "build", "met": "meet", "found": "find", "began": "begin", "ran": "run",
    "told": "tell", "bought": "buy", "sold": "sell", "left": "leave", "held": "hold", "saw": "see",
    "drew": "draw", "shot": "shoot", "knew": "know", "taught": "teach", "fought": "fight",
}  # fmt: skip
#: Stem endings after which a dropped `-ed` leaves an `e` off (`released` -> `release`).
E_STEMS = ("at", "iz", "is", "ov", "iv", "ur", "ir", "nc", "rg", "dg", "ag", "as", "us", "uc", "od", "ut")
#: Agent nouns of common transitive verbs (general English): `S owns O` makes S "the owner of O".
#: Only verbs listed here get agent forms: a rule (`involve` -> `involver`) would invent words.
AGENT_NOUNS = {
    "own": "owner", "chase": "chaser", "write": "writer", "direct": "director", "produce": "producer",
    "create": "creator", "found": "founder", "lead": "leader", "teach": "teacher", "build": "builder",
    "design": "designer", "compose": "composer", "edit": "editor", "invent": "inventor",
    "publish": "publisher", "employ": "employer", "manage": "manager", "paint": "painter",
    "sing": "singer", "develop": "developer", "discover": "discoverer", "rule": "ruler",
    "narrate": "narrator", "translate": "translator", "illustrate": "illustrator", "coach": "coach",
    "feed": "feeder", "photograph": "photographer", "guard": "guard", "visit": "visitor",
}  # fmt: skip
#: Agent nouns of verbs that take a preposition (`starred in`: "a star of"), for `co-` nouns only.
PREP_AGENT_NOUNS = {"star": "star", "act": "actor", "perform": "performer", "play": "player"}
IRREGULAR = {"child": "children", "person": "people", "man": "men", "woman": "women", "mouse": "mice"}
#: Words in an entity type's label or description that make `where` the right question word.
PLACE_WORDS = frozenset(
    {"place", "location", "city", "town", "village", "country", "room", "building", "region"}
)
#: Words in an entity type's label or description that make `when` the right question word.
TIME_WORDS = frozenset({"year", "date", "time", "day", "month", "decade", "century", "period", "era"})
#: Prepositions after which a time-like answer is asked with `When ...?` (`was released in`).
TEMPORAL = frozenset({"in", "on", "at", "during", "since"})


def plural(noun: str) -> str:
    """English plural of a noun (regular rules, last word only).

    Example:
        >>> plural("friend"), plural("city"), plural("box"), plural("release year"), plural("child")
        ('friends', 'cities', 'boxes', 'release years', 'children')
        >>> plural("grandchild"), plural("great-niece")
        ('grandchildren', 'great-nieces')
    """
    head, _, last = noun.rpartition(" ")
    if last in IRREGULAR:
        return f"{head} {IRREGULAR[last]}".strip()
    if last.endswith("child"):  # grandchild, stepchild
        return noun + "ren"
    if noun.endswith(("s", "x", "ch", "sh")):
        return noun + "es"
    if noun.endswith("y") and len(noun) > 1 and noun[-2] not in "aeiou":
        return noun[:-1] + "ies"
    return noun + "s"


def base_verb(word: str) -> str | None:
    """The bare form of a present-tense third-person verb, else None (`takes` -> `take`).

    Example:
        >>> base_verb("takes"), base_verb("watches"), base_verb("directed"), base_verb("is")
        ('take', 'watch', None, None)
    """
    if word in {"is", "has", "was", "does"} or not word.endswith("s") or word.endswith("ss"):
        return None
    if word.endswith(("ches", "shes", "xes", "sses", "zes")):
        return word[:-2]
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    return word[:-1]


#: A role-noun phrase: `is (a|an|the) <role> of` (`is a friend of`, `is the home of`).
ROLE_PHRASE = re.compile(r"is (a|an|the) ([a-z][a-z ]*?) of")
#: Plural forms of the verbs :func:`base_verb` leaves alone.
PLURAL_VERBS = {"is": "are", "was": "were", "has": "have", "does": "do"}


def agree(phrase: str, many: bool) -> str:
    """The relation phrase with its verb agreeing with a plural subject when `many`.

    Example:
        >>> [agree(p, True) for p in ("is located in", "takes place in", "starred in", "is a friend of")]
        ['are located in', 'take place in', 'starred in', 'are friends of']
        >>> agree("owns", False)
        'owns'
    """
    if not many:
        return phrase
    m = ROLE_PHRASE.fullmatch(phrase)
    if m:
        article = "the " if m.group(1) == "the" else ""
        return f"are {article}{plural(m.group(2))} of"
    first, _, rest = phrase.partition(" ")
    word = PLURAL_VERBS.get(first) or base_verb(first) or first
    return f"{word} {rest}".rstrip()


def past_base_verb(word: str) -> str | None:
    """The bare form of a past-tense verb, else None (`directed` -> `direct`, `wrote` -> `write`).

    Example:
        >>> [past_base_verb(w) for w in ("directed", "starred", "released", "wrote", "lives", "red")]
        ['direct', 'star', 'release', 'write', None, None]
    """
    if word in IRREGULAR_PAST:
        return IRREGULAR_PAST[word]
    if not word.endswith("ed") or len(word) < 5:
        return None
    stem = word[:-2]
    if stem.endswith("i"):  # carried -> carry
        return stem[:-1] + "y"
    if len(stem) > 2 and stem[-1] == stem[-2] and stem[-1] not in "lsfz":  # starred -> star
        return stem[:-1]
    if stem.endswith(E_STEMS):
        return stem + "e"
    return stem


def capitalize_first(text: str) -> str:
    """Upper-case the first character only (`str.capitalize` would lower-case the names after it)."""
    return text[:1].upper() + text[1:]


def possessable(name: str) -> bool:
    """Does `<name>'s` read? A plain name only: not a clause, a `the ...` phrase or a possessive.

    Example:
        >>> possessable("Bob"), possessable("the cat that Jane owns"), possessable("Bob's house")
        (True, False, False)
    """
    low = f" {name.lower()} "
    return not (low.startswith(" the ") or " that " in low or " of " in low or "'" in name)


@dataclass(frozen=True)
class Sentence:
    """A relation phrase split into its grammar: `S <phrase> O`.

    Attributes:
        role: the role noun of `is (a|an|the) <role> of` phrases (`friend`), else "".
        verb: the bare verb of a present-tense phrase (`live`), else "".
        rest: words after the verb without a final preposition (`place` of `takes place in`).
        prep: the final preposition (`in`), else "".
        participle: the participle of `is|was <participle> <prep>` phrases (`located`), else "".
        copula: `is` or `was` for participle phrases.
        past: the verb phrase is in the past tense (asked with `did` only).
    """

    role: str = ""
    verb: str = ""
    rest: str = ""
    prep: str = ""
    participle: str = ""
    copula: str = "is"
    past: bool = False

    @classmethod
    def parse(cls, phrase: str) -> Sentence:
        """Read a phrase (`is the home of`, `takes place in`, `is located in`, `owns`)."""
        words = phrase.lower().split()
        if not words:
            return cls()
        m = ROLE_PHRASE.fullmatch(" ".join(words))
        if m:
            return cls(role=m.group(2))
        prep = words[-1] if len(words) > 1 and words[-1] in PREPOSITIONS else ""
        body = words[:-1] if prep else words
        if words[0] in {"is", "was"} and len(body) == 2 and body[1].endswith(("ed", "en")):
            return cls(participle=body[1], prep=prep, copula=words[0])
        verb, past = base_verb(body[0]), False
        if verb is None and words[0] not in {"is", "was", "has", "had"}:
            verb, past = past_base_verb(body[0]), True
        if verb is None or any(w in {"is", "was", "has"} for w in body[1:]):
            return cls()
        return cls(verb=verb, rest=" ".join(body[1:]), prep=prep, past=past)

    @property
    def agent(self) -> str:
        """The agent noun of a transitive verb phrase (`owns` -> `owner`), else ""."""
        if not self.verb or self.rest or self.prep:
            return ""
        return AGENT_NOUNS.get(self.verb, "")

    def subject_nouns(self, obj: str, kind: str | None = None) -> list[str]:
        """Noun phrases for the SUBJECT of `S <phrase> <obj>`: `the owner of Rex`, `Bob's friend`.

        Role nouns and agent nouns only; the possessive (`Rex's owner`, with the subject's kind
        when given: `Bob's squirrel friend`) only after a plain name (:func:`possessable`).

        Example:
            >>> Sentence.parse("is a friend of").subject_nouns("Bob", "squirrel")
            ['the friend of Bob', "Bob's friend", "Bob's squirrel friend"]
            >>> Sentence.parse("owns").subject_nouns("the dog that chases Bob")
            ['the owner of the dog that chases Bob']
        """
        noun = self.role or self.agent
        if not noun:
            return []
        out = [f"the {noun} of {obj}"]
        if possessable(obj):
            out.append(f"{obj}'s {noun}")
            if kind and kind not in noun.split():
                out.append(f"{obj}'s {kind} {noun}")
        return out

    def where_clause(self, subj: str, many: bool = False) -> str:
        """`where <subj> <verb>` for a present-tense locative phrase, else "" (`where Joy lives`).

        `many`: the subject is plural (`where the squirrels that Bob befriends live`).
        """
        if not self.verb or self.past or self.prep not in LOCATIVE:
            return ""
        verb = self.verb if many else plural(self.verb)  # the third-person -s follows the plural's rules
        return f"where {subj} {verb} {self.rest}".rstrip()

    def subject_forms(self, obj: str, noun: str, wh: str) -> list[str]:
        """Questions whose answer is the SUBJECT of `S <phrase> <obj>`: role and agent nouns.

        Args:
            obj: how the object is named (a name or a noun phrase).
            noun: the answer's type or kind noun (`animal`, `village`).
            wh: `Who` for persons, else `What` (`Where` is read as `What`).
        """
        role = self.role or self.agent
        if not role:
            return []
        wh = "Who" if wh == "Who" else "What"
        out = [f"{wh} is the {role} of {obj}?", f"{wh} are the {plural(role)} of {obj}?"]
        if not possessable(obj):
            return out
        return [
            f"{wh} is {obj}'s {role}?",
            f"{wh} are {obj}'s {plural(role)}?",
            f"Which {noun} is {obj}'s {role}?",
            *out,
        ]

    def object_forms(self, subj: str, noun: str, wh: str, many: bool = False) -> list[str]:
        """Questions whose answer is the OBJECT of `<subj> <phrase> O` (do-support or a participle).

        Args:
            subj: how the subject is named.
            noun: the answer's type or kind noun.
            wh: `Who` for persons, `Where` for places, `When` for times, else `What` (`Where` and
                `When` are asked only after a locative or temporal preposition).
            many: the subject is plural (`the movies that X directed`): the verb agrees with it.

        Example:
            >>> Sentence.parse("was released in").object_forms("Heat", "year", "When")[:2]
            ['When was Heat released?', 'Which year was Heat released in?']
            >>> released = Sentence.parse("was released in")
            >>> released.object_forms("the movies that Al directed", "year", "When", many=True)[0]
            'When were the movies that Al directed released?'
        """
        locative = self.prep in LOCATIVE and wh == "Where"
        temporal = self.prep in TEMPORAL and wh == "When"
        if self.participle:
            copula = agree(self.copula, many)
            out = [f"Which {noun} {copula} {subj} {self.participle} {self.prep}".rstrip() + "?"]
            if locative:
                out = [f"Where {agree(c, many)} {subj} {self.participle}?" for c in ("is", "was")] + out
            elif temporal:
                out = [f"When {copula} {subj} {self.participle}?", *out]
            elif wh == "Who" and self.prep == "by":
                out.append(f"Who {copula} {subj} {self.participle} by?")
            return out
        if not self.verb:
            return []
        core = f"{self.verb} {self.rest}".strip()
        word = "Who" if wh == "Who" and not self.prep else "What"
        if locative or temporal:
            word = wh
        tail = "" if locative or temporal else (f" {self.prep}" if self.prep else "")
        does = agree("does", many)
        aux = "did" if self.past else does
        out = [f"{word} did {subj} {core}{tail}?"]
        if not self.past:
            out.insert(0, f"{word} {does} {subj} {core}{tail}?")
        full = f"{core} {self.prep}".strip()
        out.append(f"Which {noun} {aux} {subj} {full}?")
        if self.prep:
            out.append(f"{capitalize_first(self.prep)} which {noun} {aux} {subj} {core}?")
        return out


def co_forms(phrase: str, other: str) -> tuple[list[str], list[str]]:
    """How people say that someone shares the object of `phrase` with `other` (general English).

    For `Y <phrase> M` and `other <phrase> M` (Y and `other` share M): clauses with Y as subject
    (`co-starred with X`, `starred together with X`) and noun phrases for Y (`X's co-stars`).
    `co-` goes only with a past-tense verb (`co-wrote with`; `co-owns with` does not read); the noun
    needs an agent noun (:data:`AGENT_NOUNS`, :data:`PREP_AGENT_NOUNS`). Phrases that are not a
    verb (`is the genre of`) or hold more than a verb and a preposition give nothing.

    Example:
        >>> co_forms("starred in", "Al")
        (['co-starred with Al', 'starred together with Al'], ["Al's co-stars", 'the co-stars of Al'])
        >>> co_forms("lives in", "the squirrel Joy")
        (['lives together with the squirrel Joy'], [])
        >>> co_forms("is the genre of", "Heat")
        ([], [])
    """
    s = Sentence.parse(phrase)
    if not s.verb or s.rest:
        return [], []
    word = phrase.split()[0].lower()
    clauses = [f"co-{word} with {other}"] if s.past else []
    clauses.append(f"{word} together with {other}")
    agent = AGENT_NOUNS.get(s.verb) or PREP_AGENT_NOUNS.get(s.verb, "")
    nouns = []
    if agent:
        if possessable(other):
            nouns.append(f"{other}'s co-{plural(agent)}")
        nouns.append(f"the co-{plural(agent)} of {other}")
    return clauses, nouns
