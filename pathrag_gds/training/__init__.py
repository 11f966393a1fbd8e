"""Training a cross-encoder per graph from generated questions (`python -m pathrag_gds tune`). Needs torch."""
