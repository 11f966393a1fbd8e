"""The search's pure parts: no database, no model.

`context` (one question's state), `protocols` (expanders, path scorers), `loop` (the beam search),
`ranking` (scores, keep, rerank, top-N), `planner` and `topics` (chain plans), `results` (the typed
result of the scored paths). The Neo4j expander is `pathrag_gds.expanders`; the wiring, `service`.
"""
