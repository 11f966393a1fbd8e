#!/usr/bin/env bash
# Set up pathrag_gds on a fresh machine: a virtual environment at .venv with the package and its
# dependencies (PyPI only), and a check that the committed query-path model loads.
# Neo4j's jars are fetched from Maven Central on the first `python -m pathrag_gds db start`.
#
#   PATHRAG_EXTRAS   pip extras to install (default: dev,server). CI adds `train` (torch, pinned)
#                    `graphrag` (neo4j-graphrag, for pathrag_gds.integrations.neo4j_graphrag) and
#                    `langchain` (langchain-core, for pathrag_gds.integrations.langchain).
#   PYTHON           interpreter to build the venv from (default: python3.11, else python3).
set -euo pipefail
cd "$(dirname "$0")/.."

extras="${PATHRAG_EXTRAS:-dev,server}"
python="${PYTHON:-$(command -v python3.11 || command -v python3)}"

if [ ! -x .venv/bin/python ]; then
  echo "[setup] creating .venv with $python"
  "$python" -m venv .venv
fi
echo "[setup] installing pathrag_gds[$extras] into .venv"
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet --progress-bar off -e ".[${extras}]"
echo "[setup] checking the query-path model"
.venv/bin/python -m pathrag_gds models list
echo "[setup] done"
