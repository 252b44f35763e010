"""Issue 41 item 4 in a real headless Chromium against a keyed server (uvicorn on loopback, the serve protocol):
a login link never takes the browser to another host (`//evil.example/...`, `/%5Cevil.example/`), `?api_key=`
logs in on the browser pages only, and the explorer keeps the key in the server's HttpOnly cookie (nothing in
localStorage, nothing its script can read): after a 401 from a shared link, typing the key and pressing Search
sends the search again and shows the hits.

Skipped LOUDLY when chromium, chromedriver or selenium is missing (`scripts/setup.sh --with-browser`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import quote, urlsplit

import pytest

from tests.browser_support import chrome, require_browser
from tests.integration.api.conftest import C_WSN
from tests.uvicorn_support import bound_protocol, served

require_browser("the explorer key browser test")

from selenium import webdriver  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support import expected_conditions as ec  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

KEY = "browser-key-0123456789"
QUERY = "energy efficient multi hop routing in sensor networks"


@pytest.fixture(scope="module")
def base_url(api_settings: Any) -> Iterator[str]:
    from pydantic import SecretStr

    from motivgraph.api.app import create_app
    from motivgraph.api.services import ToolService

    s = api_settings.model_copy(deep=True)
    s.api.api_key = SecretStr(KEY)
    svc = ToolService(s)
    try:
        with served(create_app(svc), lifespan="auto", http=bound_protocol(s)) as url:
            yield url
    finally:
        svc.close()


@pytest.fixture
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[webdriver.Chrome]:
    """A fresh profile per test: no cookie from another test."""
    # evil.example must not resolve to anything: a redirect there would show as a failed load
    driver = chrome(tmp_path_factory.mktemp("chromium-key-profile"), page_timeout=30,
                    flags=("--host-resolver-rules=MAP evil.example 192.0.2.1",))
    yield driver
    driver.quit()


def _wait(driver: webdriver.Chrome, cond: Any, timeout: float = 60) -> Any:
    return WebDriverWait(driver, timeout).until(cond)


@pytest.mark.parametrize("path", ["//evil.example/landing", "/%5Cevil.example/", "/%5C%5Cevil.example/",
                                  "/docs/..%2F%2Fevil.example"])
def test_a_login_link_never_leaves_the_server(browser: webdriver.Chrome, base_url: str, path: str) -> None:
    here = urlsplit(base_url).netloc
    browser.get(base_url + path + f"?api_key={KEY}")
    _wait(browser, lambda d: d.execute_script("return document.readyState") == "complete")
    assert urlsplit(browser.current_url).netloc == here, browser.current_url  # was evil.example
    assert not browser.get_cookies(), browser.get_cookies()  # no login on a path that is no browser page


def test_the_key_in_a_docs_link_becomes_the_httponly_cookie(browser: webdriver.Chrome, base_url: str) -> None:
    browser.get(base_url + f"/docs?api_key={KEY}")
    _wait(browser, lambda d: urlsplit(d.current_url).path == "/docs")
    assert "api_key" not in browser.current_url
    cookie = next(c for c in browser.get_cookies() if c["name"] == "motivgraph_api_key")
    assert cookie["httpOnly"] and cookie["sameSite"] == "Strict"
    assert KEY not in browser.execute_script("return document.cookie")


def test_api_key_in_the_address_of_an_api_route_is_no_login(browser: webdriver.Chrome, base_url: str) -> None:
    browser.get(base_url + f"/triples?api_key={KEY}")
    assert "unauthorized" in browser.page_source
    assert not browser.get_cookies()


def test_explorer_after_a_401_typing_the_key_and_search_sends_the_search(browser: webdriver.Chrome,
                                                                          base_url: str) -> None:
    d = browser
    d.get(base_url + "/explorer?q=" + quote(QUERY))  # a shared link, no key yet
    _wait(d, ec.text_to_be_present_in_element((By.CSS_SELECTOR, "#hits .err"), "X-API-Key"))
    d.find_element(By.ID, "key").send_keys(KEY)
    d.find_element(By.ID, "go").click()  # the same search: the URL does not change
    hit = f'#hits a[href^="/explorer/node/{quote(C_WSN, safe="")}"]'
    _wait(d, ec.presence_of_element_located((By.CSS_SELECTOR, hit)))
    assert not d.find_elements(By.CSS_SELECTOR, "#hits .err")
    assert d.execute_script("return window.localStorage.length") == 0  # the key is kept nowhere in the page
    assert KEY not in d.execute_script("return document.cookie")  # HttpOnly: the script cannot read it
    assert d.find_element(By.ID, "key").get_attribute("value") == ""
    cookie = next(c for c in d.get_cookies() if c["name"] == "motivgraph_api_key")
    assert cookie["httpOnly"]
    # the cookie carries on: a node page (its own API calls) loads without the key typed again
    d.get(base_url + "/explorer/node/" + quote(C_WSN, safe=""))
    _wait(d, ec.text_to_be_present_in_element((By.ID, "node-title"), "Energy-efficient multi-hop routing"))


def test_explorer_shared_link_with_the_key_logs_in_and_drops_it_from_the_address(browser: webdriver.Chrome,
                                                                                 base_url: str) -> None:
    d = browser
    d.get(base_url + "/explorer?q=" + quote(QUERY) + f"&api_key={KEY}")
    _wait(d, ec.presence_of_element_located((By.CSS_SELECTOR, "#hits a.node")))
    assert "api_key" not in d.current_url and "q=" in d.current_url
    assert d.execute_script("return window.localStorage.length") == 0


def test_a_wrong_key_says_so_and_sends_nothing_else(browser: webdriver.Chrome, base_url: str) -> None:
    d = browser
    d.get(base_url + "/explorer?q=" + quote(QUERY))
    _wait(d, ec.text_to_be_present_in_element((By.CSS_SELECTOR, "#hits .err"), "X-API-Key"))
    d.find_element(By.ID, "key").send_keys("not-the-key")
    d.find_element(By.ID, "go").click()
    _wait(d, lambda dr: dr.find_element(By.ID, "key").get_attribute("placeholder") == "wrong key, try again")
    assert not d.get_cookies()
