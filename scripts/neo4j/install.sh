#!/usr/bin/env bash
# Install the jars of the local Neo4j server (Neo4j 5.26 community + APOC core + open GDS 2.13) from
# Maven Central into a Neo4j home: <home>/lib (Neo4j) and <home>/plugins (APOC, GDS and their
# libraries). Idempotent: does nothing when the home already holds the jars of this pom.xml.
#
# Usage: scripts/neo4j/install.sh [NEO4J_HOME]
#   NEO4J_HOME defaults to $PATHRAG_NEO4J_HOME, else <repo>/.neo4j.
# Needs: Maven 3.6+ (mvn) and a JDK/JRE 17+. Maven's local repository is the default (~/.m2).
# `python -m pathrag_gds db start` runs this script itself when the home has no jars.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
home="${1:-${PATHRAG_NEO4J_HOME:-$here/../../.neo4j}}"
mkdir -p "$home"
home="$(cd "$home" && pwd)"
stamp="$(sha256sum "$here/pom.xml" | cut -d' ' -f1)"

if [[ -f "$home/lib/.installed" && "$(cat "$home/lib/.installed")" == "$stamp" \
      && -f "$home/plugins/.installed" && "$(cat "$home/plugins/.installed")" == "$stamp" ]]; then
  echo "Neo4j jars already installed in $home"
  exit 0
fi

if ! command -v mvn >/dev/null 2>&1; then
  echo "error: Maven (mvn) is not on PATH: install Maven 3.6+ (e.g. apt-get install maven) to fetch the Neo4j jars" >&2
  exit 2
fi

echo "fetching Neo4j 5.26 + APOC + GDS 2.13 jars from Maven Central into $home (first run, ~150 MB)..."
# Start from empty jar folders so that a version change leaves no old jar on the classpath.
# (A shared home links lib/ and plugins/ to another home: remove the links, never their targets.)
for dir in lib plugins; do
  if [[ -L "$home/$dir" ]]; then rm -f "$home/$dir"; else rm -rf "$home/$dir"; fi
done
mkdir -p "$home/lib" "$home/plugins" "$home/conf" "$home/data" "$home/logs" "$home/run"

start=$SECONDS
mvn -B -q -Dstyle.color=never -f "$here/pom.xml" \
  dependency:copy-dependencies@lib dependency:copy-dependencies@plugins dependency:copy-dependencies@plugin-libs \
  -Dneo4j.home="$home" 2>&1 | sed -e 's/\x1b\[0m//g'   # (Debian's Maven 3.8 prints stray colour resets with -q)
echo "$stamp" > "$home/lib/.installed"
echo "$stamp" > "$home/plugins/.installed"
echo "Neo4j jars installed in $home ($(du -sh "$home/lib" | cut -f1) lib, $(du -sh "$home/plugins" | cut -f1) plugins, $((SECONDS - start)) s)"
