"""Headless Chromium for the browser tests (Debian chromium + chromium-driver, driven by selenium): one place for
the loud skip when any of the three is missing and for the flags every test browser starts with.

    require_browser("the explorer browser test")      # at module level, before importing selenium's parts
    driver = chrome(tmp_path_factory.mktemp("profile"), width=1300, console_log=True)
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
try:
    import selenium  # noqa: F401

    HAVE_SELENIUM = True
except ImportError:
    HAVE_SELENIUM = False

# Offline and quiet: no first-run pages, no background fetches, no QUIC, /dev/shm not needed (small containers)
BASE_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
              "--disable-background-networking", "--disable-component-update", "--disable-sync",
              "--disable-dev-shm-usage")


def browser_missing() -> str | None:
    """None when a test browser can start here; otherwise what is missing."""
    if CHROMIUM and DRIVER and HAVE_SELENIUM:
        return None
    return (f"found chromium={CHROMIUM}, chromedriver={DRIVER}, selenium={HAVE_SELENIUM}; "
            "install them with scripts/setup.sh --with-browser")


def require_browser(what: str) -> None:
    """Skip the calling module LOUDLY (printed, not only in the summary) when the browser is missing."""
    missing = browser_missing()
    if missing is not None:
        reason = f"SKIPPED: {what} needs Debian chromium + chromium-driver and selenium ({missing})"
        print(f"\n*** {reason} ***\n")
        pytest.skip(reason, allow_module_level=True)


def chrome(profile: Path, *, width: int = 1280, height: int = 1000, flags: Sequence[str] = (),
           console_log: bool = False, page_timeout: float = 60) -> Any:
    """A headless Chromium with its own profile folder; the caller quits it."""
    from selenium import webdriver  # local: only once require_browser has passed
    from selenium.webdriver.chrome.service import Service as ChromeService  # local: as above

    opts = webdriver.ChromeOptions()
    opts.binary_location = str(CHROMIUM)
    for flag in (*BASE_FLAGS, f"--window-size={width},{height}", *flags, f"--user-data-dir={profile}"):
        opts.add_argument(flag)
    if console_log:
        opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=opts, service=ChromeService(executable_path=str(DRIVER)))
    driver.set_page_load_timeout(page_timeout)
    return driver
