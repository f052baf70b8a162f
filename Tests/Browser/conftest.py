"""What the browser tests share: real flowd processes with the WebSocket endpoint, the system's Chromium driven by
Playwright (no browser is downloaded), a page server for the test pages, and screenshots kept as artifacts.

Every flowd gets its own ipc endpoints and state directory under pytest's temporary directory; every process
started is stopped at the end of its test; nothing waits blindly: each wait is for a condition, with a deadline.
"""

import functools
import http.server
import os
import re
import shutil
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(os.environ.get("FLOWBUS_BIN", ROOT / ".build" / "debug"))
ARTIFACTS = Path(os.environ.get("FLOWBUS_ARTIFACTS", ROOT / ".build" / "test-artifacts" / "browser"))
CHROMIUM = os.environ.get("FLOWBUS_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")


def wait_until(condition, within=10.0, what="the condition"):
    """Waits until `condition()` is true (returns its value), or fails after `within` seconds."""
    deadline = time.monotonic() + within
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} did not happen within {within} s")
        time.sleep(0.02)


class Process:
    """A child process whose standard error (and output) lines are kept, read on a thread of their own."""

    def __init__(self, arguments, env=None, cwd=ROOT):
        self.arguments = [str(a) for a in arguments]
        self.lines = []
        self.lock = threading.Lock()
        self.process = subprocess.Popen(
            self.arguments,
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for line in self.process.stdout:
            with self.lock:
                self.lines.append(line.rstrip("\n"))

    def output(self):
        with self.lock:
            return list(self.lines)

    def find(self, pattern, within=15.0):
        """The first match of `pattern` in the output, waiting for it."""
        expression = re.compile(pattern)

        def found():
            if self.process.poll() is not None:
                # Exited: what it wrote last is read before it is judged.
                self.reader.join(timeout=5)
            if self.process.poll() is not None and not any(expression.search(l) for l in self.output()):
                raise AssertionError(f"{self.arguments[0]} exited ({self.process.returncode}):\n" + "\n".join(self.output()))
            for line in self.output():
                match = expression.search(line)
                if match:
                    return match
            return None

        return wait_until(found, within, f"'{pattern}' in the output of {Path(self.arguments[0]).name}")

    def signal(self, number):
        if self.process.poll() is None:
            self.process.send_signal(number)

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()


class Flowd(Process):
    """A real flowd with the WebSocket endpoint on a free loopback port, ipc endpoints and a state directory of its
    own (`directory`; none when `stateless`: an instance of a fleet keeps its sessions in the fleet's database)."""

    def __init__(
        self, directory, *extra, flows="deploy/flows/movies.yaml", env=None, websocket="127.0.0.1:0", stateless=False
    ):
        self.stateless = stateless
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.extra = list(extra)
        self.flows = flows
        self.environment = env
        self.websocket_address = websocket
        self.start()

    def start(self):
        arguments = [
            BIN / "flowd", "--flows", ROOT / self.flows, "--no-tcp",
            "--control", f"ipc://{self.directory}/control", "--events", f"ipc://{self.directory}/events",
        ] + (["--websocket", self.websocket_address] if self.websocket_address else []) + (
            [] if "--ephemeral" in self.extra or self.stateless else ["--state-dir", self.directory / "state"]
        ) + self.extra
        environment = dict(os.environ)
        environment.update(self.environment or {})
        super().__init__(arguments, env=environment)
        if not self.websocket_address:
            # ZeroMQ only (with CURVE, a WebSocket endpoint would need tokens).
            self.find(r"flowd .* ready")
            return
        match = self.find(r"websocket ws://([0-9.]+):(\d+)/flowbus")
        self.port = int(match.group(2))
        # The same port after a restart.
        self.websocket_address = f"127.0.0.1:{self.port}"
        self.url = f"ws://127.0.0.1:{self.port}/flowbus"
        self.http = f"http://127.0.0.1:{self.port}"

    def kill(self):
        """kill -9, as a crash."""
        self.process.kill()
        self.process.wait()

    def restart(self):
        self.start()

    @property
    def control(self):
        return f"ipc://{self.directory}/control"

    @property
    def events(self):
        return f"ipc://{self.directory}/events"

    def flowctl(self, *arguments):
        """Runs flowctl against this flowd; returns its output."""
        done = subprocess.run(
            [BIN / "flowctl", *arguments, "--control", self.control, "--events", self.events],
            capture_output=True, text=True, timeout=30, cwd=ROOT,
        )
        return done.stdout + done.stderr


@pytest.fixture
def flowd(tmp_path):
    """A flowd factory: `flowd(*extra_arguments, env=..., flows=...)`; every one started is stopped."""
    started = []

    def make(*extra, **options):
        daemon = Flowd(tmp_path / f"flowd{len(started)}", *extra, **options)
        started.append(daemon)
        return daemon

    yield make
    for daemon in started:
        daemon.stop()


@pytest.fixture(scope="session")
def browser():
    """The system's Chromium, headless, driven by Playwright."""
    from playwright.sync_api import sync_playwright

    if not CHROMIUM:
        pytest.fail("no chromium on this machine: scripts/bootstrap --tests installs it")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
        yield launched
        launched.close()


@pytest.fixture
def page(browser, request):
    """A new page; what its console says is printed when the test fails."""
    context = browser.new_context(ignore_https_errors=True, viewport={"width": 1100, "height": 760})
    opened = context.new_page()
    messages = []
    opened.on("console", lambda message: messages.append(f"console.{message.type}: {message.text}"))
    opened.on("pageerror", lambda error: messages.append(f"page error: {error}"))
    opened.messages = messages
    yield opened
    if request.node.rep_call.failed if hasattr(request.node, "rep_call") else False:
        print("\n".join(messages))
    context.close()


@pytest.hookimpl(tryfirst=True, hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    setattr(item, "rep_" + report.when, report)


class PageServer(http.server.ThreadingHTTPServer):
    daemon_threads = True


@pytest.fixture(scope="session")
def pages():
    """Serves Tests/Browser/pages at /, and clients/js at /js/, on a free loopback port; yields its base URL."""

    class Handler(http.server.SimpleHTTPRequestHandler):
        extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, ".js": "text/javascript"}

        def translate_path(self, path):
            path = path.split("?", 1)[0]
            if path.startswith("/js/"):
                return str(ROOT / "clients" / "js" / path[4:])
            if path.startswith("/conformance/"):
                return str(ROOT / "Tests" / "Conformance" / path[len("/conformance/"):])
            return str(ROOT / "Tests" / "Browser" / "pages" / path.lstrip("/"))

        def log_message(self, *arguments):
            pass

    server = PageServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def screenshot(page, name):
    """Keeps a screenshot of the page as a test artifact."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"))


def open_client(page, pages):
    """Opens the test page that loads flowbus.js (as window.flowbus)."""
    page.goto(f"{pages}/client.html")
    page.wait_for_function("window.flowbus !== undefined")
