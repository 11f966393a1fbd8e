"""Page weight and time to first path of the explorer page (`/ui`) on the demo graph, in Chromium.

Starts `python -m pathrag_gds serve` on a free loopback port (no token), waits until /readyz says
ready, then in the system Chromium (see tests/browser_testutil.py) opens the page and asks the demo
question: once on the fresh server (cold: first question since start-up), then `--warm` more times
(warm: median). Times are the page's own (`performance.now()` from the click to the first `depth`
event that holds paths, and to the `result` event). Needs the demo graph loaded (`load demo`).

Usage:
    .venv/bin/python scripts/bench_explorer.py --warm 5 --screenshot docs/explorer-demo.png \
        --first-view docs/explorer-first-view.png

The hop depth is the server's own (the page's default) unless `--hop-depth` names one. The
screenshot shows the demo's village question (its evaluation file's multi-hop question), asked by a
click on its example, with the answer's attributes open.
"""

from __future__ import annotations

import argparse
import gzip
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import requests
from tqdm import tqdm

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from browser_testutil import ask, chromium, open_page, wait_answered, wait_for  # noqa: E402
from pathrag_testutil import free_port  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402

from pathrag_gds.api.explorer import page_weight, static_file  # noqa: E402

QUESTION = "Who owns Bob the Cat?"
COMMUNITY = "DefaultCommunity_FictionalStories"
#: The example the screenshot asks (one of the page's example questions for the demo).
SHOWN = "In which village was Bob when the milk was spilled?"


def weight_table() -> list[str]:
    rows = ["| file | bytes | gzip bytes |", "|---|---:|---:|"]
    total = total_gz = 0
    for name, size in page_weight().items():
        gz = len(gzip.compress(static_file(name), 9))
        total, total_gz = total + size, total_gz + gz
        rows.append(f"| `{name}` | {size:,} | {gz:,} |")
    rows.append(f"| **total** | **{total:,}** | **{total_gz:,}** |")
    return rows


def start_server(port: int) -> tuple[subprocess.Popen[bytes], float]:
    """`serve` on `port` without a token; returns the process and seconds until /readyz said ready."""
    env = {k: v for k, v in os.environ.items() if k not in ("PATHRAG_API_TOKEN", "PATHRAG_API_TOKENS_FILE")}
    t0 = time.monotonic()
    proc = subprocess.Popen(
        [sys.executable, "-m", "pathrag_gds", "serve", "--port", str(port), "--log-level", "warning"],
        cwd=ROOT,
        env=env,
    )
    deadline = t0 + 180
    while True:
        try:
            if requests.get(f"http://127.0.0.1:{port}/readyz", timeout=5).status_code == 200:
                return proc, time.monotonic() - t0
        except requests.ConnectionError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            raise SystemExit(f"the server did not become ready (exit {proc.poll()}): run `load demo` first?")
        time.sleep(0.2)


def one_question(driver: Any, hop_depth: int | None) -> tuple[int, int]:
    """Ask the demo question in the open page: (ms to the first path, ms to the result)."""
    ask(driver, QUESTION, hop_depth=hop_depth, top_n=5)
    if wait_answered(driver) != "done":
        raise SystemExit(f"the page shows an error: {driver.find_element(By.ID, 'error').text}")
    status = driver.find_element(By.ID, "status")
    return int(status.get_attribute("data-first-path-ms")), int(status.get_attribute("data-total-ms"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--warm", type=int, default=5, help="questions asked after the cold one")
    parser.add_argument("--hop-depth", type=int, default=None, help="default: the server's (the page's)")
    parser.add_argument("--screenshot", type=Path, help="save the page with the demo's village question here")
    parser.add_argument("--first-view", type=Path, help="save the page before any question here")
    args = parser.parse_args()

    print("\n".join(weight_table()))
    port = free_port()
    proc, ready_s = start_server(port)
    try:
        with chromium(height=1200) as driver:
            url = f"http://127.0.0.1:{port}"
            open_page(driver, url)
            load_ms = driver.execute_script(
                "const n = performance.getEntriesByType('navigation')[0]; return Math.round(n.loadEventEnd);"
            )
            box = driver.find_element(By.ID, "community")
            box.clear()
            box.send_keys(COMMUNITY, Keys.TAB)
            example = f"//ul[@id='example-list']//button[normalize-space()='{SHOWN}']"
            wait_for(driver, lambda: driver.find_elements(By.XPATH, example), 30)
            if args.first_view:  # without the focus ring the Tab out of the community box left
                driver.execute_script("document.activeElement.blur()")
                driver.save_screenshot(str(args.first_view))
            cold = one_question(driver, args.hop_depth)
            rounds = tqdm(range(args.warm), desc="warm questions")
            warm = [one_question(driver, args.hop_depth) for _ in rounds]
            if args.screenshot:  # the example asked, with the answer's attributes open
                driver.find_element(By.XPATH, example).click()
                if wait_answered(driver) != "done":
                    raise SystemExit(f"the page shows an error: {driver.find_element(By.ID, 'error').text}")
                driver.find_element(By.CSS_SELECTOR, "#paths .walk button.answer-node").click()
                driver.save_screenshot(str(args.screenshot))
    finally:
        proc.terminate()
        proc.wait(30)
    print(f"\nserver ready {ready_s:.1f} s after start; page loaded in {load_ms} ms")
    print("\n| server | ms to first path | ms to result | questions |\n|---|---:|---:|---:|")
    print(f"| cold (first question after start) | {cold[0]:,} | {cold[1]:,} | 1 |")
    if warm:
        first = statistics.median(w[0] for w in warm)
        total = statistics.median(w[1] for w in warm)
        print(f"| warm (median) | {first:,.0f} | {total:,.0f} | {len(warm)} |")


if __name__ == "__main__":
    main()
