"""Document provenance: documents, sections and chunks, versioned, linked to the entities they name.

`parse` reads Markdown / text into sections, `chunking` splits them within a token budget,
`mentions` finds entity names and aliases in chunks, `model` keys the parts of one version,
`store` writes versions (`python -m pathrag_gds load documents`), `embed` fills the chunk index.
See docs/provenance.md.
"""
