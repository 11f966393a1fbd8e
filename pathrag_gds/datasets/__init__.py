"""Datasets: the demo graph, triple files, and the batched writer that puts them into Neo4j.

Example:
    >>> from pathrag_gds.datasets.triples import read_triples  # doctest: +SKIP
    >>> result = read_triples("kb.txt", "metaqa", ontology, community_id="metaqa")  # doctest: +SKIP
    >>> GraphLoader(graph).load(result.dataset)  # doctest: +SKIP
"""

from pathrag_gds.datasets.load_report import LoadReport
from pathrag_gds.datasets.loader import GraphLoader
from pathrag_gds.datasets.rows import ChunkRow, Dataset, DatasetError, EntityRow, RelationRow

__all__ = [
    "ChunkRow",
    "Dataset",
    "DatasetError",
    "EntityRow",
    "GraphLoader",
    "LoadReport",
    "RelationRow",
]
