"""The explorer page (`/ui`) in the system Chromium, against a real server on the real Neo4j.

The demo question is asked through the page (token typed into it, answer streamed over SSE) and
compared with what the JSON API answers; a refused question (422) and a database that is down (503)
must end in readable messages; the console must hold no error but the HTTP statuses provoked on
purpose. A screenshot of the demo answer is saved in the test's output folder.

The page starts from the server's hop depth and offers the five modes; the community's example
questions are shown and asked on a click (the demo's village question answered as its evaluation
file says); the question is in the URL, which asks it when opened, and back / forward ask again;
a path card is chosen from the keyboard; the status line is a sentence with its details apart.
"""

from __future__ import annotations

import json
import os
import re
import time
import urllib.parse
from collections.abc import Iterator
from pathlib import Path

import pytest
from api_testutil import TOKEN, ServerThread
from browser_testutil import (
    MISSING,
    ask,
    chromium,
    console_errors,
    find_chromium,
    open_page,
    text_of,
    wait_answered,
    wait_for,
)
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import Select

from pathrag_gds.api import create_app
from pathrag_gds.api.examples import community_examples, questions_from_edges
from pathrag_gds.api.requests import QueryOptions, resolve
from pathrag_gds.catalog import governing_ontology, read_graph_info
from pathrag_gds.config import Settings
from pathrag_gds.datasets.bob_suite import load_suite
from pathrag_gds.graph import Graph
from pathrag_gds.modes import MODES

pytestmark = pytest.mark.integration

QUESTION = "Who owns Bob the Cat?"


@pytest.fixture(scope="module")
def browser() -> Iterator[WebDriver]:
    if find_chromium() is None:
        if os.environ.get("CI"):  # CI installs them (scripts/test.sh): missing there is a failure
            pytest.fail(MISSING)
        pytest.skip(MISSING)
    with chromium() as driver:
        yield driver


@pytest.fixture(scope="module")
def server(demo_community: str, settings: Settings) -> Iterator[ServerThread]:
    app = create_app(settings.model_copy(update={"api_token": TOKEN, "api_timeout_s": 300.0}))
    with ServerThread(app) as srv:
        wait_ready(srv)
        yield srv


def set_community(d: WebDriver, community: str) -> None:
    """Type the community and leave the box (its `change` loads the community's examples)."""
    box = d.find_element(By.ID, "community")
    box.clear()
    box.send_keys(community, Keys.TAB)


def wait_ready(srv: ServerThread, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while (r := srv.get("/readyz", headers={})).status_code != 200:
        assert time.monotonic() < deadline, r.text
        time.sleep(0.3)


def test_demo_question_token_stream_graph_and_list(
    browser: WebDriver, server: ServerThread, demo_community: str, tmp_path: Path
) -> None:
    d = browser
    open_page(d, server.url)
    # no token yet: the page says so and asks for one; a wrong one is refused with a message
    wait_for(d, lambda: "(401)" in text_of(d, "error"), 30)
    assert "Authorization" in text_of(d, "error") and d.find_element(By.ID, "token").is_displayed()
    d.find_element(By.ID, "token").send_keys("not-the-token-at-all")
    d.find_element(By.CSS_SELECTOR, "#token-form button").click()
    wait_for(d, lambda: "(403)" in text_of(d, "error"), 30)
    assert "token is wrong" in text_of(d, "error")
    d.find_element(By.ID, "token").send_keys(TOKEN)
    d.find_element(By.CSS_SELECTOR, "#token-form button").click()
    wait_for(d, lambda: "entities" in text_of(d, "server"), 30)
    assert not d.find_element(By.ID, "error").is_displayed()
    assert not d.find_element(By.ID, "token-panel").is_displayed()
    assert d.execute_script("return sessionStorage.getItem('pathrag_gds.token')") == TOKEN
    set_community(d, demo_community)

    ask(d, QUESTION, hop_depth=2, top_n=5)
    assert wait_answered(d) == "done", text_of(d, "error")

    ref = server.post(
        "/v1/query", {"question": QUESTION, "community_id": demo_community, "hop_depth": 2, "top_n": 5}
    ).json()
    top = ref["paths"][0]
    # the streamed depths, the answer, the graph, the ranked list
    assert [li.text.split(":")[0] for li in d.find_elements(By.CSS_SELECTOR, "#depths li")] == [
        "depth 0",
        "depth 1",
        "depth 2",
    ]
    status = d.find_element(By.ID, "status")
    assert 0 < int(status.get_attribute("data-first-path-ms")) <= int(status.get_attribute("data-total-ms"))
    assert ref["answer"] and text_of(d, "answer") == ref["answer"]
    graph = d.find_element(By.ID, "graph")
    node_ids = {n["id"] for p in ref["paths"] for n in p["nodes"]}
    edge_keys = {(e["source"], e["type"], e["target"]) for p in ref["paths"] for e in p["edges"]}
    assert int(graph.get_attribute("data-nodes")) == len(node_ids) >= 2
    assert int(graph.get_attribute("data-edges")) == len(edge_keys) >= 1
    assert graph.get_attribute("data-answer") == ref["answers"][0]["name"]
    items = d.find_elements(By.CSS_SELECTOR, "#paths > li")
    assert len(items) == len(ref["paths"])
    first = items[0]
    assert first.get_attribute("data-rank") == "1" and "selected" in first.get_attribute("class")
    assert top["text"].split(" ||| ")[0] in first.text
    assert [b.text for b in first.find_elements(By.CSS_SELECTOR, ".walk button")] == [
        n["name"] for n in top["nodes"]
    ]
    assert f"model {top['score_parts']['model']:.3f}" in first.text
    assert f"score {top['score']:.3f}" in first.text
    if top["sources"]:
        assert f"{len(top['sources'])} source passage" in first.text

    # clicking the answer node on the canvas shows its attributes
    x, y = int(graph.get_attribute("data-answer-x")), int(graph.get_attribute("data-answer-y"))
    ActionChains(d).move_to_element_with_offset(
        graph, x - graph.rect["width"] / 2, y - graph.rect["height"] / 2
    ).click().perform()
    wait_for(d, lambda: d.find_element(By.ID, "node-panel").is_displayed(), 10)
    answer_id = ref["answers"][0]["id"]
    assert d.find_element(By.ID, "node-panel").get_attribute("data-node") == answer_id
    assert text_of(d, "node-name") == ref["answers"][0]["name"] and answer_id in text_of(d, "node-attrs")
    # another path of the list is selected on click
    # (on its head: the middle of an item may be one of its node buttons, which show the node)
    if len(items) > 1:
        items[1].find_element(By.CSS_SELECTOR, ".path-head").click()
        assert "selected" in items[1].get_attribute("class")
        assert "selected" not in items[0].get_attribute("class")
        items[0].find_element(By.CSS_SELECTOR, ".path-head").click()

    shot = tmp_path / "explorer-demo.png"
    assert d.save_screenshot(str(shot)) and shot.stat().st_size > 20_000
    print(f"screenshot: {shot}")
    assert console_errors(d, allowed_statuses=(401, 403)) == []


def test_refused_question_shows_422_and_the_page_goes_on(
    browser: WebDriver, server: ServerThread, demo_community: str
) -> None:
    d = browser
    open_page(d, server.url, TOKEN)
    wait_for(d, lambda: "entities" in text_of(d, "server"), 30)
    ask(d, "?!? ...", hop_depth=1, top_n=3)
    assert wait_answered(d, 30) == "error"
    message = text_of(d, "error")
    assert "(422)" in message and "no letters or digits" in message, message
    assert d.find_elements(By.CSS_SELECTOR, "#paths > li") == []
    # the same page answers the next question
    d.find_element(By.ID, "community").clear()
    d.find_element(By.ID, "community").send_keys(demo_community)
    ask(d, QUESTION, hop_depth=1, top_n=3)
    assert wait_answered(d) == "done", text_of(d, "error")
    assert not d.find_element(By.ID, "error").is_displayed()
    assert d.find_elements(By.CSS_SELECTOR, "#paths > li")
    assert console_errors(d, allowed_statuses=(422,)) == []


def test_database_down_shows_503_without_a_token_on_loopback(browser: WebDriver, settings: Settings) -> None:
    down = settings.model_copy(update={"neo4j_uri": "bolt://127.0.0.1:1", "external_db": True})
    with ServerThread(create_app(down, warm_up=False)) as srv:
        d = browser
        open_page(d, srv.url)
        wait_for(d, lambda: "(503)" in text_of(d, "error"), 30)
        assert "cannot reach Neo4j" in text_of(d, "error")
        assert not d.find_element(By.ID, "token-panel").is_displayed()  # loopback: no token asked
        ask(d, QUESTION, hop_depth=1)
        assert wait_answered(d, 30) == "error"
        message = text_of(d, "error")
        assert "The service is unavailable (503)" in message and "cannot reach Neo4j" in message, message
        assert d.find_element(By.ID, "ask").is_enabled()
        assert console_errors(d, allowed_statuses=(503,)) == []


def _village_question() -> tuple[str, str]:
    """The demo's village question and its answer's name, from its evaluation file (`bob_eval.yaml`)."""
    [q] = [q for q in load_suite().queries if "village" in q.query]
    assert q.answer == ("whiskerville",)
    return q.query, "Whiskerville"


def _examples_shown(d: WebDriver) -> list[str]:
    return [b.text for b in d.find_elements(By.CSS_SELECTOR, "#example-list button")]


def _state(d: WebDriver) -> dict[str, str]:
    return {
        k: d.find_element(By.ID, k).get_attribute("value") or "" for k in ("question", "hop-depth", "mode")
    }


def test_defaults_modes_examples_url_keyboard_and_status(
    browser: WebDriver, server: ServerThread, demo_community: str, settings: Settings, tmp_path: Path
) -> None:
    d = browser
    info = server.get("/v1/info").json()
    default_depth = resolve(settings, QueryOptions()).hop_depth
    assert info["defaults"]["hop_depth"] == default_depth
    open_page(d, server.url, TOKEN)
    wait_for(d, lambda: "entities" in text_of(d, "server"), 30)
    # the server's depth, not one of the page's own; the five modes; hops off where a mode has none
    assert d.find_element(By.ID, "hop-depth").get_attribute("value") == str(default_depth)
    mode = Select(d.find_element(By.ID, "mode"))
    assert [o.get_attribute("value") for o in mode.options] == list(MODES)
    for m in info["modes"]:
        mode.select_by_value(m["name"])
        assert d.find_element(By.ID, "hop-depth").is_enabled() == m["uses_hop_depth"], m
        assert m["description"] in text_of(d, "mode-help")
    assert [m["name"] for m in info["modes"] if not m["uses_hop_depth"]] == ["global", "naive"]
    mode.select_by_value("local")

    # the first view: the community's example questions, as the API gives them
    set_community(d, demo_community)
    examples = server.get(f"/v1/communities/{demo_community}/examples").json()
    village, answer = _village_question()
    assert examples["source"] == "eval" and village in examples["questions"]
    wait_for(d, lambda: _examples_shown(d) == examples["questions"], 30)
    buttons = d.find_elements(By.CSS_SELECTOR, "#example-list button")
    assert [b.text for b in buttons] == examples["questions"]
    first_view = tmp_path / "explorer-first-view.png"
    d.save_screenshot(str(first_view))

    # a click asks it, at the server's depth: the answer of the evaluation file
    buttons[examples["questions"].index(village)].click()
    assert wait_answered(d) == "done", text_of(d, "error")
    assert answer in text_of(d, "answer"), text_of(d, "answer")
    graph = d.find_element(By.ID, "graph")
    assert graph.get_attribute("data-answer") == answer and graph.get_attribute("data-fits") == "true"
    for key in ("data-node-colours", "data-edge-colours"):
        colours = json.loads(graph.get_attribute(key))
        assert colours and len(set(colours.values())) == len(colours), (key, colours)
    # the status line is a sentence; what its numbers mean is in its details
    status = text_of(d, "status")
    assert re.fullmatch(r"\d+ paths? in \d+\.\d\d s, \d+ database round trips?", status), status
    assert "chain_prefix" not in status and "db " not in status
    details = d.find_element(By.ID, "status-details")
    assert details.is_displayed() and details.get_attribute("open") is None
    details.find_element(By.TAG_NAME, "summary").click()
    terms = [dt.text for dt in details.find_elements(By.TAG_NAME, "dt")]
    assert "database round trips" in terms and "server: total" in terms
    assert all(dd.text for dd in details.find_elements(By.TAG_NAME, "dd"))
    shot = tmp_path / "explorer-village.png"
    d.save_screenshot(str(shot))
    print(f"screenshots: {first_view} {shot}")

    # the question is in the URL
    query = urllib.parse.parse_qs(urllib.parse.urlparse(d.current_url).query)
    assert query["q"] == [village] and query["hops"] == [str(default_depth)] and query["mode"] == ["local"]
    village_url = d.current_url

    # a path card chosen from the keyboard: its head is a button, Enter and Space select it
    items = d.find_elements(By.CSS_SELECTOR, "#paths > li")
    assert len(items) >= 3
    heads = [li.find_element(By.CSS_SELECTOR, ".path-select") for li in items]
    heads[1].send_keys(Keys.ENTER)
    wait_for(d, lambda: "selected" in items[1].get_attribute("class"), 5)
    assert "selected" not in items[0].get_attribute("class")
    assert heads[1].get_attribute("aria-pressed") == "true" and d.switch_to.active_element == heads[1]
    heads[2].send_keys(Keys.SPACE)
    wait_for(d, lambda: "selected" in items[2].get_attribute("class"), 5)

    # another question, then back and forward: each URL's question asked again
    ask(d, QUESTION, hop_depth=1)
    assert wait_answered(d) == "done", text_of(d, "error")
    assert urllib.parse.parse_qs(urllib.parse.urlparse(d.current_url).query)["hops"] == ["1"]
    d.back()
    wait_for(d, lambda: _state(d)["question"] == village, 10)
    assert wait_answered(d) == "done" and answer in text_of(d, "answer")
    assert _state(d)["hop-depth"] == str(default_depth)
    d.forward()
    wait_for(d, lambda: _state(d)["question"] == QUESTION, 10)
    assert wait_answered(d) == "done" and _state(d)["hop-depth"] == "1"
    # a shared URL opened afresh asks its question
    d.get(village_url)
    assert wait_answered(d) == "done", text_of(d, "error")
    assert _state(d) == {"question": village, "hop-depth": str(default_depth), "mode": "local"}
    assert answer in text_of(d, "answer")
    naive = village_url.replace("mode=local", "mode=naive")
    d.get(naive)
    assert wait_answered(d) == "done", text_of(d, "error")
    assert not d.find_element(By.ID, "hop-depth").is_enabled() and _state(d)["mode"] == "naive"
    assert console_errors(d) == []


def test_examples_written_from_the_graph_read_only_the_communitys_edges(
    graph: Graph, demo_community: str
) -> None:
    """`api_examples.cypher` on the demo (read only): one edge per type, both ends in the community."""
    ontology = governing_ontology(
        read_graph_info(graph, graph.settings), graph.settings, demo_community, None
    )
    types = ontology.relation_names
    rows = graph.read(
        "api_examples",
        community_id=demo_community,
        types=types,
        limit=len(types),
        entity_label=graph.settings.entity_label,
    )
    assert rows and {r["type"] for r in rows} <= set(types) and len({r["type"] for r in rows}) == len(rows)
    owns = [r for r in rows if r["type"] == "owns"]
    assert owns and owns[0]["target"] and "Person" in owns[0]["source_labels"], owns
    # every row's question: the rows come in the order of the stored ontology's types, which a read
    # does not fix, so the first ten need not hold the `owns` one
    questions = questions_from_edges(rows, ontology, len(rows))
    assert any(q.startswith("Which ") and q.endswith(f" owns {owns[0]['target']}?") for q in questions), (
        questions
    )
    # the demo has its evaluation file: the endpoint gives its questions, not these
    assert community_examples(graph, ontology, demo_community).source == "eval"
    assert (
        graph.read(
            "api_examples",
            community_id="no such community",
            types=types,
            limit=3,
            entity_label=graph.settings.entity_label,
        )
        == []
    )
