"""Clusters of a community's entities (GDS Leiden / Louvain) with extractive summaries.

`detect` (GDS through `graphdatascience`), `summary` (pure), `store` (reads and writes),
`build` (the `communities` command's steps). Searches read them in `pathrag_gds.modes`.
A cluster is not a community: the community is the access boundary, and every cluster belongs to one.
"""
