"""The documentation site that `scripts/docs` builds (every DocC catalog merged into one) opened in a real Chromium:
its landing page lists every part, and every link of its landing pages and articles leads somewhere. Pages and
articles are opened in the browser (DocC draws them from their JSON); a link to a symbol's page is checked to be
served (its data), which is what DocC draws it from."""

import functools
import http.server
import json
import threading
import urllib.error
import urllib.request
from collections import deque

import pytest

from conftest import ROOT, screenshot, wait_until

SITE = ROOT / ".build" / "docs" / "site"

# The articles the README sends readers to, by title: each must be in the site.
ARTICLES = [
    "Running flowd", "Configuration", "Operating flowd", "Security", "Bounds", "Sessions that survive flowd",
    "A fleet on PostgreSQL", "Screens in the browser", "Benchmarks", "flowctl", "Adding a message",
    "Getting started", "The FlowBus protocol, version 1", "The flow file format",
]


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *arguments):
        pass


@pytest.fixture(scope="module")
def site():
    if not (SITE / "index.html").exists():
        pytest.fail(f"no documentation site at {SITE}: scripts/docs builds it (scripts/test runs it first)")
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(SITE)))
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def data(base, path):
    """The JSON DocC draws the page at `path` from, or None when it is not served."""
    path = path.split("#", 1)[0].rstrip("/")
    try:
        with urllib.request.urlopen(f"{base}/data{path}.json", timeout=10) as response:
            return json.load(response)
    except urllib.error.HTTPError:
        return None


def rendered(page, base, path):
    """Opens `path` and waits until DocC drew its title; returns the title."""
    page.goto(f"{base}{path}")
    title = page.wait_for_selector("main h1", timeout=15_000).inner_text()
    body = page.inner_text("main")
    assert "can't be found" not in body and "cannot be found" not in body, f"{path}: DocC found no page"
    return title


def links(page):
    hrefs = page.eval_on_selector_all("main a[href]", "anchors => anchors.map(a => a.getAttribute('href'))")
    # One path per page: DocC links a page with and without a trailing slash.
    return {href.split("#", 1)[0].rstrip("/") or "/" for href in hrefs if href.startswith("/documentation/")}


def test_the_landing_page_lists_every_part(page, site):
    assert rendered(page, site, "/documentation/") == "FlowBus"
    text = page.inner_text("main")
    for part in ["FlowBus", "FlowCore", "FlowDaemon", "FlowInspector", "FlowSpec", "FlowStore", "FlowWire", "ZeroMQ"]:
        assert part in text, f"the landing page does not list {part}"
    screenshot(page, "docs-landing")


def test_every_link_of_the_pages_and_articles_leads_somewhere(page, site):
    queue = deque(["/documentation"])
    seen = set(queue)
    titles = []
    checked_symbols = 0
    while queue:
        path = queue.popleft()
        found = data(site, path)
        assert found is not None, f"{path} is linked but not served"
        role = found.get("metadata", {}).get("role")
        if path != "/documentation" and role not in ("article", "collection", "collectionGroup"):
            checked_symbols += 1
            continue
        titles.append(rendered(page, site, path))
        for link in links(page) - seen:
            seen.add(link)
            queue.append(link)
    for article in ARTICLES:
        assert article in titles, f"no article titled {article!r} in the site; found: {sorted(titles)}"
    assert checked_symbols > 50, "the landing pages link to the symbols they document"
    screenshot(page, "docs-last-article")
