"""Chain planning and chain training rows: pure logic, fake scorers, no database."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

import pytest

from pathrag_gds.ontology import Ontology
from pathrag_gds.paths import Edge, EntityRecord, Path
from pathrag_gds.search.planner import plan_chains, softmax
from pathrag_gds.search.schema import (
    TypedChain,
    chain_text,
    next_chains,
    path_chain,
    schema_chains,
    step_token,
)
from pathrag_gds.training.chains import chain_rows, hard_negatives, typed_chain
from pathrag_gds.training.questions import GeneratedQuestion

MOVIES = Ontology.from_mapping(
    {
        "relationship_types": [
            {
                "type": "directed_by",
                "phrase": "was directed by",
                "inverse_phrase": "directed",
                "source": ["Movie"],
                "target": ["Person"],
            },
            {
                "type": "starred_actors",
                "phrase": "starred",
                "inverse_phrase": "starred in",
                "source": ["Movie"],
                "target": ["Person"],
            },
            {
                "type": "release_year",
                "phrase": "was released in",
                "inverse_phrase": "is the release year of",
                "source": ["Movie"],
                "target": ["Year"],
            },
        ]
    }
)


def steps_scorer(onto: Ontology, label: str, *wanted: tuple[str, str]):  # type: ignore[no-untyped-def]
    """A fake chain scorer: +1 for each wanted step a chain's text walks in order, -0.1 a hop."""
    steps_of = {chain_text(onto, c): c.steps for c in schema_chains(onto, label, 3)}

    def score(texts):  # type: ignore[no-untyped-def]
        out = []
        for t in texts:
            steps = steps_of[t]
            hits = sum(1 for i, w in enumerate(wanted) if i < len(steps) and steps[i] == w)
            exact = len(steps) == len(wanted)
            out.append(hits + (0.5 if exact else 0.0) - 0.1 * len(steps))
        return out

    return score


def test_next_chains_respect_types_and_directions() -> None:
    from_person = next_chains(MOVIES, TypedChain((), ("Person",)))
    assert sorted(c.steps[0] for c in from_person) == [("directed_by", "in"), ("starred_actors", "in")]
    assert all(c.labels == ("Person", "Movie") for c in from_person)
    from_movie = next_chains(MOVIES, TypedChain((), ("Movie",)))
    assert {c.steps[0][1] for c in from_movie} == {"out"}
    assert len(from_movie) == 3


def test_chain_text_reads_from_the_answer_back_to_the_topic() -> None:
    chain = TypedChain((("starred_actors", "in"), ("directed_by", "out")), ("Person", "Movie", "Person"))
    assert chain_text(MOVIES, chain) == "the person that directed the movie that starred X"
    assert chain_text(MOVIES, TypedChain((), ("Person",))) == "X itself"
    # each direction reads its own phrase; a step without an inverse phrase reads the forward one
    back = TypedChain((("directed_by", "in"),), ("Person", "Movie"))
    assert chain_text(MOVIES, back) == "the movie that was directed by X"
    bare = Ontology.from_mapping({"relationship_types": [{"type": "owns", "phrase": "owns"}]})
    assert chain_text(bare, TypedChain((("owns", "out"),), ("Person", "Animal"))) == "the animal that X owns"


def test_chain_text_describes_each_step_answer_first() -> None:
    onto = Ontology.from_mapping(
        {
            "relationship_types": [
                {
                    "type": "directed_by",
                    "phrase": "was directed by",
                    "inverse_phrase": "directed",
                    "description": "A film and its director.",
                },
                {
                    "type": "starred",
                    "phrase": "starred",
                    "inverse_phrase": "starred in",
                    "description": "A film and an actor in it.",
                },
            ]
        }
    )
    chain = TypedChain(
        (("directed_by", "out"), ("directed_by", "in"), ("starred", "out")),
        ("Movie", "Person", "Movie", "Person"),
    )
    assert chain_text(onto, chain) == (
        "the person that starred in the movie that was directed by the person that directed X"
        " (A film and an actor in it. A film and its director. A film and its director.)"
    )


def test_plan_finds_the_scored_chain_and_allows_only_its_prefixes() -> None:
    score = steps_scorer(MOVIES, "Person", ("starred_actors", "in"), ("directed_by", "out"))
    plan = plan_chains(score, MOVIES, "Person", max_depth=3, keep=2, temperature=0.1)
    assert plan.best == (("starred_actors", "in"), ("directed_by", "out"))
    assert plan.allowed(()) == {("starred_actors", "in")}
    assert plan.allowed((("starred_actors", "in"),)) == {("directed_by", "out")}
    assert plan.allowed((("directed_by", "in"),)) == set()
    assert plan.prob(plan.best) > 0.5
    assert plan.prob((("directed_by", "in"),)) == 0.0


def test_the_empty_chain_is_planned_only_where_the_topic_may_answer_about_itself() -> None:
    # a scorer sure the question is about X itself ("X" reads best), as for "what does X act in"
    def itself(texts):  # type: ignore[no-untyped-def]
        return [1.0 if t == "X itself" else 0.1 * len(t) / 100 for t in texts]

    plan = plan_chains(itself, MOVIES, "Person", max_depth=2, keep=3, temperature=0.1)
    assert plan.best == () and plan.prob(()) > 0.5
    other = plan_chains(itself, MOVIES, "Person", max_depth=2, keep=3, temperature=0.1, itself=False)
    assert () not in other.probs and len(other.probs) == 3 and other.allowed(())


def test_chains_shorter_than_the_words_name_are_not_planned_unless_none_is_longer() -> None:
    # the scorer likes the one-hop chain best; the question's possessive chain names two links
    score = steps_scorer(MOVIES, "Person", ("starred_actors", "in"))
    plan = plan_chains(score, MOVIES, "Person", max_depth=2, keep=3, temperature=0.1)
    assert plan.best == (("starred_actors", "in"),)
    two = plan_chains(score, MOVIES, "Person", max_depth=2, keep=3, temperature=0.1, min_hops=2)
    assert two.best[0] == ("starred_actors", "in") and all(len(c) == 2 for c in two.probs)
    # past the plan's depth the words are not read; from a type with no longer chain, the shorter stay
    assert (
        plan_chains(score, MOVIES, "Person", max_depth=2, keep=3, temperature=0.1, min_hops=3).best
        == plan.best
    )
    one_hop = {chain_text(MOVIES, c) for c in schema_chains(MOVIES, "Person", 1)}  # a graph of 1-hop chains
    held = plan_chains(
        score, MOVIES, "Person", max_depth=2, keep=3, temperature=0.1, min_hops=2, pool=one_hop
    )
    assert held.best == (("starred_actors", "in"),) and all(len(c) <= 1 for c in held.probs)


def test_plan_tells_direction_apart() -> None:
    # the same relation walked the other way is another chain
    score = steps_scorer(MOVIES, "Person", ("directed_by", "in"))
    plan = plan_chains(score, MOVIES, "Person", max_depth=2, keep=1, temperature=0.1)
    assert plan.best == (("directed_by", "in"),)


def test_plan_probabilities_sum_to_at_most_one_and_beam_limits_work() -> None:
    calls: list[int] = []

    def flat(texts):  # type: ignore[no-untyped-def]
        calls.append(len(texts))
        return [0.0] * len(texts)

    plan = plan_chains(flat, MOVIES, "Movie", max_depth=3, beam=2, keep=100, temperature=1.0)
    assert sum(plan.probs.values()) == pytest.approx(1.0)
    # depth 0: 1, depth 1: 3 steps, depth 2: 2 kept x 2 steps back, depth 3: 2 kept x 3
    assert calls == [1, 3, 4, 6]
    assert plan.scored == 14


def test_softmax_is_stable() -> None:
    p = softmax([1000.0, 999.0], 1.0)
    assert p[0] > p[1] and sum(p) == pytest.approx(1.0)


def test_path_chain_and_tokens() -> None:
    p = Path(("m", "d"), (Edge("directed_by", "m", "d", "out"),))
    assert path_chain(p) == (("directed_by", "out"),)
    assert step_token(path_chain(p)[0]) == "directed_by:out"


def test_schema_chains_and_hard_negatives() -> None:
    pool = schema_chains(MOVIES, "Person", 3)
    assert pool[0].steps == ()
    assert len({c.steps for c in pool}) == len(pool)
    positive = next(c for c in pool if c.steps == (("starred_actors", "in"), ("directed_by", "out")))
    negs = hard_negatives(positive, pool, 6, random.Random(0))
    assert positive not in negs and len(negs) == 6
    steps = [n.steps for n in negs]
    # one relation changed / one direction flipped come first, then one hop short or long
    assert (("directed_by", "in"), ("directed_by", "out")) in steps or (
        ("starred_actors", "in"),
        ("starred_actors", "out"),
    ) in steps
    assert (("starred_actors", "in"),) in steps or any(len(s) == 3 and s[:2] == positive.steps for s in steps)


def test_chain_rows_mask_the_topic_and_use_the_walk() -> None:
    ents = {
        "m": EntityRecord("m", ("Movie",), "Heat"),
        "p": EntityRecord("p", ("Person",), "Al Pacino"),
    }
    path = Path(("p", "m"), (Edge("starred_actors", "m", "p", "in"),))
    q = GeneratedQuestion(0, "Which movie did Al Pacino star in?", "1-hop:x", path, ("m",))
    assert typed_chain(MOVIES, q, ents) == TypedChain((("starred_actors", "in"),), ("Person", "Movie"))
    rows = chain_rows([q], ents, MOVIES, max_depth=2, negatives=3)
    assert rows[0].question == "Which movie did X star in?"
    assert rows[0].positive == "the movie that starred X"
    assert "the movie that starred X" not in rows[0].negatives
    assert len(rows[0].negatives) == 3


def test_an_anchored_question_trains_the_chains_from_both_entities_it_names() -> None:
    """From the occasion (the walk's start) the whole walk; from the second entity the rest of it."""
    ents = {
        "y": EntityRecord("y", ("Year",), "1995"),
        "m": EntityRecord("m", ("Movie",), "Heat"),
        "p": EntityRecord("p", ("Person",), "Al Pacino"),
    }
    path = Path(
        ("y", "m", "p"),
        (Edge("release_year", "m", "y", "in"), Edge("starred_actors", "m", "p", "out")),
    )
    text = "Who starred in Heat in 1995?"
    q = GeneratedQuestion(0, text, "2-hop:anchored-x", path, ("p",), anchored=True)
    rows = chain_rows([q], ents, MOVIES, max_depth=2, negatives=2)
    assert [(r.question, r.positive) for r in rows] == [
        ("Who starred in Heat in X?", "the person that starred in the movie that was released in X"),
        ("Who starred in X in 1995?", "the person that starred in X"),
    ]
    plain = GeneratedQuestion(1, text, "2-hop:x", path, ("p",))
    assert [r.positive for r in chain_rows([plain], ents, MOVIES, max_depth=2)] == [rows[0].positive]


def test_a_folder_that_is_not_a_chain_model_is_named_in_the_error(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from pathrag_gds.chain_model import ChainScorer
    from pathrag_gds.errors import ModelError

    (tmp_path / "manifest.json").write_text('{"kind": "embedding"}', encoding="utf-8")
    with pytest.raises(ModelError, match=str(tmp_path)):
        ChainScorer(tmp_path)
    (tmp_path / "manifest.json").write_text('{"chain": {"temperature": 0.05}}', encoding="utf-8")
    with pytest.raises(ModelError, match=str(tmp_path)):
        ChainScorer(tmp_path)  # a chain manifest without the model files


def test_a_community_without_a_chain_model_falls_back_and_says_so_once(tmp_path, caplog) -> None:  # type: ignore[no-untyped-def]
    from pathrag_gds.chain_model import get_chain_scorer, reset_chain_scorers
    from pathrag_gds.config import Settings

    reset_chain_scorers()
    s = Settings(models_dir=tmp_path)
    with caplog.at_level("WARNING", logger="pathrag_gds.chain_model"):
        assert get_chain_scorer(s, "nowhere") is None
        assert get_chain_scorer(s, "nowhere") is None
    said = [r for r in caplog.records if "no chain model" in r.getMessage()]
    assert len(said) == 1 and "tune --community nowhere" in said[0].getMessage()
    assert get_chain_scorer(Settings(models_dir=tmp_path, chain_planning=False), "x") is None


def test_chains_that_read_the_same_share_one_probability() -> None:
    # a symmetric relation: both walk directions read "the person that is married to X"
    onto = Ontology.from_mapping(
        {
            "relationship_types": [
                {
                    "type": "married_to",
                    "phrase": "is married to",
                    "inverse_phrase": "is married to",
                    "source": ["Person"],
                    "target": ["Person"],
                },
                {
                    "type": "knows",
                    "phrase": "knows",
                    "inverse_phrase": "is known by",
                    "source": ["Person"],
                    "target": ["Person"],
                },
            ]
        }
    )
    plan = plan_chains(
        lambda texts: [float(t == "the person that is married to X") for t in texts],
        onto,
        "Person",
        max_depth=1,
        keep=1,
        temperature=0.1,
    )
    assert plan.allowed(()) == {("married_to", "out"), ("married_to", "in")}
    assert plan.prob((("married_to", "out"),)) == plan.prob((("married_to", "in"),)) > 0.5


def test_planned_paths_run_as_sets_and_rank_by_the_chains_they_lead_into() -> None:
    from pathrag_gds.beam import ScoredPath
    from pathrag_gds.config import Settings
    from pathrag_gds.search.ranking import Ranker

    class Unused:
        def score(self, texts: list[str]) -> list[float]:
            raise AssertionError("keeping scores nothing")

    ranker = Ranker(Settings(local_keep_m=1, beam_width=3, weight_chain=1.0), Unused(), str)
    start = Path(("m",))

    def child(i: int, prefix: float, chain: float, score: float) -> ScoredPath:
        p = start.extend(Edge("starred_actors", "m", f"p{i}", "out"), f"p{i}")
        parts = {"model": score, "chain": chain, "chain_prefix": prefix}
        return ScoredPath(p, score + chain, raw=score, parent=0, parts=parts)

    # four siblings on a planned chain prefix, one free path: the per-parent keep (m=1) would keep
    # one sibling; planned paths keep up to beam_width, ranked with their prefix mass
    planned = [child(i, 0.8, 0.0, 0.5 - i / 100) for i in range(4)]
    free = ScoredPath(Path(("x",)).extend(Edge("r", "x", "y", "out"), "y"), 0.9, raw=0.9, parent=1)
    beam = ranker.keep([*planned, free], 1)
    kept_planned = [b for b in beam if "chain_prefix" in b.parts]
    assert len(kept_planned) == 3
    assert all(b.score == pytest.approx(b.parts["model"] + 0.8) for b in kept_planned)
    assert free in beam


def test_a_chain_model_of_another_ontology_is_refused_with_its_folder() -> None:
    from pathrag_gds.chain_model import ChainScorer, chain_model_dir
    from pathrag_gds.config import Settings
    from pathrag_gds.datasets.ontology_files import read_ontology
    from pathrag_gds.datasets.people import PEOPLE_ONTOLOGY
    from pathrag_gds.errors import ModelError

    folder = chain_model_dir(Settings(), "people")
    scorer = ChainScorer(folder)
    scorer.check_ontology(read_ontology(PEOPLE_ONTOLOGY))  # the ontology it was trained on
    with pytest.raises(ModelError, match=str(folder)):
        scorer.check_ontology(MOVIES)


def test_chain_vectors_written_at_tune_time_are_read_back_and_checked(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """`save_vectors` writes what a later load scores with; a broken file names itself."""
    import numpy as np

    from pathrag_gds.chain_model import CHAIN_VECTORS, ChainScorer, chain_model_dir
    from pathrag_gds.config import Settings
    from pathrag_gds.errors import ModelError

    shipped = chain_model_dir(Settings(), "people")
    folder = tmp_path / "chain"
    _linked_model(shipped, folder)  # the vectors file is this test's own
    texts = [
        "X itself",
        "the city that X was born in",
        "the country that the city that X was born in is located in",
    ]
    first = ChainScorer(folder)
    assert not first._cache  # nothing until written
    first.save_vectors(texts)
    again = ChainScorer(folder)
    assert set(again._cache) == set(texts)
    q = "where was X born"
    assert np.allclose(first.scorer_for(q)(texts), again.scorer_for(q)(texts), atol=1e-6)
    np.savez_compressed(folder / CHAIN_VECTORS, texts=np.asarray(texts), vectors=np.zeros((3, 7)))
    with pytest.raises(ModelError, match=CHAIN_VECTORS):
        ChainScorer(folder)


def _linked_model(src, dst, manifest=None):  # type: ignore[no-untyped-def]
    """A model folder of symlinks to `src`'s own files (no vectors file, no ensemble members), with
    its own manifest if given."""
    import json

    from pathrag_gds.chain_model import CHAIN_VECTORS

    dst.mkdir()
    for f in src.rglob("*"):
        skip = f.name in (CHAIN_VECTORS, "model_fp32.onnx") or (
            manifest is not None and f.name == "manifest.json"
        )
        if f.is_file() and not skip and not f.relative_to(src).parts[0].startswith("member-"):
            target = dst / f.relative_to(src)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.symlink_to(f)
    if manifest is not None:
        (dst / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")


def test_an_ensemble_scores_the_mean_of_its_members_and_names_a_bad_member(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """`tune --seeds N`: the manifest lists member folders; a chain scores the mean cosine."""
    import json

    import numpy as np

    from pathrag_gds.chain_model import ChainScorer, chain_model_dir
    from pathrag_gds.config import Settings
    from pathrag_gds.errors import ModelError

    shipped = chain_model_dir(Settings(), "people")
    people = json.loads((shipped / "manifest.json").read_text(encoding="utf-8"))
    base = Settings().models_dir / "all-MiniLM-L6-v2"
    untuned = json.loads((base / "manifest.json").read_text(encoding="utf-8")) | {"chain": people["chain"]}
    ensemble = tmp_path / "chain"
    _linked_model(shipped, ensemble, people | {"chain": people["chain"] | {"members": ["member-1"]}})
    _linked_model(base, ensemble / "member-1", untuned)  # the base model as a second member
    _linked_model(base, tmp_path / "alone", untuned)

    texts = ["Person was born in City", "Person is a parent of Person ; Person was born in City"]
    q = "where was X's mother born"
    both = ChainScorer(ensemble)
    assert len(both.members) == 1
    tuned = ChainScorer(shipped).scorer_for(q)(texts)
    plain = ChainScorer(tmp_path / "alone").scorer_for(q)(texts)
    assert not np.allclose(tuned, plain, atol=1e-3)  # two different models
    assert np.allclose(both.scorer_for(q)(texts), (np.asarray(tuned) + np.asarray(plain)) / 2, atol=1e-5)

    (ensemble / "manifest.json").unlink()
    (ensemble / "manifest.json").write_text(
        json.dumps(people | {"chain": people["chain"] | {"members": ["member-9"]}}), encoding="utf-8"
    )
    with pytest.raises(ModelError, match="member-9"):
        ChainScorer(ensemble)
    other = untuned | {"chain": untuned["chain"] | {"ontology": "another"}}
    (ensemble / "member-1" / "manifest.json").write_text(json.dumps(other), encoding="utf-8")
    (ensemble / "manifest.json").write_text(
        json.dumps(people | {"chain": people["chain"] | {"members": ["member-1"]}}), encoding="utf-8"
    )
    with pytest.raises(ModelError, match="member-1"):
        ChainScorer(ensemble)


def test_near_topic_weights_are_read_from_the_manifest_and_checked(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """`chain.near.weights` (six numbers, fitted by `tune`) give a near scorer; bad ones name the folder."""
    import json

    from pathrag_gds.chain_model import ChainScorer, chain_model_dir
    from pathrag_gds.config import Settings
    from pathrag_gds.errors import ModelError
    from pathrag_gds.search.near import WINDOW_CLASSES

    shipped = chain_model_dir(Settings(), "people")
    people = json.loads((shipped / "manifest.json").read_text(encoding="utf-8"))
    chain = {k: v for k, v in people["chain"].items() if k not in ("near", "answer_type", "far")}
    before = tmp_path / "before"
    _linked_model(shipped, before, people | {"chain": chain})
    assert ChainScorer(before).near_scorer_for("where was X's mother born") is None  # trained before the fit

    weights = [0.0] * len(WINDOW_CLASSES)
    weights[WINDOW_CLASSES.index("after X's")] = 1.0
    fitted = tmp_path / "fitted"
    _linked_model(shipped, fitted, people | {"chain": chain | {"near": {"weights": weights, "max_words": 3}}})
    scorer = ChainScorer(fitted)
    assert scorer.near_scorer_for("where was Mary's mother born") is None  # no masked topic
    near = scorer.near_scorer_for("where was X's mother born")
    assert near is not None
    mother, employer = near(["the person that is a parent of X", "the company that employs X"])
    assert mother > employer  # "X's mother" is read after the possessive topic

    bad = tmp_path / "bad"
    _linked_model(shipped, bad, people | {"chain": chain | {"near": {"weights": [1.0, 2.0]}}})
    with pytest.raises(ModelError, match=str(bad)):
        ChainScorer(bad)
    assert scorer.far_scorer_for("who is X's mother") is None  # no `chain.far`: fitted before it
    far_w = [0.0, 1.0, 0.0]  # after the question word
    ends = tmp_path / "ends"
    _linked_model(shipped, ends, people | {"chain": chain | {"far": {"weights": far_w}}})
    far = ChainScorer(ends).far_scorer_for("who employs the mother of X")
    assert far is not None and ChainScorer(ends).far_scorer_for("X's mother") is None  # no wh-word
    assert ChainScorer(ends).far_scorer_for("who employs X", scale=0.0) is None  # off
    employer, mother = far(["the company that employs X", "the person that is a parent of X"])
    assert employer > mother  # "who employs" names the last hop
    bad_far = tmp_path / "bad_far"
    _linked_model(shipped, bad_far, people | {"chain": chain | {"far": {"weights": [1.0]}}})
    with pytest.raises(ModelError, match=r"chain\.far\.weights must be 3 numbers"):
        ChainScorer(bad_far)
    assert scorer.answer_type_weight == 0.0  # no `chain.answer_type`: trained before its fit
    assert scorer.answer_types_for({"City": 1.0}) is None
    typed = tmp_path / "typed"
    _linked_model(shipped, typed, people | {"chain": chain | {"answer_type": {"weight": 0.5}}})
    assert ChainScorer(typed).answer_types_for({"City": 0.8, "Country": 0.2}) == {"City": 0.4, "Country": 0.1}
    assert ChainScorer(typed).answer_types_for({"City": 0.8}, scale=0.0) is None  # switched off
    for weight in ("high", None, float("nan")):
        wrong = tmp_path / f"type-{weight}"
        _linked_model(shipped, wrong, people | {"chain": chain | {"answer_type": {"weight": weight}}})
        with pytest.raises(ModelError, match="answer_type"):
            ChainScorer(wrong)
    for max_words in ("six", 1, None):
        wrong = tmp_path / f"words-{max_words}"
        near_words = {"weights": weights, "max_words": max_words}
        _linked_model(shipped, wrong, people | {"chain": chain | {"near": near_words}})
        with pytest.raises(ModelError, match="max_words"):
            ChainScorer(wrong)


def test_a_plan_starts_only_with_steps_the_topic_has() -> None:
    """A chain whose first step the topic lacks reaches nothing: it is not planned, and the
    probability goes to the chains that can answer ("capital of the country X is in" from a
    city that is no capital)."""
    onto = Ontology.from_mapping(
        {
            "relationship_types": [
                {"type": "capital_of", "phrase": "is the capital of", "inverse_phrase": "has its capital in",
                 "source": ["City"], "target": ["Country"]},
                {"type": "located_in", "phrase": "is in", "inverse_phrase": "has the city",
                 "source": ["City"], "target": ["Country"]},
            ]
        }
    )  # fmt: skip

    def score(texts):  # type: ignore[no-untyped-def]
        return [1.0 if "capital" in t else 0.5 if "is in X" in t else 0.0 for t in texts]

    anywhere = plan_chains(score, onto, "City", max_depth=2, temperature=0.1)
    assert anywhere.best[0] == ("capital_of", "out")
    city = plan_chains(score, onto, "City", max_depth=2, temperature=0.1, first_steps={("located_in", "out")})
    assert all(c[0] == ("located_in", "out") for c in city.probs if c)
    assert city.best == (("located_in", "out"), ("capital_of", "in"))
    alone = plan_chains(score, onto, "City", max_depth=2, temperature=0.1, first_steps=frozenset())
    assert list(alone.probs) == [()]  # a topic with no relationships: only itself


class FakeChains:
    """A chain scorer of depth 1 that scores each chain text with `score`, no question terms.

    `read` holds the masked questions it was asked to score for.
    """

    max_depth, plan_depth, temperature, pool = 1, 1, 0.05, None

    def __init__(self, score: Callable[[str], float]) -> None:
        self.score = score
        self.read: list[str] = []

    def check_ontology(self, ontology: Ontology) -> None:
        pass

    def scorer_for(self, masked: str) -> Callable[[Sequence[str]], list[float]]:
        self.read.append(masked)
        return lambda texts: [self.score(t) for t in texts]

    def near_scorer_for(self, masked: str) -> None:
        return None

    def answer_types_for(self, type_scores: object, scale: float = 1.0) -> None:
        return None

    def nouns_for(self, masked: str, ontology: Ontology, scale: float = 1.0) -> None:
        return None

    def far_scorer_for(self, masked: str, scale: float = 1.0) -> None:
        return None


def test_a_plan_whose_best_chain_is_unsure_is_not_followed() -> None:
    """`chain_min_best`: a flat plan leaves its topic to the path-text scorer; a sure one is kept."""
    from pathrag_gds.config import Settings
    from pathrag_gds.paths import EntityRecord
    from pathrag_gds.search.context import QueryContext
    from pathrag_gds.search.topics import topic_plans

    onto = Ontology.from_mapping(
        {
            "relationship_types": [
                {"type": "owns", "phrase": "owns", "inverse_phrase": "is owned by",
                 "source": ["Person"], "target": ["Animal"]},
                {"type": "chases", "phrase": "chases", "inverse_phrase": "is chased by",
                 "source": ["Animal"], "target": ["Animal"]},
                {"type": "likes", "phrase": "likes", "inverse_phrase": "is liked by",
                 "source": ["Animal"], "target": ["Animal"]},
            ]
        }
    )  # fmt: skip

    def chains(sure: bool) -> FakeChains:
        # sure: "owned by X" far above the rest; unsure: every chain alike
        return FakeChains(lambda t: 1.0 if sure and t.endswith("owns X") else 0.5)

    ctx = QueryContext("Who owns Bob?", max_depth=2, topics={"bob"})
    ctx.entities["bob"] = EntityRecord("bob", ("Animal",), "Bob")
    gate = Settings(chain_min_best=0.2)
    sure = topic_plans(chains(True), ctx, onto, ["bob"], gate)
    assert sure["bob"].best == (("owns", "in"),) and max(sure["bob"].probs.values()) >= 0.2
    flat = topic_plans(chains(False), ctx, onto, ["bob"], Settings(chain_min_best=0.0))
    assert max(flat["bob"].probs.values()) < 0.2  # six chains alike (X itself too): each holds a sixth
    assert topic_plans(chains(False), ctx, onto, ["bob"], gate) == {}


def test_a_topic_named_by_a_description_is_masked_by_its_words() -> None:
    """The plan reads "Who owns X?" from "Who owns the grey cat?", as from "Who owns Smokey?"."""
    from pathrag_gds.config import Settings
    from pathrag_gds.intent.model import Intent
    from pathrag_gds.paths import EntityRecord
    from pathrag_gds.search.context import QueryContext
    from pathrag_gds.search.topics import topic_plans

    onto = Ontology.from_mapping(
        {"relationship_types": [{"type": "owns", "phrase": "owns", "inverse_phrase": "is owned by",
                                 "source": ["Person"], "target": ["Animal"]}]}
    )  # fmt: skip
    chains = FakeChains(lambda t: 1.0)
    question = "Who owns the grey cat?"
    ctx = QueryContext(question, max_depth=1, topics={"smokey"})
    ctx.entities["smokey"] = EntityRecord("smokey", ("Animal",), "Smokey")
    ctx.intent = Intent(question, named=("smokey",), named_as={"smokey": "the grey cat"})
    assert set(topic_plans(chains, ctx, onto, ["smokey"], Settings(chain_min_best=0.0))) == {"smokey"}
    assert chains.read == ["Who owns X?"]


def test_a_pool_plans_only_the_chains_the_graph_holds_and_as_deep_as_it_goes() -> None:
    """`pool`: a chain no walk of the graph takes is never planned, a held one is at any depth."""
    from pathrag_gds.search.schema import pool_chain_texts

    held = {
        (("directed_by", "in"),),
        (("directed_by", "in"), ("starred_actors", "out")),
    }
    pool = set(pool_chain_texts(MOVIES, held))
    assert chain_text(MOVIES, TypedChain((("directed_by", "in"),), ("Person", "Movie"))) in pool
    assert chain_text(MOVIES, TypedChain((("starred_actors", "in"),), ("Person", "Movie"))) not in pool
    # the scorer likes a chain the graph does not hold best: the pool keeps it out
    score = steps_scorer(MOVIES, "Person", ("starred_actors", "in"))
    planned = plan_chains(score, MOVIES, "Person", max_depth=3, keep=10, temperature=0.1, pool=pool)
    assert set(planned.probs) == {(), *held}
    unpooled = plan_chains(score, MOVIES, "Person", max_depth=3, temperature=0.1)
    assert unpooled.best == (("starred_actors", "in"),)


def test_a_declared_pool_needs_its_encodings_and_sets_the_planning_depth(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """`chain.pool` in the manifest: its texts are the vectors file's, planned to its depth."""
    import json

    from pathrag_gds.chain_model import ChainScorer, chain_model_dir
    from pathrag_gds.config import Settings
    from pathrag_gds.errors import ModelError

    shipped = chain_model_dir(Settings(), "people")
    manifest = json.loads((shipped / "manifest.json").read_text(encoding="utf-8"))
    manifest["chain"].pop("members", None)
    manifest["chain"]["pool"] = {"depth": 4}
    folder = tmp_path / "chain"
    _linked_model(shipped, folder, manifest)
    with pytest.raises(ModelError, match=str(folder)):
        ChainScorer(folder)  # declared, but no vectors file
    (folder / "manifest.json").unlink()
    manifest["chain"].pop("pool")
    (folder / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    plain = ChainScorer(folder)
    assert plain.pool is None and plain.plan_depth == plain.max_depth
    plain.save_vectors(["X itself", "the city that X was born in"])
    manifest["chain"]["pool"] = {"depth": 4}
    (folder / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    pooled = ChainScorer(folder)
    assert pooled.pool == {"X itself", "the city that X was born in"} and pooled.plan_depth == 4


def test_chain_texts_are_written_once_per_ontology_and_never_shared_between_two() -> None:
    from pathrag_gds.ontology import RelationType

    chain = TypedChain((("owns", "in"),), ("Animal", "Person"))
    one = Ontology("a", relation_types=(RelationType("owns", "owns", "is owned by"),))
    other = Ontology("b", relation_types=(RelationType("owns", "keeps", "is kept by"),))
    first = chain_text(one, chain)
    assert chain_text(one, chain) is first  # kept with the ontology
    assert one.texts[chain] == first == "the person that owns X"
    assert chain_text(other, chain) == "the person that keeps X"  # its own words, not the other's
