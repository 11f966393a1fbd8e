"""The English words intent detection reads: wh-words, function words, property nouns (no dataset's).

Every list a rule consults is named here, with what it is for; the rules themselves are in
:mod:`pathrag_gds.intent.rules`.
"""

from __future__ import annotations

#: Generic concepts behind wh-words without a noun (compared with type descriptions by embedding).
WH_CONCEPTS: dict[str, str] = {
    "who": "a person or a character, someone",
    "whom": "a person or a character, someone",
    "whose": "a person or a character, someone",
    "where": "a place or a location",
    "when": "a time, a date or a year",
}
#: Wh-words that ask for a person (and take no type noun).
PERSON_WH = frozenset({"who", "whom"})
#: Wh-words that take the noun after them as the type word (`which village`, `what movies`).
NOUN_WH = ("which", "what")
#: Wh-words that need no noun (`where was Bob`).
NOUNLESS_WH = ("where", "when", "whose")
#: Wh-words a definition question opens with.
DEFINITION_WH = frozenset({"who", "what", "which"})
#: Openers of a definition question about a named entity (`who is Jane?`).
DEFINITION_OPENERS = (("who", "is"), ("who", "are"), ("what", "is"))
#: Words that open a relative clause (`the dog that chases Bob`): the question then holds two
#: relations, and the one nearest the named entity need not be the one asked about.
RELATIVE_WORDS = frozenset({"that", "which", "who", "whom", "whose", "where", "when"})
#: Relative words that open a clause linking its noun to X ("the girl who skippers X").
LINK_RELATIVES = frozenset({"that", "which", "who", "whom"})
#: Words that open a clause of time after the question's own clause ("Where was Bob when the kitchen
#: was cleaned up?"): the wh-word asks about the clause before it; the later clause names the occasion.
TEMPORAL_WORDS = ("when", "while")
#: Nouns that ask for a property of a named entity, not for another entity (general English).
ATTRIBUTE_NOUNS = frozenset(
    {
        "colour", "color", "age", "size", "height", "weight", "length", "name", "population", "breed",
        "species", "price", "temperament", "address", "material", "shape", "occupation", "job", "food",
        "number", "hobby", "role", "mood", "texture",
    }
)  # fmt: skip
#: Question openers asking about a property ("how old is ..."); the second word is the property.
ATTRIBUTE_OPENERS = ("how old", "how big", "how tall", "how many", "how much", "how long")
#: Words skipped when looking for the type noun and for the question's own content words.
STOP_WORDS = frozenset(
    {
        "is", "are", "was", "were", "be", "been", "did", "does", "do", "has", "have", "had", "can", "could",
        "would", "will", "should", "the", "a", "an", "of", "in", "on", "at", "for", "to", "by", "with",
        "from", "that", "this", "these", "those", "and", "or", "also", "whose", "who", "which", "what",
        "when", "where", "x", "kind", "type", "sort", "kinds", "types", "sorts", "primary", "main",
        "spoken", "share", "shares", "together", "it", "its", "their", "his", "her", "he", "she", "they",
        "there", "first", "other",
    }
)  # fmt: skip
#: `kind of` / `type of` before a noun: skipped with their `of` (`what kind of animal`).
KIND_OF_WORDS = frozenset({"kind", "type", "sort", "kinds", "types", "sorts"})
#: The copula of "what kind of movie IS X" (the named entity is one of the kind asked).
COPULAS = frozenset({"is", "are", "was", "were"})
#: Auxiliaries right after `what`/`which` put the subject next (`what did X ...`): no type noun follows.
AUXILIARY_OPENERS = frozenset({"did", "does", "do", "can", "could", "will"})
#: Words that close a noun phrase after the wh-word ("which lifeboat volunteer IS ...", "... THAT"):
#: what comes before them is the whole phrase, ending in its head (`text.closed_phrase`).
PHRASE_CLOSERS = (
    COPULAS
    | AUXILIARY_OPENERS
    | RELATIVE_WORDS
    | frozenset({"has", "have", "had", "would", "should", "may", "might", "must"})
)
#: How a request without a wh-word opens before the noun phrase it asks for (`name the people ...`).
REQUEST_OPENERS = frozenset({"name", "list", "give", "show", "find", "me", "the", "a", "an", "all", "every"})
#: `do`-support after a wh-word (`what does the company make`): the question's last verb is asked.
DO_SUPPORT = frozenset({"do", "does", "did"})
#: Particles a question's last verb can end with (`work for`, `star in`).
VERB_PARTICLES = frozenset({"in", "for", "from", "at", "with", "to", "about", "on", "by", "of", "into"})
#: Words of a relation phrase that say nothing about its verb (`is married to` -> `married to`).
PHRASE_FILLER = frozenset({"is", "are", "was", "were", "be", "a", "an", "the", "its", "has", "have", "had"})
#: Words a described entity's name may hold without them counting towards its content words.
FUNCTION_WORDS = frozenset(
    {
        "is", "are", "was", "were", "be", "been", "did", "does", "do", "has", "have", "had", "the", "a",
        "an", "of", "in", "on", "at", "for", "to", "by", "with", "from", "and", "or", "up", "out", "off",
    }
)  # fmt: skip
#: Words of a personal name that are a title, not the name (`Mrs` of `Mrs Patel`): no part name alone.
NAME_TITLES = frozenset(
    {
        "mr", "mrs", "ms", "miss", "dr", "doctor", "sir", "lady", "lord", "saint", "st", "captain",
        "father", "mother", "uncle", "aunt", "auntie", "old", "young", "little", "big",
    }
)  # fmt: skip
#: Placeholder for masked named mentions.
MASK = "X"
#: Shortest name matched in a question, in characters (shorter ones match inside too many words).
MIN_NAME_CHARS = 3
#: Words of a type noun phrase read after the wh-word (`which movie genre`).
NOUN_PHRASE_WORDS = 2
#: Content words a described entity's name or kind needs before stems may match it (one-word names
#: match exactly only, as named entities).
DESCRIBED_MIN_WORDS = 2
