"""The process-wide scorer of each community: the bi-encoder, or a cascade where `tune` made a model."""

from __future__ import annotations

import hashlib
import logging
import threading
from pathlib import Path

from pathrag_gds.backend.vector_store import VectorStore, store_name
from pathrag_gds.config import Settings, get_settings
from pathrag_gds.encoders import Embedder, get_embedder
from pathrag_gds.locations import find_model
from pathrag_gds.scoring.base import Scorer
from pathrag_gds.scoring.bi_encoder import BiEncoderScorer
from pathrag_gds.scoring.cascade import CascadeScorer
from pathrag_gds.scoring.cross_encoder import CrossEncoderScorer
from pathrag_gds.scoring.pooled import PooledBiEncoderScorer

log = logging.getLogger(__name__)

#: The hint logged once when a community has no tuned cross-encoder.
TUNE_HINT = (
    "no tuned cross-encoder for community {community!r}: scoring with the bi-encoder alone; "
    "`python -m pathrag_gds tune --community {community}` trains one for this graph "
    "(see docs/tuning.md for when it helps)"
)


#: Characters a community id keeps as they are in its folder name; any other is written `%XX`.
_FOLDER_SAFE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-")
#: Longest name kept in full (a file name's 255 bytes less `tuned-`); a longer one is cut and ends
#: `~` + a hash of the whole id.
_FOLDER_MAX = 249


def community_folder(community_id: str) -> str:
    """A community id as a folder name: one id, one name (injective), readable.

    Letters, digits, `.`, `_` and `-` stay as they are (so `people` and `Harbour_Stories` keep the
    folders their models ship in); every other character is written as `%XX`, its UTF-8 bytes in
    hex. A name longer than 249 characters (too long for a folder) is cut and ends `~` and 16 hex
    digits of the id's SHA-256 (`~` is never kept, so such a name cannot equal another id's).

    Example:
        >>> [community_folder(c) for c in ("acme_secret", "acme:secret", "acme secret", "acme%3Asecret")]
        ['acme_secret', 'acme%3Asecret', 'acme%20secret', 'acme%253Asecret']
    """
    if all(c in _FOLDER_SAFE for c in community_id):
        name = community_id
    else:
        name = "".join(
            c if c in _FOLDER_SAFE else "".join(f"%{b:02X}" for b in c.encode("utf-8", "surrogatepass"))
            for c in community_id
        )
    if len(name) > _FOLDER_MAX:
        digest = hashlib.sha256(community_id.encode("utf-8", "surrogatepass")).hexdigest()[:16]
        name = f"{name[: _FOLDER_MAX - 17]}~{digest}"
    return name


def tuned_model_dir(settings: Settings, community_id: str, models_dir: Path | None = None) -> Path:
    """The folder of a community's models: `models/tuned-<community>/`.

    The folder name is :func:`community_folder` of the id: distinct communities never share one.
    With `models_dir` (where `tune` writes): that folder under it. Without (to read): under
    `Settings.models_dir`, else the installed wheel's shipped one (:func:`locations.find_model`).

    Example:
        >>> tuned_model_dir(Settings(), "metaqa", Path("models")).as_posix()
        'models/tuned-metaqa'
        >>> tuned_model_dir(Settings(), "DefaultCommunity:FictionalStories", Path("models")).as_posix()
        'models/tuned-DefaultCommunity%3AFictionalStories'
    """
    name = f"tuned-{community_folder(community_id)}"
    return models_dir / name if models_dir is not None else find_model(settings.models_dir, name)


_scorers: dict[tuple[object, ...], Scorer] = {}
_scorers_lock = threading.Lock()
_hinted: set[str] = set()


def vector_store(s: Settings, emb: Embedder) -> VectorStore | None:
    """The on-disk store of this embedder's text vectors (`vector_store_dir`; `off`: none)."""
    if s.vector_store_dir.strip().lower() == "off":
        return None
    name = store_name(
        emb.model_dir,
        s.quantization,
        max_length=emb.max_length,
        pooling=emb.pooling,
        normalize=emb.normalize,
        lowercase=emb.lowercase,
    )
    return VectorStore(Path(s.vector_store_dir) / name, emb.dim)


def _bi_scorer(s: Settings) -> BiEncoderScorer:
    pooling = s.bi_encoder_pooling
    model = find_model(s.models_dir, s.embedding_model)
    key: tuple[object, ...] = (str(model), s.quantization, s.threads, pooling)
    scorer = _scorers.get(key)
    if scorer is None:
        emb = get_embedder(s)
        store = vector_store(s, emb)
        scorer = (
            PooledBiEncoderScorer(emb, mean_weight=s.pooled_mean_weight, store=store)
            if pooling == "sentences"
            else BiEncoderScorer(emb, store=store)
        )
        _scorers[key] = scorer
    assert isinstance(scorer, BiEncoderScorer)
    return scorer


def text_encoder(settings: Settings | None = None) -> BiEncoderScorer:
    """The process-wide bi-encoder as a text encoder: memory cache, then on-disk store, then model.

    Intent embeds its type and relation texts and nouns with it.

    Example:
        >>> text_encoder().encode(["a person"]).shape  # doctest: +SKIP
        (1, 384)
    """
    with _scorers_lock:
        return _bi_scorer(settings or get_settings())


def get_scorer(settings: Settings | None = None, community_id: str | None = None) -> Scorer:
    """The process-wide scorer for a query's community (cached).

    A :class:`CascadeScorer` (bi-encoder + the community's tuned cross-encoder, `Settings.cascade_k`)
    when `models/tuned-<community>/manifest.json` exists and `cascade_k` > 0; otherwise the
    :class:`BiEncoderScorer`, with a one-time hint to run `tune` for that community.

    Example:
        >>> get_scorer().name  # doctest: +SKIP
        'bi-encoder'
    """
    s = settings or get_settings()
    with _scorers_lock:
        bi = _bi_scorer(s)
        if community_id is None or s.cascade_k <= 0:
            return bi
        model_dir = tuned_model_dir(s, community_id)
        if not (model_dir / "manifest.json").is_file():
            if community_id not in _hinted:
                _hinted.add(community_id)
                log.warning(TUNE_HINT.format(community=community_id))
            return bi
        key: tuple[object, ...] = (
            "cascade",
            str(model_dir),
            s.quantization,
            s.threads,
            s.cascade_k,
            s.cascade_alpha,
            s.cascade_floor,
        )
        scorer = _scorers.get(key)
        if scorer is None:
            cross = CrossEncoderScorer.load(model_dir, quantization=s.quantization, threads=s.threads)
            scorer = CascadeScorer(bi, cross, s.cascade_k, s.cascade_alpha, s.cascade_floor)
            _scorers[key] = scorer
        return scorer


def reset_scorers() -> None:
    """Forget cached scorers and hints (tests, after `tune`)."""
    with _scorers_lock:
        _scorers.clear()
        _hinted.clear()
