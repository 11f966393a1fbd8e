#!/usr/bin/env bash
# The wheel as a user gets it: build it, install it into a fresh venv (dependencies from PyPI), and
# from an empty folder outside the checkout answer the demo question against a running Neo4j.
# Fails unless the answer is the demo's (Whiskerville), nothing was written into that folder, and
# the vector store went to the per-user data folder (a fresh XDG_DATA_HOME here). CI runs it after
# the test suite (.ci/run).
#
#   NEO4J_URI, NEO4J_PASSWORD  the server (default: the local one, bolt://127.0.0.1:7687 and
#                              .neo4j/password of this checkout)
#   PATHRAG_WHEEL_RUN          `demo` (default: loads the demo graph, idempotent, then asks) or
#                              `query` (only asks: for a shared server whose demo graph is loaded)
#   PYTHON                     interpreter of the fresh venv (default: python3.11, else python3)
set -euo pipefail
cd "$(dirname "$0")/.."
root="$(pwd)"
run="${PATHRAG_WHEEL_RUN:-demo}"
python="${PYTHON:-$(command -v python3.11 || command -v python3)}"
work="$(mktemp -d /tmp/pathrag-wheel.XXXXXX)"
trap 'rm -rf "$work"' EXIT
t0=$SECONDS

# Build from a copy of the files git knows (tracked and new ones): no build/ leftovers, no ignored
# local files (fp32 exports, tuned models of one's own) can reach the wheel.
mkdir "$work/src"
git ls-files -z --cached --others --exclude-standard |
  tar --null --ignore-failed-read -T - -cf - 2>/dev/null | tar -xf - -C "$work/src"
"$python" -m venv "$work/venv"
"$work/venv/bin/python" -m pip wheel --quiet --no-deps -w "$work/dist" "$work/src" 2>"$work/build.log" || {
  cat "$work/build.log" >&2
  exit 1
}
wheel="$(ls "$work"/dist/pathrag_gds-*.whl)"
echo "[wheel] built $(basename "$wheel") ($(du -m "$wheel" | cut -f1) MB) in $((SECONDS - t0)) s"
"$work/venv/bin/python" -m pip install --quiet --progress-bar off "$wheel"
echo "[wheel] installed into a fresh venv with its dependencies in $((SECONDS - t0)) s"

mkdir "$work/empty" "$work/data"
cd "$work/empty"
export NEO4J_URI="${NEO4J_URI:-bolt://127.0.0.1:7687}"
export NEO4J_PASSWORD="${NEO4J_PASSWORD:-$(cat "$root/.neo4j/password")}"
export XDG_DATA_HOME="$work/data"
unset PYTHONPATH PATHRAG_HOME PATHRAG_MODELS_DIR PATHRAG_NEO4J_HOME PATHRAG_VECTOR_STORE_DIR
question="In which village was Bob when the milk was spilled?"
if [ "$run" = "demo" ]; then
  "$work/venv/bin/python" -m pathrag_gds demo --json >"$work/result.json"
else
  "$work/venv/bin/python" -m pathrag_gds query "$question" --community DefaultCommunity_FictionalStories \
    --json >"$work/result.json"
fi
# `answer` is an object (its `entity` the answer) or a string that starts with the answer
"$work/venv/bin/python" - "$work/result.json" <<'EOF'
import json
import sys

with open(sys.argv[1], encoding="utf-8") as f:
    answer = json.load(f).get("answer")
said = (answer.get("entity") or answer.get("text") or "") if isinstance(answer, dict) else str(answer or "")
if not said.startswith("Whiskerville"):
    sys.exit(f"[wheel] the demo question was not answered Whiskerville: answer {answer!r:.300}")
print(f"[wheel] answered: {said}")
EOF
if [ -n "$(ls -A "$work/empty")" ]; then
  echo "[wheel] the run wrote into the folder it ran in: $(ls -A "$work/empty")" >&2
  exit 1
fi
if ! ls "$work"/data/pathrag_gds/.cache/vectors/*.sqlite >/dev/null 2>&1; then
  echo "[wheel] no vector store in the per-user data folder $work/data/pathrag_gds" >&2
  exit 1
fi
info=$("$work/venv/bin/python" -m pathrag_gds info --community DefaultCommunity_FictionalStories)
grep -q "chain model: .*shipped with the package" <<<"$info" || {
  echo "[wheel] info does not show the demo graph's shipped chain model" >&2
  exit 1
}
echo "[wheel] $run from an empty folder outside the checkout: ok ($((SECONDS - t0)) s)"
