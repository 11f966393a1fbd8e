"""Idiomatic question forms read from relation phrases (pure grammar, no database)."""

from __future__ import annotations

import re

from pathrag_gds.ontology import Ontology
from pathrag_gds.training.pairs import PairBuilder
from pathrag_gds.training.phraser import person_labels, someone_labels
from pathrag_gds.training.phrasing import Sentence, base_verb, kind_noun, past_base_verb, plural
from pathrag_gds.training.questions import MemoryGraph, QuestionGenerator
from tests.unit.test_training import ONTOLOGY, toy_graph


def test_phrase_shapes() -> None:
    assert Sentence.parse("takes place in") == Sentence(verb="take", rest="place", prep="in")
    assert Sentence.parse("is the release year of") == Sentence(role="release year")
    assert Sentence.parse("was directed by") == Sentence(participle="directed", prep="by", copula="was")
    assert Sentence.parse("starred in") == Sentence(verb="star", prep="in", past=True)
    assert Sentence.parse("wrote") == Sentence(verb="write", past=True)
    assert Sentence.parse("is in") == Sentence()
    assert Sentence.parse("has the genre") == Sentence()
    assert Sentence.parse("") == Sentence()


def test_where_only_for_places_after_a_locative_preposition() -> None:
    lives = Sentence.parse("lives in")
    assert lives.object_forms("Jane", "place", "Where")[:2] == [
        "Where does Jane live?",
        "Where did Jane live?",
    ]
    involved = Sentence.parse("is involved in")
    assert not any(f.startswith("Where") for f in involved.object_forms("Mop", "event", "What"))
    assert involved.object_forms("Mop", "event", "What") == ["Which event is Mop involved in?"]
    owns = Sentence.parse("owns").object_forms("Jane", "animal", "What")
    assert owns == ["What does Jane own?", "What did Jane own?", "Which animal does Jane own?"]
    assert (
        Sentence.parse("was directed by").object_forms("Heat", "person", "Who")[-1]
        == "Who was Heat directed by?"
    )


def test_past_tense_phrases_are_asked_with_did_only() -> None:
    assert Sentence.parse("starred in").object_forms("Tom Hanks", "movie", "What") == [
        "What did Tom Hanks star in?",
        "Which movie did Tom Hanks star in?",
        "In which movie did Tom Hanks star?",
    ]
    assert Sentence.parse("directed").object_forms("Nora Ephron", "movie", "What") == [
        "What did Nora Ephron direct?",
        "Which movie did Nora Ephron direct?",
    ]
    assert Sentence.parse("wrote").object_forms("X", "movie", "What")[0] == "What did X write?"


def test_possessive_role_forms_and_their_limits() -> None:
    friend = Sentence.parse("is a friend of")
    assert "Who are Bob's friends?" in friend.subject_forms("Bob", "animal", "Who")
    after_clause = friend.subject_forms("the cat that Jane owns", "animal", "Who")
    assert after_clause == [
        "Who is the friend of the cat that Jane owns?",
        "Who are the friends of the cat that Jane owns?",
    ]  # "...owns's friend" does not read: no possessive after a relative clause
    assert friend.object_forms("Bob", "animal", "Who") == []


def test_agent_nouns_and_where_clauses() -> None:
    owns = Sentence.parse("owns")
    assert owns.agent == "owner"
    assert "Who is Rex's owner?" in owns.subject_forms("Rex", "person", "Who")
    assert owns.subject_nouns("the dog that chases Bob") == ["the owner of the dog that chases Bob"]
    assert Sentence.parse("directed").subject_nouns("Heat") == ["the director of Heat", "Heat's director"]
    # no agent noun is invented for verbs outside the list, nor for phrases with a preposition
    assert Sentence.parse("involves").agent == "" and Sentence.parse("starred in").agent == ""
    assert Sentence.parse("is a friend of").subject_nouns("Bob", "squirrel")[-1] == "Bob's squirrel friend"
    assert Sentence.parse("lives in").where_clause("Joy") == "where Joy lives"
    assert Sentence.parse("takes place in").where_clause("the feast") == "where the feast takes place"
    assert Sentence.parse("carries in").where_clause("Al") == "where Al carries"  # not "carrys"
    assert Sentence.parse("starred in").where_clause("X") == ""  # past tense, not locative
    assert Sentence.parse("plays with").where_clause("X") == ""


def test_nested_descriptions_use_the_noun_forms() -> None:
    qs = QuestionGenerator(toy_graph(), ONTOLOGY, seed=1, max_depth=3, entity_share=0.0).generate(300)
    nested = [q.question for q in qs if q.depth >= 2]
    assert any("'s friend" in t or "the friend of" in t for t in nested), nested[:20]
    assert any("the owner of" in t or "'s owner" in t for t in nested), nested[:20]


def test_words() -> None:
    assert [base_verb(w) for w in ("lives", "watches", "carries", "was", "kiss", "wrote")] == [
        "live",
        "watch",
        "carry",
        None,
        None,
        None,
    ]
    assert [past_base_verb(w) for w in ("carried", "killed", "located", "is", "wed")] == [
        "carry",
        "kill",
        "locate",
        None,
        None,
    ]
    assert plural("child") == "children" and plural("hiding place") == "hiding places"
    assert kind_noun({"species": "Red Squirrel"}) == "red squirrel"
    assert kind_noun({"place_type": "village", "x_type": 3}) == "village"
    assert kind_noun({"event_type": "a very long free text value"}) is None


def test_kind_nouns_narrow_the_answers() -> None:
    g: MemoryGraph = toy_graph()
    qs = QuestionGenerator(g, ONTOLOGY, seed=4, max_depth=2, entity_share=0.0).generate(200)
    pets = {i: e for i, e in g.entities(g.start_ids()).items() if e.label == "Pet"}
    kinded = [
        q
        for q in qs
        if q.path.end in pets
        and any(re.search(rf"\b{k}s?\b", q.question.lower()) for k in ("cat", "dog", "hamster"))
    ]
    assert kinded, "some questions should name a pet by its species"
    for q in kinded:
        asked = kind_noun(pets[q.path.end].attributes)
        assert all(kind_noun(pets[a].attributes) == asked for a in q.answers)
    assert any(q.template.endswith("idiomatic") for q in qs)


def test_anchored_questions_name_the_occasion_and_the_participant() -> None:
    onto = Ontology.from_mapping(
        {
            "entity_types": [
                {"label": "Event", "description": "Something that happens at a time."},
                {"label": "Person", "description": "A person."},
                {"label": "City", "description": "A town or city."},
            ],
            "relationship_types": [
                {"type": "involves", "phrase": "involves", "inverse_phrase": "is involved in"},
                {"type": "lives_in", "phrase": "lives in", "inverse_phrase": "is the home town of"},
            ],
        }
    )
    people = ["Ann", "Ben", "Cy", "Dee", "Eve", "Fay"]
    ents = [(f"e{i}", "Event", f"Party {i}") for i in range(6)] + [(p.lower(), "Person", p) for p in people]
    ents += [("oslo", "City", "Oslo"), ("rome", "City", "Rome")]
    triples = [(f"e{i}", "involves", people[(i + j) % 6].lower()) for i in range(6) for j in (0, 1)]
    triples += [(p.lower(), "lives_in", ("oslo", "rome")[k % 2]) for k, p in enumerate(people)]
    g = MemoryGraph.from_triples(ents, triples)
    qs = QuestionGenerator(g, onto, seed=2, max_depth=2, entity_share=0.0).generate(60)
    anchored = [q for q in qs if q.anchored]
    assert anchored and all(not q.anchored for q in qs if q.depth < 2)
    names = g.entities([i for i, _, _ in ents])
    for q in anchored:
        start, second = (names[n].name.lower() for n in q.path.node_ids[:2])
        assert start in q.question.lower() and second in q.question.lower()
        assert [names[n].label == "Event" for n in q.path.node_ids] == [True] + [False] * q.depth
    pairs = PairBuilder(g, onto, seed=2).build_all(anchored, g.start_ids())
    dropped = [p for p in pairs if p.kind == "anchor_dropped"]
    assert len(dropped) == len(anchored)
    for p, q in zip(dropped, anchored, strict=True):
        assert p.label == 0.0 and names[q.path.start].name not in p.text


def test_shared_neighbour_walks_are_asked_with_the_same() -> None:
    onto = Ontology.from_mapping(
        {
            "entity_types": [{"label": "Movie"}, {"label": "Person", "description": "A person."}],
            "relationship_types": [
                {"type": "starred_actors", "phrase": "starred", "inverse_phrase": "starred in"}
            ],
        }
    )
    ents = [("m1", "Movie", "Heat"), ("m2", "Movie", "Ronin"), ("al", "Person", "Al"), ("bo", "Person", "Bo")]
    ents += [("cy", "Person", "Cy")]
    triples = [("m1", "starred_actors", "al"), ("m1", "starred_actors", "bo"), ("m2", "starred_actors", "bo")]
    triples += [("m2", "starred_actors", "cy")]
    g = MemoryGraph.from_triples(ents, triples)
    qs = QuestionGenerator(g, onto, seed=0, max_depth=2, entity_share=0.0).generate(80)
    shared = [q for q in qs if q.template.endswith("shared")]
    # never the named entity itself; two movies share a person too
    co_stars = {"al": ("bo",), "bo": ("al", "cy"), "cy": ("bo",), "m1": ("m2",), "m2": ("m1",)}
    for q in shared:
        assert q.depth == 2 and q.path.edges[0].type == q.path.edges[1].type
        assert q.answers == co_stars[q.path.start], q.question
    texts = {q.question.lower().rstrip("?") for q in shared}
    assert "who starred in the same movie as bo" in texts
    # the ways people ask it: co- verbs and nouns, `together with`
    assert any(t.startswith("who co-starred with ") for t in texts), texts
    assert any("'s co-stars" in t or "the co-stars of" in t for t in texts), texts
    assert any(t.startswith("who starred together with ") for t in texts), texts


def test_shared_neighbour_clause_inside_longer_walks() -> None:
    onto = Ontology.from_mapping(
        {
            "entity_types": [
                {"label": "Movie"},
                {"label": "Person", "description": "A person."},
                {"label": "Genre"},
            ],
            "relationship_types": [
                {"type": "starred_actors", "phrase": "starred", "inverse_phrase": "starred in"},
                {"type": "has_genre", "phrase": "has the genre", "inverse_phrase": "is the genre of"},
            ],
        }
    )
    ents = [("m1", "Movie", "Heat"), ("m2", "Movie", "Ronin"), ("al", "Person", "Al"), ("bo", "Person", "Bo")]
    ents += [("g1", "Genre", "Crime"), ("g2", "Genre", "Action")]
    triples = [("m1", "starred_actors", "al"), ("m2", "starred_actors", "al"), ("m1", "starred_actors", "bo")]
    triples += [("m1", "has_genre", "g1"), ("m2", "has_genre", "g2")]
    g = MemoryGraph.from_triples(ents, triples)
    qs = QuestionGenerator(g, onto, seed=0, max_depth=3, entity_share=0.0).generate(300)
    inside = [q for q in qs if q.depth == 3 and "the same person as" in q.question]
    assert inside, "some 3-hop questions describe their 3rd entity with 'the same ... as'"
    co = [q for q in qs if q.depth == 3 and re.search(r"co-star", q.question)]
    assert co, "and some as co-stars ('What genre do the movies that Al's co-stars starred in have?')"
    inside += co
    for q in inside:
        e = q.path.edges
        assert e[0].type == e[1].type and e[0].direction != e[1].direction
        assert q.path.end in q.answers


def movie_ontology(*, genre: bool = False) -> Ontology:
    """Movies, their directors and release years (and genres): a small MetaQA-like ontology."""
    types: list[dict[str, str]] = [
        {"label": "Movie"},
        {"label": "Person", "description": "A person."},
        {"label": "Year", "description": "A calendar year in which films were released."},
    ]
    rels = [
        {"type": "directed_by", "phrase": "was directed by", "inverse_phrase": "directed"},
        {"type": "release_year", "phrase": "was released in", "inverse_phrase": "is the release year of"},
    ]
    if genre:
        types.append({"label": "Genre"})
        rels.append({"type": "has_genre", "phrase": "has the genre", "inverse_phrase": "is the genre of"})
    return Ontology.from_mapping({"entity_types": types, "relationship_types": rels})


def test_when_questions_for_time_like_answers() -> None:
    onto = movie_ontology()
    ents = [("m1", "Movie", "Heat"), ("m2", "Movie", "Ronin"), ("mm", "Person", "Michael Mann")]
    ents += [("y1", "Year", "1995"), ("y2", "Year", "1998"), ("jf", "Person", "John Frankenheimer")]
    triples = [("m1", "directed_by", "mm"), ("m2", "directed_by", "jf")]
    triples += [("m1", "release_year", "y1"), ("m2", "release_year", "y2")]
    g = MemoryGraph.from_triples(ents, triples)
    qs = QuestionGenerator(g, onto, seed=0, max_depth=2, entity_share=0.0).generate(200)
    when = [q for q in qs if q.question.startswith("When ")]
    assert when, [q.question for q in qs]
    for q in when:  # only years are asked with `When`, and the year is the answer
        assert q.path.end in {"y1", "y2"} and q.answers == (q.path.end,), q.question
    texts = {q.question for q in when}
    assert "When was Heat released?" in texts or "When was Ronin released?" in texts, texts
    assert any(q.depth == 2 for q in when), texts  # `When was the movie that Michael Mann directed released?`
    assert not any(q.question.startswith("When") and q.path.end not in {"y1", "y2"} for q in qs)


def test_verbs_agree_with_plural_noun_phrases() -> None:
    onto = movie_ontology(genre=True)
    ents = [("m1", "Movie", "Heat"), ("m2", "Movie", "Ali"), ("mm", "Person", "Michael Mann")]
    ents += [("y1", "Year", "1995"), ("y2", "Year", "2001"), ("g", "Genre", "Drama")]
    triples = [("m1", "directed_by", "mm"), ("m2", "directed_by", "mm"), ("m1", "release_year", "y1")]
    triples += [("m2", "release_year", "y2"), ("m1", "has_genre", "g"), ("m2", "has_genre", "g")]
    g = MemoryGraph.from_triples(ents, triples)
    qs = [q.question for q in QuestionGenerator(g, onto, seed=0, max_depth=2, entity_share=0.0).generate(400)]
    plural_subject = [q for q in qs if "the movies that" in q.lower()]
    assert plural_subject, qs
    # a plural subject never takes a singular verb, and the plural forms are asked
    bad = [q for q in plural_subject if re.search(r"\b(is|was|does|has) the movies that", q, re.I)]
    bad += [q for q in plural_subject if re.search(r"the movies that .* (of|directed) (has|was|is) ", q)]
    assert not bad, bad
    assert any(re.search(r"\b(were|are|do) the movies that", q, re.I) for q in plural_subject), plural_subject
    assert any(re.search(r"the movies that .* (of|directed) (have|were) ", q) for q in plural_subject)


#: Types named by what their people do, a thing, and a type a person word describes.
WHO_ONTOLOGY = Ontology.from_mapping(
    {
        "id": "who",
        "entity_types": [
            {"label": "Sailor", "description": "Crews a ship."},
            {"label": "Baker", "description": "Bakes bread for the village."},
            {"label": "Anchor", "description": "Holds a ship in place."},
            {"label": "Household", "description": "The people who live in one house."},
        ],
    }
)


def test_who_for_types_the_encoder_reads_as_someone_beside_those_a_person_word_describes() -> None:
    from pathrag_gds.encoders import get_embedder

    people = ["Nurse", "Pilot", "Teacher", "Farmer", "Inventor", "Skipper", "Founder", "Engineer"]
    things = ["City", "Company", "Object", "Match", "Incident", "Team", "Machine", "Trophy"]
    onto = Ontology.from_mapping({"entity_types": [{"label": x} for x in people + things]})
    assert someone_labels(onto, get_embedder()) == set(people)
    someone = someone_labels(WHO_ONTOLOGY, get_embedder())
    assert someone == {"Sailor", "Baker"}
    labels = [e.label for e in WHO_ONTOLOGY.entity_types]
    assert person_labels(WHO_ONTOLOGY, labels, someone) == {"Sailor", "Baker", "Household"}
    assert person_labels(WHO_ONTOLOGY, labels) == {"Household"}
