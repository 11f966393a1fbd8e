"""The chunker: a section's text in pieces of at most a token budget, neighbours overlapping.

It is semantic-text-splitter (Rust, one small wheel, no dependencies) counting tokens with the
embedding model's own tokenizer, so a chunk always fits what the chunk index embeds. It splits at
the largest semantic unit that fits (Markdown blocks, then paragraphs, sentences, words) and reports
each chunk's character offset, which becomes its location in the document.

Example:
    >>> chunker = Chunker.from_settings(Settings.from_env({}))  # doctest: +SKIP
    >>> chunker.split("One sentence. Another one.", offset=100, markdown=False)  # doctest: +SKIP
    [(100, 126, 'One sentence. Another one.')]
"""

from __future__ import annotations

from functools import cache
from importlib.metadata import version
from pathlib import Path

from semantic_text_splitter import MarkdownSplitter, TextSplitter
from tokenizers import Tokenizer

from pathrag_gds.config import Settings
from pathrag_gds.errors import ConfigError, ModelError
from pathrag_gds.locations import find_model


@cache
def _tokenizer(path: Path) -> Tokenizer:
    if not path.is_file():
        raise ModelError(f"no tokenizer at {path}: run `python -m pathrag_gds models export` or set up again")
    tok = Tokenizer.from_file(str(path))
    tok.no_truncation()
    tok.no_padding()
    return tok


class Chunker:
    """Splits text into chunks of at most `tokens` tokens with up to `overlap` tokens shared.

    Args:
        tokenizer_path: the `tokenizer.json` that counts tokens.
        tokens: the token budget of a chunk.
        overlap: tokens two neighbouring chunks may share (less than `tokens`).
        model: the model name, recorded in :attr:`name`.
    """

    def __init__(self, tokenizer_path: Path, tokens: int, overlap: int, model: str = "") -> None:
        if not 0 <= overlap < tokens:
            raise ConfigError(
                f"chunk overlap {overlap} must be at least 0 and below the chunk budget {tokens}: "
                "lower PATHRAG_CHUNK_OVERLAP or raise PATHRAG_CHUNK_TOKENS"
            )
        tok = _tokenizer(tokenizer_path)
        self._markdown = MarkdownSplitter.from_huggingface_tokenizer(tok, tokens, overlap=overlap)
        self._text = TextSplitter.from_huggingface_tokenizer(tok, tokens, overlap=overlap)
        #: what made the chunks, stored on each chunk (a change of chunker makes a new version)
        self.name = (
            f"semantic-text-splitter {version('semantic-text-splitter')}: {tokens} tokens of {model or '?'}, "
            f"overlap {overlap}"
        )

    @classmethod
    def from_settings(cls, settings: Settings) -> Chunker:
        """The chunker of the settings: the embedding model's tokenizer, `chunk_tokens`, `chunk_overlap`."""
        model_dir = find_model(settings.models_dir, settings.embedding_model)
        return cls(
            model_dir / "tokenizer.json",
            settings.chunk_tokens,
            settings.chunk_overlap,
            settings.embedding_model,
        )

    def split(self, text: str, *, offset: int = 0, markdown: bool = True) -> list[tuple[int, int, str]]:
        """The chunks of `text` as (start, end, text), offsets shifted by `offset`; blank text: none."""
        splitter = self._markdown if markdown else self._text
        out = []
        for start, chunk in splitter.chunk_indices(text):
            if chunk.strip():
                out.append((offset + start, offset + start + len(chunk), chunk))
        return out
