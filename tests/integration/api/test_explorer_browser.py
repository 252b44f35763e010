"""The explorer in a real headless browser (Debian chromium + chromedriver via selenium) against the real
test graph served by uvicorn on loopback: search, open a node, follow a parent, open a paper, back button,
deep-link reload, a narrow screen, no console errors; a screenshot is saved as a test artefact.

Skipped LOUDLY when chromium, chromedriver or selenium is missing (`scripts/setup.sh --with-browser`)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from tests.integration.api.conftest import C_WSN, PARENT_ROUTING, QUANT
from tests.uvicorn_support import served

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
try:
    import selenium  # noqa: F401

    HAVE_SELENIUM = True
except ImportError:
    HAVE_SELENIUM = False

if not (CHROMIUM and DRIVER and HAVE_SELENIUM):
    reason = ("SKIPPED: the explorer browser test needs Debian chromium + chromium-driver and selenium "
              f"(found chromium={CHROMIUM}, chromedriver={DRIVER}, selenium={HAVE_SELENIUM}); "
              "install them with scripts/setup.sh --with-browser")
    print(f"\n*** {reason} ***\n")
    pytest.skip(reason, allow_module_level=True)

from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service as ChromeService  # noqa: E402
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
    opts = webdriver.ChromeOptions()
    opts.binary_location = str(CHROMIUM)
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage", "--window-size=1280,1000",
                 f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}"):
        opts.add_argument(flag)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=opts, service=ChromeService(executable_path=str(DRIVER)))
    driver.set_page_load_timeout(60)
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
