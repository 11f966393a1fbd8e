"""Load test of a running `python -m pathrag_gds serve` on loopback.

N concurrent clients for T seconds (both bounded), mixing normal, streaming and invalid requests.
Before the load, each demo question is asked alone (one request at a time) at every hop_depth the
load uses; under load, every answer is compared with that reference: the same paths (node ids and
relationship types, in order), the same answer, the same echoed question and request id. The run
prints throughput, latency percentiles per kind and errors by kind. Exit status 1 when any answer
was a 5xx, differed from the question asked alone, or was unexpected.

Usage:
    .venv/bin/python scripts/load_test.py --clients 16 --duration 60
    (PATHRAG_API_TOKEN is sent as the bearer token when set; --questions 8 asks 8 demo questions)
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import random
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import requests
import yaml

from pathrag_gds.api.auth import is_loopback
from pathrag_gds.api.sse import parse_events

ROOT = Path(__file__).resolve().parents[1]
MAX_CLIENTS = 64
#: Search size of the valid requests (set from --max-hop / --seed-n).
MAX_HOP = 2
SEED_N = 10
MAX_DURATION_S = 600


def demo_questions() -> list[str]:
    """The demo graph's evaluation questions (spec + fresh)."""
    data = yaml.safe_load(EVAL_FILE.read_text(encoding="utf-8"))
    return [q["query"] for part in ("spec", "fresh") for q in data.get(part, [])]


EVAL_FILE = ROOT / "pathrag_gds" / "datasets" / "data" / "bob_eval.yaml"
QUESTIONS = demo_questions()
#: (question, hop_depth) -> the answer's signature when asked alone (filled before the load).
REFERENCE: dict[tuple[str, int], tuple[Any, ...]] = {}


def signature(data: dict[str, Any]) -> tuple[Any, ...]:
    """What must not change under load: the answer and each path's nodes and relationships, in order."""
    return (
        data.get("answer"),
        tuple(
            (tuple(n["id"] for n in p["nodes"]), tuple(e["type"] for e in p["edges"])) for p in data["paths"]
        ),
    )


def differs(q: str, hop: int, data: dict[str, Any]) -> str | None:
    """A mixed-up message when `data` is not the answer `q` got when asked alone, else None."""
    ref = REFERENCE.get((q, hop))
    if ref is None:
        return None
    got = signature(data)
    if got == ref:
        return None
    return f"mixed-up: {q!r} (hop_depth {hop}) answered {got[0]!r} with other paths than alone ({ref[0]!r})"


INVALID = [
    ({"question": "q", "mode": "global"}, 422),
    ({"question": "q", "hop_depth": 99}, 422),
    ({"question": "   "}, 422),
    ({"question": "q", "top_n": 0}, 422),
    ({"question": "q", "connection_details": {"uri": "bolt://10.0.0.1:7687"}}, 422),
    ({"question": "x" * 5000}, 422),
]


@dataclass
class Stats:
    """What all clients saw (guarded by a lock)."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    latencies: dict[str, list[float]] = field(default_factory=lambda: collections.defaultdict(list))
    outcomes: collections.Counter[str] = field(default_factory=collections.Counter)
    statuses: collections.Counter[str] = field(default_factory=collections.Counter)
    server_errors: int = 0
    mixed_up: int = 0
    unexpected: list[str] = field(default_factory=list)

    def record(self, kind: str, seconds: float, status: int | str, problem: str | None) -> None:
        with self.lock:
            self.latencies[kind].append(seconds)
            self.statuses[f"{kind} {status}"] += 1
            if isinstance(status, int) and status >= 500:
                self.server_errors += 1
            if problem is None:
                self.outcomes[f"{kind} ok"] += 1
            else:
                self.outcomes[f"{kind} {problem.split(':')[0]}"] += 1
                if problem.startswith("mixed-up"):
                    self.mixed_up += 1
                if len(self.unexpected) < 20:
                    self.unexpected.append(f"{kind}: {problem}")


def check_error_body(r: requests.Response) -> str | None:
    try:
        err = r.json()["error"]
    except (ValueError, KeyError, TypeError):
        return f"bad-error-body: {r.text[:200]}"
    if not (isinstance(err, dict) and err.get("code") and err.get("message")):
        return f"bad-error-body: {r.text[:200]}"
    if "Traceback" in r.text:
        return "stack-trace-in-response"
    return None


def normal(
    s: requests.Session, url: str, q: str, community: str | None, timeout: float
) -> tuple[int, str | None]:
    body = {
        "question": q,
        "community_id": community,
        "hop_depth": random.randint(1, MAX_HOP),
        "seed_n": SEED_N,
    }
    r = s.post(f"{url}/v1/query", json=body, timeout=timeout)
    if r.status_code != 200:
        return r.status_code, f"status-{r.status_code}: {r.text[:200]}"
    data = r.json()
    if data.get("question") != q or data.get("request_id") != r.headers.get("X-Request-ID"):
        return 200, f"mixed-up: sent {q!r}, got {data.get('question')!r}"
    if data.get("hop_depth") != body["hop_depth"]:
        return 200, f"mixed-up: hop_depth {data.get('hop_depth')}, sent {body['hop_depth']}"
    if any(p["path_length"] > body["hop_depth"] for p in data["paths"]):
        return 200, "mixed-up: a path longer than hop_depth"
    return 200, differs(q, body["hop_depth"], data)


def streamed(
    s: requests.Session, url: str, q: str, community: str | None, timeout: float
) -> tuple[int, str | None]:
    body = {"question": q, "community_id": community, "hop_depth": MAX_HOP, "seed_n": SEED_N, "stream": True}
    with s.post(f"{url}/v1/query", json=body, timeout=timeout, stream=True) as r:
        if r.status_code != 200:
            return r.status_code, f"status-{r.status_code}: {r.text[:200]}"
        text = r.content.decode("utf-8")
    events = parse_events(text)
    kinds = [k for k, _ in events]
    if not kinds or kinds[-1] != "result":
        return 200, f"stream-without-result: {kinds} {text[-300:]}"
    if any(d.get("question") != q for _, d in events):
        return 200, f"mixed-up: an event of another question in the stream of {q!r}"
    rid = {d.get("request_id") for _, d in events}
    if len(rid) != 1:
        return 200, f"mixed-up: request ids {rid}"
    return 200, differs(q, MAX_HOP, events[-1][1])


def invalid(
    s: requests.Session, url: str, q: str, community: str | None, timeout: float
) -> tuple[int, str | None]:
    body, expected = random.choice(INVALID)
    r = s.post(f"{url}/v1/query", json=body, timeout=timeout)
    if r.status_code != expected:
        return r.status_code, f"status-{r.status_code} (expected {expected}): {r.text[:200]}"
    return r.status_code, check_error_body(r)


KINDS = {"normal": normal, "stream": streamed, "invalid": invalid}


def client(
    idx: int,
    url: str,
    token: str | None,
    community: str | None,
    deadline: float,
    mix: list[tuple[str, float]],
    timeout: float,
    stats: Stats,
) -> None:
    s = requests.Session()
    if token:
        s.headers["Authorization"] = f"Bearer {token}"
    rng = random.Random(idx)
    n = 0
    names = [k for k, _ in mix]
    weights = [w for _, w in mix]
    while time.monotonic() < deadline:
        n += 1
        kind = rng.choices(names, weights)[0]
        q = rng.choice(QUESTIONS)  # as asked alone: the answer is compared with that one
        t0 = time.monotonic()
        try:
            status, problem = KINDS[kind](s, url, q, community, timeout)
        except requests.RequestException as exc:
            status, problem = "exception", f"{type(exc).__name__}: {exc}"
        stats.record(kind, time.monotonic() - t0, status, problem)
    s.close()


def ask_alone(url: str, token: str | None, community: str | None, timeout: float) -> str | None:
    """Fill REFERENCE: each question at each hop_depth, one request at a time; an error message or None."""
    s = requests.Session()
    if token:
        s.headers["Authorization"] = f"Bearer {token}"
    for q in QUESTIONS:
        for hop in range(1, MAX_HOP + 1):
            body = {"question": q, "community_id": community, "hop_depth": hop, "seed_n": SEED_N}
            r = s.post(f"{url}/v1/query", json=body, timeout=timeout)
            if r.status_code != 200:
                return f"asking {q!r} alone answered {r.status_code}: {r.text[:200]}"
            REFERENCE[(q, hop)] = signature(r.json())
    s.close()
    return None


def pct(values: list[float], p: float) -> float:
    xs = sorted(values)
    if not xs:
        return float("nan")
    k = min(len(xs) - 1, max(0, round(p / 100 * (len(xs) - 1))))
    return xs[k]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--url", default="http://127.0.0.1:8000", help="server URL (loopback only)")
    ap.add_argument("--clients", type=int, default=16, help=f"concurrent clients (1..{MAX_CLIENTS})")
    ap.add_argument("--duration", type=float, default=60.0, help=f"seconds (1..{MAX_DURATION_S})")
    ap.add_argument("--community", default="DefaultCommunity_FictionalStories")
    ap.add_argument("--mix", default="normal=0.6,stream=0.2,invalid=0.2", help="request kinds and weights")
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per request (client side)")
    ap.add_argument("--max-hop", type=int, default=2, help="hop_depth of valid requests: 1..this (default 2)")
    ap.add_argument("--seed-n", type=int, default=10, help="seed_n of valid requests (default 10)")
    ap.add_argument("--questions", type=int, default=0, help="ask only the first N demo questions (0: all)")
    ap.add_argument("--json", action="store_true", help="also print the summary as JSON")
    args = ap.parse_args(argv)

    host = urlparse(args.url).hostname or ""
    if urlparse(args.url).scheme not in {"http", "https"} or not is_loopback(host):
        print(f"error: refusing to load-test {args.url}: only loopback targets (127.0.0.1, ::1, localhost)")
        return 2
    if not 1 <= args.clients <= MAX_CLIENTS:
        print(f"error: --clients must be between 1 and {MAX_CLIENTS}")
        return 2
    if not 1 <= args.duration <= MAX_DURATION_S:
        print(f"error: --duration must be between 1 and {MAX_DURATION_S} s")
        return 2
    mix = []
    for part in args.mix.split(","):
        name, _, weight = part.partition("=")
        if name not in KINDS:
            print(f"error: unknown request kind {name!r} in --mix (kinds: {', '.join(KINDS)})")
            return 2
        mix.append((name, float(weight or 1)))
    global MAX_HOP, SEED_N, QUESTIONS
    MAX_HOP, SEED_N = args.max_hop, args.seed_n
    if args.questions > 0:
        QUESTIONS = QUESTIONS[: args.questions]
    token = os.environ.get("PATHRAG_API_TOKEN") or None
    try:
        ready = requests.get(f"{args.url}/readyz", timeout=10)
    except requests.RequestException as exc:
        print(f"error: no server at {args.url} ({exc}): start it with `python -m pathrag_gds serve`")
        return 2
    if ready.status_code != 200:
        print(f"error: the server is not ready: {ready.text}")
        return 2

    t_ref = time.monotonic()
    problem = ask_alone(args.url, token, args.community, args.timeout)
    if problem is not None:
        print(f"error: {problem}")
        return 2
    print(f"reference: {len(REFERENCE)} answers asked alone in {time.monotonic() - t_ref:.1f} s")

    stats = Stats()
    t0 = time.monotonic()
    deadline = t0 + args.duration
    threads = [
        threading.Thread(
            target=client,
            args=(i, args.url, token, args.community, deadline, mix, args.timeout, stats),
            daemon=True,
        )
        for i in range(args.clients)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(args.duration + args.timeout + 5)  # bounded: a stuck client cannot hold the run
    elapsed = time.monotonic() - t0

    total = sum(len(v) for v in stats.latencies.values())
    lines = [
        f"load test: {args.clients} clients, {args.duration:g} s, {args.url}, mix {args.mix}, "
        f"hop_depth 1..{MAX_HOP} (stream {MAX_HOP}), seed_n {SEED_N}",
        f"requests: {total} in {elapsed:.1f} s = {total / elapsed:.2f} req/s",
        f"{'kind':8} {'n':>6} {'p50 ms':>9} {'p95 ms':>9} {'p99 ms':>9} {'max ms':>9}",
    ]
    all_lat: list[float] = []
    for kind, lat in sorted(stats.latencies.items()):
        all_lat += lat
        lines.append(
            f"{kind:8} {len(lat):6d} {pct(lat, 50) * 1000:9.0f} {pct(lat, 95) * 1000:9.0f} "
            f"{pct(lat, 99) * 1000:9.0f} {max(lat) * 1000:9.0f}"
        )
    lines.append(
        f"{'all':8} {len(all_lat):6d} {pct(all_lat, 50) * 1000:9.0f} {pct(all_lat, 95) * 1000:9.0f} "
        f"{pct(all_lat, 99) * 1000:9.0f} {max(all_lat or [0]) * 1000:9.0f}"
    )
    lines.append("status by kind: " + ", ".join(f"{k}: {v}" for k, v in sorted(stats.statuses.items())))
    lines.append("outcomes: " + ", ".join(f"{k}: {v}" for k, v in sorted(stats.outcomes.items())))
    lines.append(
        f"5xx: {stats.server_errors}   answers unlike the question asked alone (mixed-up): {stats.mixed_up}"
    )
    for u in stats.unexpected:
        lines.append(f"  unexpected: {u}")
    print("\n".join(lines))
    if args.json:
        print(
            json.dumps(
                {
                    "requests": total,
                    "seconds": elapsed,
                    "throughput": total / elapsed,
                    "p50_ms": pct(all_lat, 50) * 1000,
                    "p95_ms": pct(all_lat, 95) * 1000,
                    "p99_ms": pct(all_lat, 99) * 1000,
                    "statuses": dict(stats.statuses),
                    "server_errors": stats.server_errors,
                    "mixed_up": stats.mixed_up,
                }
            )
        )
    ok = stats.server_errors == 0 and stats.mixed_up == 0 and not stats.unexpected
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
