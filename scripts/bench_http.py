"""HTTP throughput side by side: one client and many, one worker and several, in one run.

Starts `serve` on a free loopback port for each worker count (a fresh token; sessions in a
temporary SQLite file when there are several workers), runs `scripts/load_test.py` against it
with one client and then with `--clients` clients (the same mix of plain and streamed demo
questions; every answer checked against the question asked alone), stops it, and prints one
table: requests/s, p50/p95 latency, errors, answers unlike the question asked alone, and the
throughput of many clients over one. Then `scripts/bench_fairness.py` (its own one-worker server
with two tokens): a light tenant's p50/p95 alone and while a heavy tenant floods (`--flood`; 0
skips it).

Usage:
    .venv/bin/python scripts/bench_http.py                      # workers 1 and 2, 1 and 16 clients, 30 s each
    .venv/bin/python scripts/bench_http.py --workers 1 2 3 --duration 60 --json bench.json
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench_fairness import free_port, serve, wait_ready

ROOT = Path(__file__).resolve().parents[1]
MIX = "normal=0.75,stream=0.25"


def start(port: int, workers: int, token: str, folder: Path) -> subprocess.Popen[bytes]:
    """`serve` on 127.0.0.1:`port` with `workers` processes (output to `folder`/server-N.log)."""
    env = {**os.environ, "PATHRAG_API_TOKEN": token}
    env.pop("PATHRAG_API_TOKENS_FILE", None)
    if workers > 1:
        env["PATHRAG_API_SESSIONS_PATH"] = str(folder / f"sessions-{workers}.db")
    return serve(port, workers, env, folder / f"server-{workers}.log")


def load(url: str, token: str, clients: int, duration: float) -> dict[str, Any]:
    """One `load_test.py` run: its JSON summary and whether it passed."""
    cmd = [
        sys.executable, str(ROOT / "scripts" / "load_test.py"), "--url", url, "--clients", str(clients),
        "--duration", str(duration), "--mix", MIX, "--json",
    ]  # fmt: skip
    out = subprocess.run(cmd, env={**os.environ, "PATHRAG_API_TOKEN": token}, capture_output=True, text=True)
    lines = [ln for ln in out.stdout.splitlines() if ln.startswith("{")]
    if not lines:
        raise SystemExit(f"load_test.py gave no summary:\n{out.stdout}\n{out.stderr}")
    summary: dict[str, Any] = json.loads(lines[-1])
    summary["passed"] = out.returncode == 0
    return summary


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2], help="worker counts (default 1 2)")
    ap.add_argument("--clients", type=int, default=16, help="the many clients (default 16)")
    ap.add_argument("--duration", type=float, default=30.0, help="seconds per load (default 30)")
    ap.add_argument(
        "--flood", type=int, default=100, help="the heavy tenant's requests in flight (0: no fairness run)"
    )
    ap.add_argument("--json", type=Path, help="also write the figures to this file")
    args = ap.parse_args(argv)
    if any(not 1 <= w <= 8 for w in args.workers):
        ap.error("--workers must be between 1 and 8")
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="bench-http-") as tmp:
        for workers in args.workers:
            token = "bench-" + secrets.token_urlsafe(24)
            port = free_port()
            url = f"http://127.0.0.1:{port}"
            server = start(port, workers, token, Path(tmp))
            try:
                wait_ready(url, token, 180.0, server)  # /readyz, then /v1/info with the token
                for clients in (1, args.clients):
                    print(f"workers {workers}, clients {clients}: {args.duration:g} s ...", flush=True)
                    summary = load(url, token, clients, args.duration)
                    rows.append({"workers": workers, "clients": clients, **summary})
            finally:
                server.terminate()
                try:
                    server.wait(30)
                except subprocess.TimeoutExpired:
                    server.kill()
    one = {r["workers"]: r["throughput"] for r in rows if r["clients"] == 1}
    print("| workers | clients | req/s | p50 ms | p95 ms | 5xx | unlike alone | vs 1 client |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        ratio = r["throughput"] / one[r["workers"]] if one.get(r["workers"]) else float("nan")
        print(
            f"| {r['workers']} | {r['clients']} | {r['throughput']:.1f} | {r['p50_ms']:.0f} | "
            f"{r['p95_ms']:.0f} | {r['server_errors']} | {r['mixed_up']} | {ratio:.2f}x |"
        )
    fair = fairness(args.flood, min(args.duration, 120.0)) if args.flood else None
    if fair is not None:
        alone, flooded = fair["light_alone"], fair["light_flooded"]
        print(f"\nlight tenant (hop_depth 1), one worker, while a heavy tenant keeps {args.flood} in flight:")
        print("| light tenant | n | p50 s | p95 s |")
        print("|---|---|---|---|")
        for name, f in (("alone", alone), ("while the heavy one floods", flooded)):
            print(f"| {name} | {f['n']} | {f['p50']:.2f} | {f['p95']:.2f} |")
    if args.json is not None:
        args.json.write_text(json.dumps({"load": rows, "fairness": fair}, indent=2), encoding="utf-8")
    return 0 if all(r["passed"] for r in rows) and (fair is None or fair["ok"]) else 1


def fairness(flood: int, duration: float) -> dict[str, Any]:
    """`bench_fairness.py` (its own server): its figures and whether the light tenant got answers."""
    with tempfile.TemporaryDirectory(prefix="bench-http-fair-") as tmp:
        out_file = Path(tmp) / "fair.json"
        cmd = [
            sys.executable, str(ROOT / "scripts" / "bench_fairness.py"), "--duration", str(duration),
            "--flood", str(flood), "--json", str(out_file),
        ]  # fmt: skip
        print(f"fairness: {duration:g} s alone, {duration:g} s flooded ...", flush=True)
        done = subprocess.run(cmd, capture_output=True, text=True)
        if not out_file.is_file():
            raise SystemExit(f"bench_fairness.py wrote no figures:\n{done.stdout}\n{done.stderr}")
        figures: dict[str, Any] = json.loads(out_file.read_text(encoding="utf-8"))
    figures["ok"] = done.returncode == 0
    return figures


if __name__ == "__main__":
    sys.exit(main())
