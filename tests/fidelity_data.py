"""A fixed set of questions with candidate path texts, for the int8-vs-fp32 fidelity test.

Built deterministically from a small hand-written fact base, in the serializer's style
(`chain summary ||| entity sentences`): for each (entity, relation) one question; its candidates are
the entity's one-hop paths (one of them answers the question) and two-hop paths through them.
"""

from __future__ import annotations

SEP = " ||| "

# entity -> (type, description, [(relation phrase, object, object type)])
FACTS: dict[str, tuple[str, str, list[tuple[str, str, str]]]] = {
    "Marie Curie": (
        "Person",
        "physicist and chemist",
        [
            ("was born in", "Warsaw", "City"),
            ("won", "Nobel Prize in Physics", "Award"),
            ("was married to", "Pierre Curie", "Person"),
            ("worked at", "University of Paris", "Organization"),
            ("discovered", "polonium", "Element"),
        ],
    ),
    "Alan Turing": (
        "Person",
        "mathematician and computer scientist",
        [
            ("was born in", "London", "City"),
            ("studied at", "King's College Cambridge", "Organization"),
            ("worked at", "Bletchley Park", "Organization"),
            ("proposed", "Turing test", "Concept"),
            ("died in", "Wilmslow", "City"),
        ],
    ),
    "The Godfather": (
        "Film",
        "1972 crime film",
        [
            ("was directed by", "Francis Ford Coppola", "Person"),
            ("stars", "Marlon Brando", "Person"),
            ("is based on", "The Godfather novel", "Book"),
            ("has genre", "crime drama", "Genre"),
            ("was released in", "1972", "Year"),
        ],
    ),
    "Amazon River": (
        "River",
        "largest river by discharge",
        [
            ("flows through", "Brazil", "Country"),
            ("flows into", "Atlantic Ocean", "Sea"),
            ("has source in", "Andes", "Mountain range"),
            ("has tributary", "Rio Negro", "River"),
            ("is longer than", "Mississippi River", "River"),
        ],
    ),
    "Jane Austen": (
        "Person",
        "English novelist",
        [
            ("wrote", "Pride and Prejudice", "Book"),
            ("was born in", "Steventon", "Village"),
            ("is buried in", "Winchester Cathedral", "Building"),
            ("had sibling", "Cassandra Austen", "Person"),
            ("was influenced by", "Samuel Richardson", "Person"),
        ],
    ),
    "Toyota": (
        "Company",
        "Japanese car maker",
        [
            ("is headquartered in", "Toyota City", "City"),
            ("was founded by", "Kiichiro Toyoda", "Person"),
            ("produces", "Prius", "Car"),
            ("owns", "Lexus", "Brand"),
            ("is listed on", "Tokyo Stock Exchange", "Exchange"),
        ],
    ),
    "Mount Everest": (
        "Mountain",
        "highest mountain above sea level",
        [
            ("is located in", "Himalayas", "Mountain range"),
            ("lies on the border of", "Nepal", "Country"),
            ("was first climbed by", "Edmund Hillary", "Person"),
            ("has elevation", "8849 metres", "Quantity"),
            ("is named after", "George Everest", "Person"),
        ],
    ),
    "Aspirin": (
        "Drug",
        "pain reliever and anti-inflammatory",
        [
            ("treats", "headache", "Symptom"),
            ("has side effect", "stomach bleeding", "Condition"),
            ("was synthesized by", "Felix Hoffmann", "Person"),
            ("is made by", "Bayer", "Company"),
            ("interacts with", "warfarin", "Drug"),
        ],
    ),
    "Beethoven": (
        "Person",
        "German composer and pianist",
        [
            ("composed", "Symphony No. 9", "Work"),
            ("was born in", "Bonn", "City"),
            ("studied with", "Joseph Haydn", "Person"),
            ("died in", "Vienna", "City"),
            ("played", "piano", "Instrument"),
        ],
    ),
    "Python": (
        "Programming language",
        "general-purpose programming language",
        [
            ("was created by", "Guido van Rossum", "Person"),
            ("was first released in", "1991", "Year"),
            ("is influenced by", "ABC language", "Programming language"),
            ("has implementation", "CPython", "Software"),
            ("is maintained by", "Python Software Foundation", "Organization"),
        ],
    ),
    "Barcelona": (
        "City",
        "capital of Catalonia",
        [
            ("is located in", "Spain", "Country"),
            ("has landmark", "Sagrada Familia", "Building"),
            ("has football club", "FC Barcelona", "Club"),
            ("hosted", "1992 Summer Olympics", "Event"),
            ("lies on the coast of", "Mediterranean Sea", "Sea"),
        ],
    ),
    "Insulin": (
        "Hormone",
        "peptide hormone that regulates blood sugar",
        [
            ("is produced by", "pancreas", "Organ"),
            ("treats", "diabetes", "Disease"),
            ("was discovered by", "Frederick Banting", "Person"),
            ("regulates", "blood glucose", "Measure"),
            ("binds to", "insulin receptor", "Protein"),
        ],
    ),
}

# relation phrase -> question template
QUESTIONS: dict[str, str] = {
    "was born in": "Where was {s} born?",
    "won": "Which prize did {s} win?",
    "was married to": "Who was {s} married to?",
    "worked at": "Where did {s} work?",
    "discovered": "What did {s} discover?",
    "studied at": "Which college did {s} attend?",
    "proposed": "What idea did {s} propose?",
    "died in": "In which town did {s} die?",
    "was directed by": "Who directed {s}?",
    "stars": "Which actor appears in {s}?",
    "is based on": "What is {s} adapted from?",
    "has genre": "What genre is {s}?",
    "was released in": "When did {s} come out?",
    "flows through": "Which country does the {s} run through?",
    "flows into": "Where does the {s} end?",
    "has source in": "Where does the {s} begin?",
    "has tributary": "Which river feeds the {s}?",
    "is longer than": "Which river is shorter than the {s}?",
    "wrote": "Which novel did {s} write?",
    "is buried in": "Where is {s} buried?",
    "had sibling": "Who was the sister of {s}?",
    "was influenced by": "Which writer influenced {s}?",
    "is headquartered in": "Where is {s} based?",
    "was founded by": "Who founded {s}?",
    "produces": "Which hybrid car does {s} make?",
    "owns": "Which luxury brand belongs to {s}?",
    "is listed on": "On which stock exchange is {s} traded?",
    "is located in": "In which region is {s}?",
    "lies on the border of": "Which country borders {s}?",
    "was first climbed by": "Who first reached the summit of {s}?",
    "has elevation": "How tall is {s}?",
    "is named after": "Who is {s} named for?",
    "treats": "What condition does {s} treat?",
    "has side effect": "What are the side effects of {s}?",
    "was synthesized by": "Who first synthesized {s}?",
    "is made by": "Which company manufactures {s}?",
    "interacts with": "Which drug interacts with {s}?",
    "composed": "Which symphony did {s} compose?",
    "studied with": "Who was the teacher of {s}?",
    "played": "Which instrument did {s} play?",
    "was created by": "Who created {s}?",
    "was first released in": "In what year was {s} first released?",
    "is influenced by": "Which language influenced {s}?",
    "has implementation": "What is the reference implementation of {s}?",
    "is maintained by": "Which organization maintains {s}?",
    "has landmark": "Which famous church is in {s}?",
    "has football club": "Which football team plays in {s}?",
    "hosted": "Which Olympic Games were held in {s}?",
    "lies on the coast of": "Which sea is {s} on?",
    "is produced by": "Which organ makes {s}?",
    "was discovered by": "Who discovered {s}?",
    "regulates": "What does {s} control in the body?",
    "binds to": "Which receptor does {s} bind?",
}


def _hop_text(s: str, rel: str, o: str, o_type: str) -> str:
    s_type, s_desc, _ = FACTS[s]
    return f"{s} {rel} {o}.{SEP}{s} is a {s_type}: {s_desc}. {o} is a {o_type}."


def _two_hop_text(s: str, rel: str, o: str, o_type: str, rel2: str, o2: str) -> str:
    s_type, s_desc, _ = FACTS[s]
    return f"{s} {rel} {o}. {o} {rel2} {o2}.{SEP}{s} is a {s_type}: {s_desc}. {o} is a {o_type}."


def fidelity_cases() -> list[tuple[str, list[str]]]:
    """60 (question, 10 candidate path texts) cases, always the same."""
    cases: list[tuple[str, list[str]]] = []
    names = list(FACTS)
    for k, s in enumerate(names):
        _, _, rels = FACTS[s]
        other = FACTS[names[(k + 1) % len(names)]][2]
        for rel, _o, _t in rels:
            question = QUESTIONS[rel].format(s=s)
            texts = [_hop_text(s, r, o, t) for r, o, t in rels]
            # distractors: the next entity's paths, two of them two hops long
            nxt = names[(k + 1) % len(names)]
            for j, (r, o, t) in enumerate(other):
                if j < 2:
                    r2, o2, _ = rels[j]
                    texts.append(_two_hop_text(nxt, r, o, t, r2, o2))
                else:
                    texts.append(_hop_text(nxt, r, o, t))
            cases.append((question, texts))
    return cases
