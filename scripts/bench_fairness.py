"""Fairness between tenants: a light tenant's latency alone and while another tenant floods the search queue.

Starts `python -m pathrag_gds serve` on a free loopback port with two tokens of the demo community
(a light and a heavy tenant; the demo graph must be loaded), or uses a server already running on
loopback (`--url`, tokens in PATHRAG_BENCH_LIGHT_TOKEN / PATHRAG_BENCH_HEAVY_TOKEN). Then, side by
side in one run:

1. alone: the light tenant asks small questions (hop_depth 1) one after the other for `--duration` s;
2. flooded: the heavy tenant keeps `--flood` large questions (hop_depth 4, seed_n 50) in flight
   (each client asks again as soon as it is answered, or 0.2 s after a 429) while the light tenant
   asks as in 1 for `--duration` s.

It prints the light tenant's p50 / p95 / max in both phases and what the heavy tenant got (answers,
429s, 504s). Everything is bounded: server start-up (`--startup-s`), each phase, the drain after the
flood (the server's time limit); only loopback servers are used.

Usage:
    .venv/bin/python scripts/bench_fairness.py --duration 20 --flood 100
"""

from __future__ import annotations

import argparse
import json
import math
import os
import secrets
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import requests

from pathrag_gds.api.auth import is_loopback

ROOT = Path(__file__).resolve().parents[1]
COMMUNITY = "DefaultCommunity_FictionalStories"
LIGHT_QUESTION = "Who owns Bob the Cat?"
#: Demo questions (bob_eval.yaml) asked with a deep, wide search.
HEAVY_QUESTIONS = [
    "Who is the owner of the dog that chases Bob?",
    "In which village was Bob when the milk was spilled?",
    "Who was involved when Bob knocked the milk over?",
]
MAX_DURATION_S = 120
MAX_FLOOD = 200


def free_port() -> int:
    """A loopback TCP port that is free right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def percentile(values: list[float], q: float) -> float:
    """The nearest-rank `q` percentile (0 < q <= 100) of `values`; nan when empty."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[max(0, min(len(ordered), math.ceil(q / 100 * len(ordered))) - 1)]


def start_server(port: int, light: str, heavy: str, folder: Path) -> subprocess.Popen[bytes]:
    """`serve` on 127.0.0.1:`port` with the two tokens (output to `folder`/server.log)."""
    tokens = folder / "tokens.json"
    tokens.write_text(json.dumps({light: [COMMUNITY], heavy: [COMMUNITY]}), encoding="utf-8")
    env = {**os.environ, "PATHRAG_API_TOKENS_FILE": str(tokens)}
    env.pop("PATHRAG_API_TOKEN", None)
    # one worker: the fairness of one process's search slots is what is measured
    return serve(port, 1, env, folder / "server.log")


def serve(port: int, workers: int, env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    """`serve --workers N` on 127.0.0.1:`port` with `env`, its output to `log`."""
    cmd = [sys.executable, "-m", "pathrag_gds", "serve", "--host", "127.0.0.1", "--port", str(port)]
    cmd += ["--workers", str(workers)]
    return subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=log.open("wb"), stderr=subprocess.STDOUT)


def wait_ready(
    url: str, token: str, limit_s: float, server: subprocess.Popen[bytes] | None
) -> dict[str, Any]:
    """Wait until /readyz answers 200; return /v1/info's limits."""
    deadline = time.monotonic() + limit_s
    while True:
        if server is not None and server.poll() is not None:
            raise SystemExit(f"the server exited with status {server.returncode}; see its log")
        try:
            if requests.get(f"{url}/readyz", timeout=5).status_code == 200:
                info = requests.get(f"{url}/v1/info", headers=auth(token), timeout=30).json()
                limits: dict[str, Any] = info["limits"]
                return limits
        except requests.RequestException:
            pass
        if time.monotonic() > deadline:
            raise SystemExit(f"the server was not ready within {limit_s:.0f} s")
        time.sleep(1)


def auth(token: str) -> dict[str, str]:
    """The bearer header of `token`."""
    return {"Authorization": f"Bearer {token}"}


def light_client(url: str, token: str, seconds: float) -> tuple[list[float], Counter[int]]:
    """Ask the light question one after the other for `seconds`: latencies of the 200s, status counts."""
    body = {"question": LIGHT_QUESTION, "community_id": COMMUNITY, "hop_depth": 1, "seed_n": 5}
    latencies: list[float] = []
    codes: Counter[int] = Counter()
    end = time.monotonic() + seconds
    with requests.Session() as s:
        while time.monotonic() < end:
            t0 = time.monotonic()
            r = s.post(f"{url}/v1/query", json=body, headers=auth(token), timeout=300)
            codes[r.status_code] += 1
            if r.status_code == 200:
                latencies.append(time.monotonic() - t0)
    return latencies, codes


def flood(
    url: str, token: str, clients: int, stop: threading.Event, codes: Counter[int]
) -> list[threading.Thread]:
    """`clients` threads, each asking a heavy question again as soon as it is answered, until `stop`."""
    lock = threading.Lock()

    def run(n: int) -> None:
        with requests.Session() as s:
            while not stop.is_set():
                q = HEAVY_QUESTIONS[n % len(HEAVY_QUESTIONS)]
                body = {"question": q, "community_id": COMMUNITY, "hop_depth": 4, "seed_n": 50, "top_n": 50}
                try:
                    status = s.post(
                        f"{url}/v1/query", json=body, headers=auth(token), timeout=300
                    ).status_code
                except requests.RequestException:
                    status = 0
                with lock:
                    codes[status] += 1
                if status != 200:
                    stop.wait(0.2)

    threads = [threading.Thread(target=run, args=(n,), daemon=True) for n in range(clients)]
    for t in threads:
        t.start()
    return threads


def row(name: str, latencies: list[float], codes: Counter[int]) -> str:
    """One line of the light tenant's table."""
    other = {c: n for c, n in sorted(codes.items()) if c != 200}
    return (
        f"{name:<28} {len(latencies):>5} {percentile(latencies, 50):>7.2f} {percentile(latencies, 95):>7.2f} "
        f"{max(latencies, default=float('nan')):>7.2f}   {other or '-'}"
    )


def main(argv: list[str] | None = None) -> int:
    """Run both phases and print the table; exit status 1 when the light tenant got no answer."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument(
        "--duration", type=float, default=20.0, help=f"seconds per phase (at most {MAX_DURATION_S})"
    )
    p.add_argument("--flood", type=int, default=100, help=f"heavy requests in flight (at most {MAX_FLOOD})")
    p.add_argument("--url", default=None, help="a running server on loopback (default: start one)")
    p.add_argument("--startup-s", type=float, default=240.0, help="longest wait for the server to be ready")
    p.add_argument("--json", type=Path, default=None, help="also write the figures to this file")
    args = p.parse_args(argv)
    if not 0 < args.duration <= MAX_DURATION_S or not 0 < args.flood <= MAX_FLOOD:
        p.error(f"--duration must be in (0, {MAX_DURATION_S}] and --flood in [1, {MAX_FLOOD}]")
    server = None
    with tempfile.TemporaryDirectory(prefix="bench-fairness-") as tmp:
        if args.url:
            url = args.url.rstrip("/")
            if not is_loopback(urlparse(url).hostname or ""):
                p.error(f"{url} is not a loopback address: this benchmark runs only against loopback")
            light = os.environ.get("PATHRAG_BENCH_LIGHT_TOKEN", "")
            heavy = os.environ.get("PATHRAG_BENCH_HEAVY_TOKEN", "")
            if not light or not heavy:
                p.error("with --url set PATHRAG_BENCH_LIGHT_TOKEN and PATHRAG_BENCH_HEAVY_TOKEN")
        else:
            light, heavy = (f"bench-{who}-" + secrets.token_urlsafe(24) for who in ("light", "heavy"))
            port = free_port()
            url = f"http://127.0.0.1:{port}"
            server = start_server(port, light, heavy, Path(tmp))
        try:
            limits = wait_ready(url, light, args.startup_s, server)
            light_client(url, light, 3.0)  # warm: models, caches
            alone, alone_codes = light_client(url, light, args.duration)
            stop, heavy_codes = threading.Event(), Counter[int]()
            heavies = flood(url, heavy, args.flood, stop, heavy_codes)
            time.sleep(2.0)  # let the flood fill the queue
            flooded, flooded_codes = light_client(url, light, args.duration)
            stop.set()
            drain = time.monotonic() + float(limits.get("timeout_s", 30)) + 10
            for t in heavies:
                t.join(max(0.0, drain - time.monotonic()))
        finally:
            if server is not None:
                server.terminate()
                try:
                    server.wait(30)
                except subprocess.TimeoutExpired:
                    server.kill()
    print(
        f"server: concurrency {limits.get('concurrency')}, queue {limits.get('max_queue')} "
        f"({limits.get('max_queue_per_token', '-')} per token), time limit {limits.get('timeout_s')} s"
    )
    print(
        f"{'light tenant (hop_depth 1)':<28} {'n':>5} {'p50 s':>7} {'p95 s':>7} {'max s':>7}   other answers"
    )
    print(row("alone", alone, alone_codes))
    print(row(f"while heavy floods ({args.flood})", flooded, flooded_codes))
    print(f"heavy tenant: answers by status {dict(sorted(heavy_codes.items()))}")
    if args.json:
        figures = {
            "limits": limits,
            "flood": args.flood,
            "duration_s": args.duration,
            "light_alone": {"n": len(alone), "p50": percentile(alone, 50), "p95": percentile(alone, 95)},
            "light_flooded": {
                "n": len(flooded),
                "p50": percentile(flooded, 50),
                "p95": percentile(flooded, 95),
            },
            "light_flooded_status": dict(flooded_codes),
            "heavy_status": dict(heavy_codes),
        }
        args.json.write_text(json.dumps(figures, indent=2), encoding="utf-8")
    return 0 if alone and flooded else 1


if __name__ == "__main__":
    raise SystemExit(main())
