"""The chain scorer of a community: a tuned bi-encoder that reads questions and relation chains.

`python -m pathrag_gds tune --community ID` trains it on questions generated from the graph and
exports it to `models/tuned-<community>/chain/` (int8 ONNX, tokenizer, pooling config and a
`manifest.json` whose `chain` entry holds the temperature it was trained at). A question costs one
encoding (the topic masked as `X`); chain texts come from the ontology and their encodings are
cached per model, so planning is a few dot products once the schema's chains are warm.

Example:
    >>> scorer = get_chain_scorer(get_settings(), "metaqa")  # doctest: +SKIP
    >>> fn = scorer.scorer_for("who directed the films that X starred in")  # doctest: +SKIP
    >>> fn(["the person that directed the movie that starred X"])  # doctest: +SKIP
    [0.83]
"""

from __future__ import annotations

import logging
import math
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import numpy as np

from pathrag_gds.backend.vector_store import VectorStore
from pathrag_gds.config import Settings, get_settings
from pathrag_gds.encoders import Embedder, read_json
from pathrag_gds.errors import ModelError
from pathrag_gds.ontology import Ontology
from pathrag_gds.search.near import (
    ANSWER_CLASSES,
    DEFAULT_MAX_WORDS,
    WINDOW_CLASSES,
    answer_windows,
    topic_windows,
    window_features,
)
from pathrag_gds.search.nouns import NounWeights, noun_prefixes
from pathrag_gds.search.planner import ChainScoreFn, answer_type_terms
from pathrag_gds.search.schema import Chain, ontology_fingerprint

log = logging.getLogger(__name__)

#: The chain scorer's folder inside a community's tuned-model folder.
CHAIN_FOLDER = "chain"
#: Encodings of every chain text of the schema, written by `tune` (texts + float16 vectors).
CHAIN_VECTORS = "chain_vectors.npz"
#: Temperature of a manifest that does not record one (what training uses by default).
DEFAULT_TEMPERATURE = 0.05
NO_MODEL_HINT = (
    "community {community!r} has no chain model ({folder}): the search {instead}; run "
    "`python -m pathrag_gds tune --community {community}` to train one for this graph"
)
#: What the search does instead, by `chain_scorer` setting.
NO_MODEL_INSTEAD = {
    "auto": "plans chains with the chain reader trained on other graphs",
    "auto-no-reader": "scores paths by their text alone (no chain reader either)",
    "reader": "plans chains with the chain reader trained on other graphs",
    "tuned": "scores paths by their text alone",
}
#: The chain reader's folder under a models folder: one chain scorer trained on the questions of
#: several graphs (`training/chain_reader.py`), for communities without a model of their own.
READER_MODEL = "chain-reader"


def chain_model_dir(settings: Settings, community_id: str, models_dir: Path | None = None) -> Path:
    """`models/tuned-<community>/chain/`, the folder of `scoring.registry.community_folder(id)`.

    With `models_dir` (where `tune` writes): under it. Without (to read): under `Settings.models_dir`,
    else the installed wheel's shipped one (:func:`pathrag_gds.locations.find_model`).

    Example:
        >>> chain_model_dir(Settings(), "metaqa", Path("models")).as_posix()
        'models/tuned-metaqa/chain'
    """
    from pathrag_gds.locations import find_model
    from pathrag_gds.scoring.registry import community_folder

    name = f"tuned-{community_folder(community_id)}/{CHAIN_FOLDER}"
    return models_dir / name if models_dir is not None else find_model(settings.models_dir, name)


class ChainScorer:
    """Cosine similarity of a question to chain texts, with the chain encodings cached.

    Args:
        model_dir: an exported chain model folder (see the module docstring).
        quantization: `int8` or `fp32`.
        threads: onnxruntime intra-op threads.

    Raises:
        ModelError: the folder is not a chain model (the message names the folder).
    """

    name = "chains"

    def __init__(
        self, model_dir: Path, *, quantization: str = "int8", threads: int = 1, terms: bool = True
    ) -> None:
        """Load the model; `terms=False` leaves the fitted question terms out (the refit replaces them)."""
        manifest = read_json(model_dir / "manifest.json")
        chain = manifest.get("chain") if isinstance(manifest, dict) else None
        if not isinstance(chain, dict):
            raise ModelError(
                f"{model_dir} is not a chain model (its manifest.json has no 'chain' entry): "
                "re-run `python -m pathrag_gds tune` for the community, or remove the folder"
            )
        self.model_dir = model_dir
        self.temperature = float(chain.get("temperature", DEFAULT_TEMPERATURE))
        self.ontology_hash = chain.get("ontology")
        #: the longest chain its training questions asked for: longer chains are not planned
        self.max_depth = int((chain.get("options") or {}).get("max_depth", 3))
        near = chain["near"] if isinstance(chain.get("near"), dict) else {}
        if not terms:  # a refit reads none of the fitted weights: they may be of a shape it replaces
            near = {"max_words": near.get("max_words", DEFAULT_MAX_WORDS)}
            chain = {k: v for k, v in chain.items() if k not in ("far", "answer_type", "noun")}
        #: one weight per window class around the topic (`search.near`), fitted by `tune`
        self.near_weights = self._near_weights(near.get("weights"), model_dir)
        self.near_words = self._near_words(near.get("max_words", DEFAULT_MAX_WORDS), model_dir)
        far = chain["far"] if isinstance(chain.get("far"), dict) else {}
        #: one weight per window class around the question word, for a chain's last hop
        self.far_weights = self._near_weights(far.get("weights"), model_dir, "far", ANSWER_CLASSES)
        answer_type = chain["answer_type"] if isinstance(chain.get("answer_type"), dict) else {}
        #: weight of the intent's score of a chain's end type, fitted by `tune` (0: trained before it)
        self.answer_type_weight = self._term_weight(
            answer_type.get("weight", 0.0), model_dir, "answer_type.weight"
        )
        noun = chain["noun"] if isinstance(chain.get("noun"), dict) else {}
        #: weight of a chain that starts with the chain a relational noun names ("X's grandchildren"),
        #: fitted by `tune` (0: fitted before it, or the ontology has no such noun)
        self.noun_weight = self._term_weight(noun.get("weight", 0.0), model_dir, "noun.weight")
        #: and of a chain that is that chain, no step after it
        self.noun_exact_weight = self._term_weight(
            noun.get("exact_weight", 0.0), model_dir, "noun.exact_weight"
        )
        try:
            self.embedder = Embedder(model_dir, quantization=quantization, threads=threads)
        except ModelError as exc:
            raise ModelError(f"the chain model in {model_dir} cannot be used: {exc}") from exc
        self._cache: dict[str, np.ndarray] = {}
        #: where chain encodings outlive the process (the reader's: no `tune` wrote them to a file)
        self.store: VectorStore | None = None
        self._lock = threading.Lock()
        self._load_vectors(model_dir / CHAIN_VECTORS)
        #: the texts of the chains the graph held at tune time (`tune --chain-pool`), planned alone and
        #: to `plan_depth` hops; None: every chain of the schema, to `max_depth`
        self.pool, self.plan_depth = self._pool(chain.get("pool"), model_dir)
        #: other dual encoders trained with other seeds (`tune --seeds N --ensemble`): scores are the mean
        self.members = [self._member(str(m), quantization, threads, terms) for m in chain.get("members", [])]

    @staticmethod
    def _near_weights(
        raw: object, model_dir: Path, key: str = "near", classes: tuple[str, ...] = WINDOW_CLASSES
    ) -> np.ndarray | None:
        """The manifest's window weights (`chain.<key>.weights`), checked (absent: fitted before them)."""
        if raw is None:
            return None
        if not isinstance(raw, list) or len(raw) != len(classes):
            raise ModelError(
                f"{model_dir}/manifest.json: chain.{key}.weights must be {len(classes)} numbers "
                f"({', '.join(classes)}); re-run `python -m pathrag_gds tune` for the community"
            )
        try:
            return np.asarray([float(x) for x in raw], dtype=np.float32)
        except (TypeError, ValueError) as exc:
            raise ModelError(
                f"{model_dir}/manifest.json: chain.{key}.weights must be numbers ({exc}); re-run "
                "`python -m pathrag_gds tune` for the community"
            ) from exc

    @staticmethod
    def _term_weight(raw: object, model_dir: Path, key: str) -> float:
        """A manifest weight of one question term (`chain.<key>`), checked (a finite number)."""
        if isinstance(raw, int | float) and not isinstance(raw, bool) and math.isfinite(raw):
            return float(raw)
        raise ModelError(
            f"{model_dir}/manifest.json: chain.{key} must be a number, not {raw!r}; "
            "re-run `python -m pathrag_gds tune` for the community"
        )

    @staticmethod
    def _near_words(raw: object, model_dir: Path) -> int:
        """The manifest's longest window around the topic, checked (a whole number from 2)."""
        if isinstance(raw, int) and not isinstance(raw, bool) and raw >= 2:
            return raw
        raise ModelError(
            f"{model_dir}/manifest.json: chain.near.max_words must be a whole number >= 2, not {raw!r}; "
            "re-run `python -m pathrag_gds tune` for the community"
        )

    def _member(self, name: str, quantization: str, threads: int, terms: bool = True) -> ChainScorer:
        """One ensemble member: a chain model in a sub-folder, of the same ontology and depth."""
        folder = self.model_dir / name
        if not (folder / "manifest.json").is_file() or folder.parent != self.model_dir:
            raise ModelError(
                f"{self.model_dir}: ensemble member {name!r} is not a sub-folder with a manifest.json; "
                "re-run `python -m pathrag_gds tune` for the community"
            )
        member = ChainScorer(folder, quantization=quantization, threads=threads, terms=terms)
        if member.members or (member.ontology_hash, member.max_depth) != (self.ontology_hash, self.max_depth):
            raise ModelError(
                f"{folder}: not a member of the ensemble in {self.model_dir} (another ontology or depth, "
                "or an ensemble itself); re-run `python -m pathrag_gds tune` for the community"
            )
        return member

    def _pool(self, raw: object, model_dir: Path) -> tuple[frozenset[str] | None, int]:
        """The chain pool the manifest declares (`chain.pool.depth`): the encoded texts, its depth."""
        if raw is None:
            return None, self.max_depth
        depth = raw.get("depth") if isinstance(raw, dict) else None
        if not isinstance(depth, int) or isinstance(depth, bool) or depth < 1 or not self._cache:
            raise ModelError(
                f"{model_dir}: chain.pool needs a whole depth >= 1 and the pool's {CHAIN_VECTORS}; "
                "re-run `python -m pathrag_gds tune --chain-pool` for the community"
            )
        return frozenset(self._cache), depth

    def _load_vectors(self, path: Path) -> None:
        """Fill the cache from the encodings `tune` wrote (absent: chains are encoded when first met)."""
        if not path.is_file():
            return
        try:
            with np.load(path, allow_pickle=False) as data:
                texts, vectors = [str(t) for t in data["texts"]], data["vectors"].astype(np.float32)
        except (OSError, KeyError, ValueError) as exc:
            raise ModelError(
                f"{path} is unreadable ({exc}): re-run `python -m pathrag_gds tune` for the community, "
                "or delete the file (chains are then encoded when first met)"
            ) from exc
        if len(texts) != len(vectors) or (len(vectors) and vectors.shape[1] != self.embedder.dim):
            raise ModelError(
                f"{path} does not match the chain model in {self.model_dir}: re-run `python -m "
                "pathrag_gds tune` for the community, or delete the file"
            )
        self._cache.update(zip(texts, vectors, strict=True))

    def save_vectors(self, texts: Sequence[str], progress: Callable[[int, int], None] | None = None) -> Path:
        """Encode `texts` (every chain of the schema) into the model folder's `chain_vectors.npz`."""
        texts = list(dict.fromkeys(texts))
        step = 256
        for i in range(0, len(texts), step):
            self.chain_vectors(texts[i : i + step])
            if progress is not None:
                progress(min(i + step, len(texts)), len(texts))
        vectors = np.stack([self._cache[t] for t in texts]).astype(np.float16)
        path = self.model_dir / CHAIN_VECTORS
        np.savez_compressed(path, texts=np.asarray(texts), vectors=vectors)
        with self._lock:  # score with what a later load reads back
            self._cache.update(zip(texts, vectors.astype(np.float32), strict=True))
        return path

    def check_ontology(self, ontology: Ontology) -> None:
        """Raise a clear error when the model was trained on another ontology's chain texts.

        Raises:
            ModelError: the fingerprints differ (the message names the folder and what to do).
        """
        for member in self.members:
            member.check_ontology(ontology)
        if self.ontology_hash is not None and self.ontology_hash != ontology_fingerprint(ontology):
            raise ModelError(
                f"the chain model in {self.model_dir} was trained on another ontology than the one this "
                f"query walks ({ontology.id!r}): re-run `python -m pathrag_gds tune` for the community, "
                "or remove the folder"
            )

    def encode_question(self, masked_question: str) -> np.ndarray:
        """The question's vector (mask the topic as `X` first, as training did)."""
        return self.embedder.encode_question(masked_question)

    def chain_vectors(self, texts: Sequence[str]) -> np.ndarray:
        """Vectors of chain texts, encoded once per scorer and then cached (and stored, with a store)."""
        with self._lock:
            missing = [t for t in dict.fromkeys(texts) if t not in self._cache]
            if missing and self.store is not None:
                self._cache.update(self.store.get(missing))
                missing = [t for t in missing if t not in self._cache]
            if missing:
                encoded = {
                    t: np.asarray(v, dtype=np.float32)
                    for t, v in zip(missing, self.embedder.encode(missing), strict=True)
                }
                self._cache.update(encoded)
                if self.store is not None:
                    self.store.put(encoded)
            return np.stack([self._cache[t] for t in texts]) if texts else np.zeros((0, 1), np.float32)

    def scorer_for(self, masked_question: str) -> ChainScoreFn:
        """A chain score function for one question (one encoding per member, then dot products).

        An ensemble scores the mean cosine of its members: models trained on other walks of the
        graph agree on what the question asks and differ in their mistakes.
        """
        models = [self, *self.members]
        qs = [m.encode_question(masked_question) for m in models]

        def score(texts: Sequence[str]) -> list[float]:
            if not texts:
                return []
            sims = sum(m.chain_vectors(texts) @ q for m, q in zip(models, qs, strict=True))
            return [float(x) / len(models) for x in np.asarray(sims)]

        return score

    def near_scorer_for(self, masked_question: str) -> ChainScoreFn | None:
        """Chain texts read against the words around the topic, weighted as `tune` fitted them.

        None when the model has no fitted weights (trained before them) or the question holds no
        masked topic. One batch encoding of the windows (about 20 for a 6-word reach); see
        :mod:`pathrag_gds.search.near`.

        Example:
            >>> q = "who acted in the films directed by the director of X"
            >>> fn = scorer.near_scorer_for(q)  # doctest: +SKIP
            >>> fn(["the person that directed X", "the person that starred in X"])  # doctest: +SKIP
            [0.21, 0.12]
        """
        if self.near_weights is None:
            return None
        return _weighted(self.near_features(masked_question), self.near_weights)

    def far_scorer_for(self, masked_question: str, scale: float = 1.0) -> ChainScoreFn | None:
        """Chain texts read against the words around the question word, weighted as fitted.

        None when the model has no fitted weights, `scale` is 0 or the question has no wh-word.
        The planner reads each chain's last hop here (:func:`~pathrag_gds.search.planner.last_hops`).
        """
        if self.far_weights is None or not scale:
            return None
        return _weighted(self.far_features(masked_question), self.far_weights * scale)

    def answer_types_for(
        self, type_scores: Mapping[str, float], scale: float = 1.0
    ) -> dict[str, float] | None:
        """End label -> the term a chain ending there gets: the intent's type score, weighted.

        None when the model has no fitted weight or `scale` is 0 (the term is off).

        Example:
            >>> scorer.answer_types_for({"Country": 0.8, "City": 0.2})  # doctest: +SKIP
            {'Country': 0.048, 'City': 0.012}
        """
        return answer_type_terms(type_scores, self.answer_type_weight * scale)

    def nouns_for(
        self, masked_question: str, ontology: Ontology, scale: float = 1.0
    ) -> dict[Chain, NounWeights] | None:
        """Chain a relational noun of the question names -> its weighted term (None: off, or none)."""
        return noun_prefixes(
            masked_question, ontology, self.noun_weight * scale, self.noun_exact_weight * scale
        )

    def near_features(self, masked_question: str) -> Callable[[Sequence[str]], np.ndarray] | None:
        """Texts -> their window features (texts x classes) for one question, as `tune` fits them.

        The question's windows are encoded once here; None when it holds no masked topic.
        """
        return self._window_reader(topic_windows(masked_question, self.near_words), len(WINDOW_CLASSES))

    def far_features(self, masked_question: str) -> Callable[[Sequence[str]], np.ndarray] | None:
        """Texts -> their features against the windows around the question word (texts x 3).

        None when the question has no wh-word (:func:`~pathrag_gds.search.near.answer_windows`).
        """
        return self._window_reader(answer_windows(masked_question, self.near_words), len(ANSWER_CLASSES))

    def _window_reader(
        self, windows: Sequence[tuple[str, int]], n_classes: int
    ) -> Callable[[Sequence[str]], np.ndarray] | None:
        """Texts -> their best cosine per window class; the windows encoded once here (None: none)."""
        if not windows:
            return None
        # the windows encoded once per embedder (a question asked again reads no model)
        spans = self.embedder.encode_asked([t for t, _ in windows])
        classes = [c for _, c in windows]
        return lambda texts: window_features(self.chain_vectors(texts) @ spans.T, classes, n_classes)


def _weighted(
    features: Callable[[Sequence[str]], np.ndarray] | None, weights: np.ndarray
) -> ChainScoreFn | None:
    """Texts -> their window features times the fitted weights (None without features)."""
    if features is None:
        return None

    def read(texts: Sequence[str]) -> list[float]:
        return [float(x) for x in features(texts) @ weights] if texts else []

    return read


_scorers: dict[tuple[str, str, int], ChainScorer] = {}
_missing_said: set[str] = set()
_lock = threading.Lock()


def get_chain_scorer(settings: Settings | None, community_id: str | None) -> ChainScorer | None:
    """The community's chain scorer (cached), or None when it has none (said once per community).

    Raises:
        ModelError: the folder exists but is not a usable chain model.
    """
    from pathrag_gds.locations import find_model

    s = settings or get_settings()
    if community_id is None or not s.chain_planning:
        return None
    folder = chain_model_dir(s, community_id)
    with _lock:
        if not (folder / "manifest.json").is_file():
            if community_id not in _missing_said:
                _missing_said.add(community_id)
                said: str = s.chain_scorer
                reader = find_model(s.models_dir, READER_MODEL)
                if said == "auto" and not (reader / "manifest.json").is_file():
                    said = "auto-no-reader"
                instead = NO_MODEL_INSTEAD.get(said, NO_MODEL_INSTEAD["tuned"])
                log.warning(NO_MODEL_HINT.format(community=community_id, folder=folder, instead=instead))
            return None
        return _cached(folder, s)


def get_reader_scorer(settings: Settings | None = None) -> ChainScorer | None:
    """The chain reader (cached): the settings' models folder's `chain-reader/`, else the shipped one.

    None when neither exists (a checkout that has not built one and a wheel that ships none).

    Raises:
        ModelError: the folder exists but is not a usable chain model.
    """
    from pathrag_gds.locations import find_model

    s = settings or get_settings()
    folder = find_model(s.models_dir, READER_MODEL)
    if not (folder / "manifest.json").is_file():
        return None
    with _lock:
        # the chain texts of every graph it reads are encoded when first met, then kept on disk
        return _cached(folder, s, stored=True)


def _cached(folder: Path, s: Settings, stored: bool = False) -> ChainScorer:
    """The process's scorer of `folder` under these settings (made once; call holding `_lock`)."""
    key = (str(folder), s.quantization, s.threads)
    scorer = _scorers.get(key)
    if scorer is None:
        scorer = _scorers[key] = ChainScorer(folder, quantization=s.quantization, threads=s.threads)
        if stored:
            from pathrag_gds.scoring.registry import vector_store

            scorer.store = vector_store(s, scorer.embedder)
    return scorer


def reset_chain_scorers() -> None:
    """Forget cached chain scorers and hints (tests, after `tune`)."""
    with _lock:
        _scorers.clear()
        _missing_said.clear()
