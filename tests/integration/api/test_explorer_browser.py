"""The explorer in a real headless browser (Debian chromium + chromedriver via selenium) against the real
test graph served by uvicorn on loopback: search, open a node, follow a parent, open a paper, back button,
deep-link reload, a narrow screen, no console errors; a screenshot is saved as a test artefact.

Skipped LOUDLY when chromium, chromedriver or selenium is missing (`scripts/setup.sh --with-browser`)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from tests.browser_support import chrome, require_browser
from tests.integration.api.conftest import C_WSN, PARENT_ROUTING, QUANT
from tests.uvicorn_support import served

require_browser("the explorer browser test")

from selenium import webdriver  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support import expected_conditions as ec  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

ARTIFACTS = Path(os.environ.get("MOTIVGRAPH_TEST_ARTIFACTS", "test-artifacts"))


@pytest.fixture(scope="module")
def base_url(service: Any) -> Iterator[str]:
    from motivgraph.api.app import create_app

    with served(create_app(service), lifespan="auto") as url:
        yield url


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[webdriver.Chrome]:
    driver = chrome(tmp_path_factory.mktemp("chromium-profile"), console_log=True)
    yield driver
    driver.quit()


def _wait(driver: webdriver.Chrome, cond: Any, timeout: float = 60) -> Any:
    return WebDriverWait(driver, timeout).until(cond)


def _text_in(css: str, text: str) -> Any:
    return ec.text_to_be_present_in_element((By.CSS_SELECTOR, css), text)


def _link(key: str) -> str:
    return f'a[href="/explorer/node/{quote(key, safe="")}"]'


def test_explorer_in_a_real_browser(browser: webdriver.Chrome, base_url: str) -> None:
    d = browser
    d.get(base_url + "/explorer")
    # search: the form puts the query into the URL and lists hits with links to node pages
    box = _wait(d, ec.element_to_be_clickable((By.ID, "q")))
    box.send_keys("energy efficient multi hop routing in sensor networks")
    d.find_element(By.ID, "go").click()
    _wait(d, lambda dr: "q=" in dr.current_url)
    hit = _wait(d, ec.element_to_be_clickable((By.CSS_SELECTOR, "#hits " + _link(C_WSN))))

    # open a node: its own URL, breadcrumbs up to its parent, a drawn graph, its triples with paper titles
    hit.click()
    _wait(d, lambda dr: "/explorer/node/" in dr.current_url)
    _wait(d, _text_in("#node-title", "Energy-efficient multi-hop routing"))
    _wait(d, _text_in("#crumbs", "Routing in large networks"))
    _wait(d, lambda dr: dr.find_elements(By.CSS_SELECTOR, "#graph canvas"))
    _wait(d, _text_in("#triples", "Energy-aware routing for wireless sensor networks"))  # a title, not an id

    # follow the parent: an empty-state message instead of an empty triples table
    d.find_element(By.CSS_SELECTOR, "#crumbs " + _link(PARENT_ROUTING)).click()
    _wait(d, _text_in("#node-title", "Routing in large networks"))
    _wait(d, ec.visibility_of_element_located((By.ID, "triples-empty")))
    assert "parent node" in d.find_element(By.ID, "triples-empty").text

    # back returns to the child node inside the app
    d.back()
    _wait(d, _text_in("#node-title", "Energy-efficient multi-hop routing"))

    # open a paper: title, authors, year and its triples
    _wait(d, ec.element_to_be_clickable((By.CSS_SELECTOR, "#triples a.paper"))).click()
    _wait(d, lambda dr: "/explorer/paper/" in dr.current_url)
    _wait(d, _text_in("#paper-title", "Energy-aware routing for wireless sensor networks"))
    meta = d.find_element(By.ID, "paper-meta").text
    assert "Claude Shannon" in meta and "2019" in meta
    _wait(d, lambda dr: len(dr.find_elements(By.CSS_SELECTOR, "#triples tbody tr")) == 2)

    # reload the deep link; load another one directly
    d.refresh()
    _wait(d, _text_in("#paper-title", "Energy-aware routing for wireless sensor networks"))
    d.get(base_url + "/explorer/node/" + quote(QUANT, safe=""))
    _wait(d, _text_in("#node-title", "Model quantization for large language models"))

    # ?q= in a shared link runs the search; nonsense finds nothing above the minimum score
    d.get(base_url + "/explorer?q=" + quote("zqxj vbnm kkprt wqqz"))
    _wait(d, ec.presence_of_element_located((By.ID, "no-hits")))

    # narrow screen: one column, nothing wider than the viewport
    d.set_window_size(400, 900)
    d.get(base_url + "/explorer/node/" + quote(C_WSN, safe=""))
    _wait(d, _text_in("#node-title", "Energy-efficient multi-hop routing"))
    overflow = d.execute_script("return document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 1, f"page is {overflow}px wider than a 400px screen"

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    shot = ARTIFACTS / "explorer-node-narrow.png"
    d.save_screenshot(str(shot))
    assert shot.stat().st_size > 1000
    d.set_window_size(1280, 1000)
    d.get(base_url + "/explorer/node/" + quote(C_WSN, safe=""))
    _wait(d, lambda dr: dr.find_elements(By.CSS_SELECTOR, "#graph canvas"))
    d.save_screenshot(str(ARTIFACTS / "explorer-node.png"))

    errors = [e for e in d.get_log("browser") if e.get("level") == "SEVERE"]
    assert not errors, f"browser console errors: {errors}"


# ------------------------------------------------------------------ the rough edges of issue #30 item 12
# A graph of the tests' own (invented here, not taken from any corpus): one problem with four challenges and five
# solutions, where one solution answers two challenges, long names so labels wrap, and a parent challenge.
def _n(name: str, desc: str = "") -> Any:
    from motivgraph.graph.models import NodeIn

    return NodeIn(name=name, description=desc or f"About {name.lower()}.")


OWN_P = "Scheduling maintenance visits for offshore wind turbines"
OWN_C = ["Access windows limited by wave height and wind speed",
         "Component failures that give little early warning",
         "Spare parts stored far away from the wind farm",
         "Crew safety while stepping from vessel to tower"]
OWN_S = ["Weather-aware crew routing from probabilistic sea forecasts",
         "Vibration-based remaining useful life estimation",
         "Shared condition monitoring that fuses every turbine's sensors",
         "Floating spare-part depots moored near turbine clusters",
         "Motion-compensated gangways on service vessels"]
# (challenge, solution) pairs: solution 2 answers challenges 1 and 2
OWN_LINKS = [(0, 0), (1, 1), (1, 2), (2, 2), (2, 3), (3, 4)]
OWN_PARENT = "Unpredictable equipment breakdowns"
OWN_PAPER = "doi:10.9999/own-offshore"


def _key(kind: str, name: str) -> str:
    from motivgraph.graph.identity import normalize_name

    return f"{kind}:{normalize_name(name)}"


@pytest.fixture(scope="module")
def own_url(tmp_path_factory: pytest.TempPathFactory, falkordb_server: Any, embedder: Any) -> Iterator[str]:
    from motivgraph.api.app import create_app
    from motivgraph.graph.models import PaperRecord, ParentIn, TripleIn
    from tests.integration.api.conftest import graph_service, make_settings

    papers = [PaperRecord(paper_id=OWN_PAPER, title="Planning offshore turbine upkeep", year=2030,
                          authors=["A. Tester"])]
    triples = [TripleIn(paper_id=OWN_PAPER, index=i, problem=_n(OWN_P), challenge=_n(OWN_C[c]),
                        solution=_n(OWN_S[s]), section="introduction") for i, (c, s) in enumerate(OWN_LINKS)]
    parents = [ParentIn(type="challenge", level=1, parent=_n(OWN_PARENT), children=[_key("challenge", OWN_C[1])])]
    settings = make_settings(tmp_path_factory.mktemp("explorer-own"), falkordb_server.url)
    with graph_service(settings, embedder, papers, triples, parents) as svc, served(create_app(svc)) as url:
        yield url


def _open_graph(d: webdriver.Chrome, url: str) -> None:
    d.get(url)
    _wait(d, lambda dr: dr.execute_script("return typeof cy !== 'undefined' && cy !== null && cy.nodes().length > 0"))


def _visible_hidden(d: webdriver.Chrome) -> list[str]:
    """Elements that carry the `hidden` attribute yet are displayed (a CSS display rule beating the attribute)."""
    return d.execute_script(
        "return [...document.querySelectorAll('[hidden]')].filter((e) => getComputedStyle(e).display !== 'none')"
        ".map((e) => e.id || e.tagName)")


def test_filter_bar_only_on_the_triples_view(browser: webdriver.Chrome, own_url: str) -> None:
    d = browser
    for view in (f"/explorer/node/{quote(_key('problem', OWN_P), safe='')}", f"/explorer/paper/{quote(OWN_PAPER)}"):
        _open_graph(d, own_url + view)
        _wait(d, lambda dr: dr.find_elements(By.CSS_SELECTOR, "#triples tbody tr"))
        assert not d.find_element(By.ID, "triple-filters").is_displayed(), f"filter bar shown on {view}"
        assert _visible_hidden(d) == [], view
    d.get(own_url + "/explorer")
    _wait(d, lambda dr: dr.find_elements(By.CSS_SELECTOR, "#triples tbody tr"))
    assert d.find_element(By.ID, "triple-filters").is_displayed()
    # the narrow layout's table rule must not show an empty (hidden) triples table either
    d.set_window_size(400, 900)
    try:
        d.get(own_url + "/explorer/node/" + quote(_key("challenge", OWN_PARENT), safe=""))
        _wait(d, ec.visibility_of_element_located((By.ID, "triples-empty")))
        assert _visible_hidden(d) == []
    finally:
        d.set_window_size(1280, 1000)


def test_opening_a_search_hit_keeps_the_hit_list(browser: webdriver.Chrome, own_url: str) -> None:
    d = browser
    d.get(own_url + "/explorer?q=" + quote("offshore wind turbine maintenance planning") + "&min=0")
    target = _key("problem", OWN_P)
    _wait(d, ec.element_to_be_clickable((By.CSS_SELECTOR, "#hits " + _link(target)))).click()
    _wait(d, _text_in("#node-title", OWN_P))
    hits = d.find_elements(By.CSS_SELECTOR, "#hits .hit")
    assert len(hits) > 1 and d.find_elements(By.CSS_SELECTOR, "#hits " + _link(target)), "the hit list was cleared"
    # another hit from the same list, then back: the list is still there each time
    other = _key("solution", OWN_S[2])
    d.find_element(By.CSS_SELECTOR, "#hits " + _link(other)).click()
    _wait(d, _text_in("#node-title", OWN_S[2]))
    assert d.find_elements(By.CSS_SELECTOR, "#hits " + _link(target))
    d.back()
    _wait(d, _text_in("#node-title", OWN_P))
    assert d.find_elements(By.CSS_SELECTOR, "#hits " + _link(other))
    # the node's URL carries the search, so a reload shows the same list beside it
    d.refresh()
    _wait(d, _text_in("#node-title", OWN_P))
    _wait(d, ec.presence_of_element_located((By.CSS_SELECTOR, "#hits " + _link(other))))


LABEL_BOXES = """
const box = (e) => e.boundingBox({includeNodes: false, includeEdges: false, includeLabels: true,
                                  includeOverlays: false});
return cy.elements().filter((e) => e.data('label'))
  .map((e) => [e.id(), box(e)]).filter(([, b]) => b.w > 0 && b.h > 0)
  .map(([id, b]) => [id, b.x1, b.y1, b.x2, b.y2]);
"""


def _overlaps(boxes: list[list[Any]]) -> list[tuple[str, str]]:
    out = []
    for i, (a, ax1, ay1, ax2, ay2) in enumerate(boxes):
        for b, bx1, by1, bx2, by2 in boxes[i + 1:]:
            if ax1 < bx2 and bx1 < ax2 and ay1 < by2 and by1 < ay2:
                out.append((a, b))
    return out


def test_graph_labels_do_not_overlap(browser: webdriver.Chrome, own_url: str) -> None:
    d = browser
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for name, view in (("problem", f"/explorer/node/{quote(_key('problem', OWN_P), safe='')}"),
                       ("challenge", f"/explorer/node/{quote(_key('challenge', OWN_C[1]), safe='')}"),
                       ("paper", f"/explorer/paper/{quote(OWN_PAPER)}")):
        _open_graph(d, own_url + view)
        boxes = d.execute_script(LABEL_BOXES)
        assert len(boxes) >= 4, (view, boxes)
        d.find_element(By.ID, "graph").screenshot(str(ARTIFACTS / f"explorer-graph-{name}.png"))
        assert _overlaps(boxes) == [], f"overlapping labels on {view}"


def _edges(d: webdriver.Chrome) -> set[tuple[str, str]]:
    return {tuple(e) for e in d.execute_script("return cy.edges().map((e) => [e.source().id(), e.target().id()])")}


def test_node_graph_goes_through_the_challenge(browser: webdriver.Chrome, own_url: str) -> None:
    d = browser
    p = _key("problem", OWN_P)
    cs = [_key("challenge", c) for c in OWN_C]
    ss = [_key("solution", s) for s in OWN_S]
    _open_graph(d, own_url + "/explorer/node/" + quote(p, safe=""))
    edges = _edges(d)
    assert {(p, c) for c in cs} <= edges
    assert {(cs[c], ss[s]) for c, s in OWN_LINKS} <= edges
    assert not {e for e in edges if e[0] == p and e[1] in ss}, "a problem→solution edge skips the challenge"
    # the solution that answers two challenges: both paths, from the problem through each challenge
    _open_graph(d, own_url + "/explorer/node/" + quote(ss[2], safe=""))
    edges = _edges(d)
    assert {(p, cs[1]), (p, cs[2]), (cs[1], ss[2]), (cs[2], ss[2])} <= edges
    assert (p, ss[2]) not in edges


def test_node_and_triple_views_show_the_quotes(browser: webdriver.Chrome, base_url: str) -> None:
    """Evidence (#39): the node view lists the quotes of the papers that state the node, each with paper,
    section, page and whether it was located; the triple rows (node view, triples browser, paper view) carry
    the quotes of each element; a quote the miner did not locate shows why."""
    from tests.integration.api.conftest import S_ACO

    d = browser
    d.set_window_size(1280, 1000)
    d.get(base_url + "/explorer/node/" + quote(S_ACO, safe=""))
    _wait(d, _text_in("#evidence", "Artificial ants deposit pheromone on short paths"))
    ev = d.find_element(By.ID, "evidence").text
    assert "Evidence (1)" in ev and "Method" in ev and "p. 3" in ev and "✓ located" in ev
    assert "Ant colony optimization for vehicle routing" in ev  # the paper by its title
    _wait(d, _text_in("#triples", "Delivery companies must plan the routes"))  # the triple's problem quote
    rows = d.find_elements(By.CSS_SELECTOR, "#triples tbody tr blockquote.quote.verified")
    assert len(rows) == 3  # one located quote per element

    # an unlocated quote: marked, with the reason
    d.get(base_url + "/explorer/node/" + quote("challenge:memory footprint of billion parameter weights", safe=""))
    _wait(d, _text_in("#evidence", "Weights in half precision no longer fit one accelerator"))
    assert d.find_elements(By.CSS_SELECTOR, "#evidence blockquote.quote.unverified")
    assert "not found in the paper" in d.find_element(By.ID, "evidence").text

    # a node no paper quotes says so
    d.get(base_url + "/explorer/node/" + quote("challenge:modelling long range residue interactions", safe=""))
    _wait(d, _text_in("#evidence", "no quote of a paper is stored"))

    # the triples browser and the paper view show the quotes too
    d.get(base_url + "/explorer")
    _wait(d, _text_in("#triples", "Artificial ants deposit pheromone"))
    d.get(base_url + "/explorer/paper/" + quote("doi:10.1000/llmq", safe=""))
    _wait(d, _text_in("#triples", "We store each weight in four bits"))
    errors = [e for e in d.get_log("browser") if e.get("level") == "SEVERE"]
    assert not errors, f"browser console errors: {errors}"
