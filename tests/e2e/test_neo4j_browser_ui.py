"""The Neo4j Browser walk-through (docs/neo4j.md) in a real browser: headless Debian chromium opens the Neo4j
Browser that the test Neo4j serves (http://<host>:<http_port>/browser/), connects with the Bolt URL, user
neo4j and the test password, loads docs/neo4j/motivgraph.grass with `:style`, sets `:param key => …` and runs
every query of its ```cypher block — on the walk-through graph with embeddings and the vector and
full-text indexes (the `docs_graph` fixture of test_docs_cypher_neo4j.py).

Offline: chromium resolves no host but the server's, so a Browser that needed the internet would fail here.
Text goes into the editor as a user pastes it (clipboard + Ctrl+V), never typed: the editor auto-closes a
typed `{`, a typed style gains a stray `}`, and the Browser stores an empty selector that crashes every graph
view ("Cannot read properties of undefined (reading 'replace')") until `:style reset`.

Asserted: the stored style is the file's, selector by selector; each query's frame shows rows or a graph and no
error; every node drawn has its label's colour from the style file; no SEVERE console message except the named
offline noise (BENIGN). A screenshot of a styled graph result is saved to MOTIVGRAPH_TEST_ARTIFACTS (or
./test-artifacts). Skipped loudly without chromium, chromedriver or selenium (scripts/setup.sh --with-browser);
with MOTIVGRAPH_REQUIRE_NEO4J=1 (CI) that skip fails.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from motivgraph.settings import Settings
from tests.e2e.test_docs_cypher_neo4j import docs_graph  # noqa: F401  (the fixture: graph, embeddings, indexes)
from tests.integration.api.conftest import C_ACO
from tests.integration.graph.test_neo4j_browser_queries import walkthrough_queries

try:
    from selenium import webdriver
    from selenium.common.exceptions import StaleElementReferenceException, TimeoutException
    from selenium.webdriver.chrome.service import Service as ChromeService
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select, WebDriverWait

    HAVE_SELENIUM = True
except ImportError:
    HAVE_SELENIUM = False

pytestmark = [pytest.mark.e2e, pytest.mark.neo4j, pytest.mark.slow]

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
ARTIFACTS = Path(os.environ.get("MOTIVGRAPH_TEST_ARTIFACTS", "test-artifacts"))
GRASS = Path(__file__).resolve().parents[2] / "docs" / "neo4j" / "motivgraph.grass"
TIMEOUT = 120.0  # seconds per step: generous, the machine may be a loaded 2-core box

# SEVERE console messages that are not the app failing, each with why. Anything else fails the test.
BENIGN = [
    (r"https://fonts\.googleapis\.com/\S+ - Failed to load resource: net::ERR_NAME_NOT_RESOLVED",
     "index.html links Google Fonts' stylesheet (Fira Code, Nunito Sans); offline the fallback fonts are used"),
    (r"https://cdn\.segment\.com/analytics\.js/\S+ - Failed to load resource: net::ERR_NAME_NOT_RESOLVED",
     "Segment's analytics script, loaded on every connection to a Community server (the Browser honours "
     "browser.allow_outgoing_connections on Enterprise only); with client.allow_telemetry=false no event is sent"),
    (r"https://canny\.io/sdk\.js - Failed to load resource: net::ERR_NAME_NOT_RESOLVED",
     "Canny's changelog widget script, loaded together with Segment's"),
    (r"https://\w+\.ingest\.sentry\.io/\S+ - Failed to load resource: net::ERR_NAME_NOT_RESOLVED",
     "a Sentry performance trace of the page load (sampled, ~1 in 5 loads): the telemetry switch filters error "
     "reports only, not traces"),
    (r"http://{bolt}/ - Failed to load resource: net::ERR_EMPTY_RESPONSE",
     "the connect form fetches discovery data from the Bolt address over HTTP (boltToHttp); a Bolt port answers "
     "no HTTP"),
]

# the page the Browser shows instead of the app after an uncaught error in a component
_CRASHED_JS = """
const text = document.body.innerText;
return text.includes("the application can't recover") ? text.slice(0, 2000) : null;
"""
_FRAME_STATE_JS = """
const f = arguments[0], q = s => f.querySelector(s);
const contents = (q('[data-testid="frameContents"]') || {}).innerText || '';
const err = q('[data-testid="cypherFrameErrorMessage"], [data-testid="errorBanner"]');
const status = q('[data-testid="frameStatusbar"]');
const header = [...f.querySelectorAll('thead th[role="columnheader"]')].map(c => c.textContent.trim());
const rows = [...f.querySelectorAll('tbody tr.relatable__table-body-row')].map(
    r => [...r.querySelectorAll('td[role="cell"]')].map(c => c.textContent.trim()));
const chips = {};
f.querySelectorAll('[data-testid^="property-details-overview-node-label-"]').forEach(c => {
    chips[c.dataset.testid.replace('property-details-overview-node-label-', '')] = getComputedStyle(c).backgroundColor;
});
return {
    command: (q('[data-testid="frameCommand"]') || {}).textContent || '',
    error: err || /^ERROR/m.test(contents) ? f.innerText : null,  // every error frame is headed ERROR
    graph: !!q('[data-testid="cypherFrameSidebarVisualization"]'),
    fills: [...f.querySelectorAll('svg g.node circle.b-outline')].map(c => c.getAttribute('fill')),
    positions: [...f.querySelectorAll('svg g.node')].map(g => g.getAttribute('transform')).join(';'),
    chips: chips,
    status: status ? status.textContent : '',
    header: header,
    rows: rows,
    contents: contents,
    params: (q('[data-testid="rawParamData"]') || {}).innerText || null,
};
"""


def parse_grass(text: str) -> dict[str, dict[str, str]]:
    """The style file as the Browser stores it: {selector: {property: value}}, quotes dropped (a quoted
    value may hold braces: caption "{name}")."""
    blocks = re.findall(r'([^{}"\s][^{}"]*?)\s*\{((?:[^{}"]|"[^"]*")*)\}', text)
    out: dict[str, dict[str, str]] = {}
    for selector, body in blocks:
        props = re.findall(r'([\w-]+)\s*:\s*("[^"]*"|[^;]*?)\s*;', body)
        out[selector.strip()] = {k: v.strip('"') for k, v in props}
    return out


def _hex_to_rgb(colour: str) -> str:
    r, g, b = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
    return f"rgb({r}, {g}, {b})"


def _one_line(text: str) -> str:
    return " ".join(text.split())


@pytest.fixture(scope="module")
def browser_url(neo4j_settings: Settings) -> str:
    host = urlsplit(neo4j_settings.neo4j.uri or "").hostname or "127.0.0.1"
    url = f"http://{host}:{neo4j_settings.neo4j.http_port}/browser/"
    try:
        with urllib.request.urlopen(url, timeout=30) as r:
            assert r.status == 200
    except OSError as e:
        pytest.skip(f"Neo4j Browser is not served at {url} ({e}): give the test server's HTTP port in "
                    "MOTIVGRAPH_TEST_NEO4J_HTTP_PORT (or MOTIVGRAPH_NEO4J_HTTP_PORT with MOTIVGRAPH_NEO4J_URI)")
    return url


@pytest.fixture(scope="session", autouse=True)  # session: before the session's Neo4j starts
def _browser_installed() -> None:
    """Skip (loudly) before a Neo4j is started and filled when there is no browser to open it with."""
    if not (CHROMIUM and DRIVER and HAVE_SELENIUM):
        reason = ("SKIPPED: the Neo4j Browser UI test needs Debian chromium + chromium-driver and selenium "
                  f"(found chromium={CHROMIUM}, chromedriver={DRIVER}, selenium={HAVE_SELENIUM}); "
                  "install them with scripts/setup.sh --with-browser")
        print(f"\n*** {reason} ***\n")
        pytest.skip(reason)


@pytest.fixture(scope="module")
def browser(browser_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    origin = browser_url.removesuffix("/browser/")
    host = urlsplit(origin).hostname
    opts = webdriver.ChromeOptions()
    opts.binary_location = str(CHROMIUM)
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage", "--window-size=1400,1000",
                 # offline: every host name but the server's fails to resolve
                 f"--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE {host}",
                 # the clipboard API needs a secure context; loopback is one, a remote test server is not
                 f"--unsafely-treat-insecure-origin-as-secure={origin}",
                 f"--user-data-dir={tmp_path_factory.mktemp('chromium-neo4j-browser')}"):
        opts.add_argument(flag)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=opts, service=ChromeService(executable_path=str(DRIVER)))
    driver.set_page_load_timeout(TIMEOUT)
    driver.set_script_timeout(TIMEOUT)
    driver.execute_cdp_cmd("Browser.grantPermissions", {
        "origin": origin, "permissions": ["clipboardReadWrite", "clipboardSanitizedWrite"]})
    try:
        yield driver
    finally:
        driver.quit()


def _wait(d: Any, cond: Callable[[Any], Any], what: str, timeout: float = TIMEOUT) -> Any:
    try:
        # a React re-render may replace an element between finding and reading it: look again
        return WebDriverWait(d, timeout, poll_frequency=0.25,
                             ignored_exceptions=(StaleElementReferenceException,)).until(cond)
    except TimeoutException:
        stream = d.find_elements(By.CSS_SELECTOR, '[data-testid="stream"]')
        shown = stream[0].text if stream else d.find_element(By.TAG_NAME, "body").text
        raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what}; the Browser shows:\n"
                             f"{shown[:3000]}") from None


def _set_input(d: Any, testid: str, value: str) -> None:
    """Replace a (React-controlled) input's value as a user does: select all, type."""
    box = d.find_element(By.CSS_SELECTOR, f'[data-testid="{testid}"]')
    box.send_keys(Keys.CONTROL, "a")
    box.send_keys(value)


def _connect(d: Any, url: str, settings: Settings) -> None:
    neo = settings.neo4j
    bolt = urlsplit(neo.uri or "")
    d.get(url)

    def form_ready(dr: Any) -> bool:  # the form is filled from the server's discovery data once it arrives
        found = {t: dr.find_elements(By.CSS_SELECTOR, f'[data-testid="{t}"]')
                 for t in ("connect", "bolt-scheme-select", "boltaddress", "password")}
        return (all(e and e[0].is_displayed() and e[0].is_enabled() for e in found.values())
                and bool(found["boltaddress"][0].get_attribute("value")))

    _wait(d, form_ready, "the connect form")
    Select(d.find_element(By.CSS_SELECTOR, '[data-testid="bolt-scheme-select"]')).select_by_value(
        f"{bolt.scheme}://")
    _set_input(d, "boltaddress", bolt.netloc)
    _set_input(d, "username", neo.user)
    _set_input(d, "password", neo.password.get_secret_value())
    assert d.find_element(By.CSS_SELECTOR, '[data-testid="boltaddress"]').get_attribute("value") == bolt.netloc
    d.find_element(By.CSS_SELECTOR, '[data-testid="connect"]').click()
    _wait(d, lambda dr: f"You are connected as user {neo.user}" in dr.find_element(
        By.CSS_SELECTOR, '[data-testid="stream"]').text, f"the connection to {neo.uri}")
    _wait(d, lambda dr: dr.find_elements(By.CSS_SELECTOR, "#monaco-main-editor textarea"), "the editor")


def _run(d: Any, text: str, done: Callable[[dict[str, Any]], bool], what: str) -> tuple[Any, dict[str, Any]]:
    """Paste `text` into the editor (clipboard + Ctrl+V), run it (Ctrl+Enter), wait for its frame to be
    `done` (or to show an error); return the frame and its state."""
    d.execute_script('document.querySelectorAll(\'[data-testid="frame"]\').forEach('
                     'f => f.setAttribute("data-mg-seen", "1"))')
    copied = d.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "navigator.clipboard.writeText(arguments[0]).then(() => done('ok'), e => done(String(e)))", text)
    assert copied == "ok", f"could not put the text on the clipboard: {copied}"
    d.find_element(By.CSS_SELECTOR, "#monaco-main-editor").click()
    editor = d.find_element(By.CSS_SELECTOR, "#monaco-main-editor textarea")
    editor.send_keys(Keys.CONTROL, "a")
    editor.send_keys(Keys.CONTROL, "v")
    editor.send_keys(Keys.CONTROL, Keys.ENTER)
    command = _one_line(text)

    def new_frame(dr: Any) -> Any:
        crashed = dr.execute_script(_CRASHED_JS)
        if crashed:
            raise AssertionError(f"the Browser crashed running {what}:\n{crashed}")
        for f in dr.find_elements(By.CSS_SELECTOR, '[data-testid="frame"]:not([data-mg-seen])'):
            state = dr.execute_script(_FRAME_STATE_JS, f)
            if _one_line(state["command"]) == command and (state["error"] or done(state)):
                return f, state
        return None

    frame, state = _wait(d, new_frame, f"the result of {what}")
    assert not state["error"], f"{what} shows an error frame:\n{state['error']}"
    return frame, state


def _query_done(state: dict[str, Any]) -> bool:
    if state["graph"]:
        return bool(state["fills"])
    return bool(re.search(r"completed after", state["status"], re.I))


def _settled(d: Any, frame: Any) -> None:
    """Wait (at most 30 s, not fatal) until the force layout stops moving the nodes: nicer screenshots."""
    last: list[str] = []

    def still(dr: Any) -> bool:
        pos = dr.execute_script(_FRAME_STATE_JS, frame)["positions"]
        same = bool(last) and last[-1] == pos
        last.append(pos)
        return same

    with contextlib.suppress(TimeoutException):
        WebDriverWait(d, 30, poll_frequency=0.5, ignored_exceptions=(StaleElementReferenceException,)).until(still)


@pytest.mark.usefixtures("docs_graph")
def test_walk_through_in_neo4j_browser(neo4j_settings: Settings, browser: Any, browser_url: str) -> None:
    d = browser
    grass = GRASS.read_text(encoding="utf-8")
    style = parse_grass(grass)
    colours = {sel.split(".", 1)[1]: props["color"].upper() for sel, props in style.items() if "." in sel}
    assert {"Problem", "Challenge", "Solution", "Paper"} <= set(colours), colours
    try:
        t0 = time.monotonic()
        _connect(d, browser_url, neo4j_settings)
        print(f"\nconnected to {neo4j_settings.neo4j.uri} in Neo4j Browser at {browser_url} "
              f"({time.monotonic() - t0:.1f}s)")

        # the style: `:style ` + the file, pasted; the Browser keeps the parsed style in localStorage
        _run(d, ":style " + grass, lambda s: "node.Paper" in s["contents"], "`:style` with the style file")
        stored = _wait(d, lambda dr: json.loads(dr.execute_script("return localStorage.getItem('neo4j.grass')")
                                                or "null"), "the style to be stored")
        assert stored == style, f"the Browser stored another style than the file's: {stored}"

        _, param = _run(d, f":param key => '{C_ACO}'", lambda s: bool(s["params"]), "`:param key`")
        assert json.loads(param["params"]) == {"key": C_ACO}, param["contents"]

        results: dict[str, dict[str, Any]] = {}
        shot_of = None
        for title, query in walkthrough_queries():
            frame, state = _run(d, query + ";", _query_done, f"query {title!r}")
            results[title] = state
            print(f"  {title}: " + (f"{len(state['fills'])} nodes drawn" if state["graph"]
                                    else f"{len(state['rows'])} rows"))
            if state["graph"]:
                drawn = {c.upper() for c in state["fills"]}
                assert drawn <= set(colours.values()), f"{title}: nodes drawn in colours not in the style: {drawn}"
                for label, rgb in state["chips"].items():
                    if label in colours:
                        assert rgb == _hex_to_rgb(colours[label]), f"{title}: {label} shown {rgb}, style {colours}"
                if shot_of is None and {"Paper", "Problem", "Challenge", "Solution"} <= set(state["chips"]):
                    _settled(d, frame)
                    ARTIFACTS.mkdir(parents=True, exist_ok=True)
                    shot = ARTIFACTS / "neo4j-browser-styled-graph.png"
                    frame.screenshot(str(shot))
                    assert shot.stat().st_size > 10_000
                    print(f"\nscreenshot of the styled graph of query {title!r}: {shot.resolve()}")
                    shot_of = title
            else:
                assert state["rows"], f"{title}: no rows shown ({state['status']!r})"
                assert re.search(r"Started streaming [1-9]\d* records?", state["status"]), state["status"]
        assert shot_of, "no query drew Papers, Problems, Challenges and Solutions together"
        graphs = [t for t, s in results.items() if s["graph"]]
        assert len(graphs) >= 3, f"expected the graph queries to draw graphs, got {graphs}"
        shared = next(s for t, s in results.items() if "shared across problems" in t)
        n = shared["header"].index("n")
        assert any(r[n] == "2" for r in shared["rows"]), shared["rows"]
    except BaseException:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        d.save_screenshot(str(ARTIFACTS / "neo4j-browser-failure.png"))
        print(f"\nscreenshot at the failure: {(ARTIFACTS / 'neo4j-browser-failure.png').resolve()}")
        raise

    bolt = re.escape(urlsplit(neo4j_settings.neo4j.uri or "").netloc)
    benign = [(re.compile(p.replace("{bolt}", bolt)), why) for p, why in BENIGN]
    severe = [e for e in d.get_log("browser") if e.get("level") == "SEVERE"]
    noise = [e for e in severe if e.get("source") == "network" and any(p.fullmatch(e["message"]) for p, _ in benign)]
    print("offline noise ignored:", *sorted({e["message"].split(" - ")[0] for e in noise}), sep="\n  ")
    errors = [e for e in severe if e not in noise]
    assert not errors, f"Neo4j Browser console errors: {errors}"
