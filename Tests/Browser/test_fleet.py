"""flowbus.js in a fleet: two flowd on one PostgreSQL (a real server, run as an unprivileged user in a temporary
directory), each with its WebSocket endpoint. A client given both URLs is sent on by REDIRECT to the instance that
serves its session, and when that instance is killed -9 it moves to the other once the lease expires; its steps are
applied once each, and a presenter comes back on the same screens."""

import glob
import json
import os
import pwd
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from conftest import Process, open_client, wait_until

BINARIES = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(p.split("/")[-2]))


def as_postgres():
    """Runs the server as `postgres` when the tests run as root (PostgreSQL refuses root)."""
    if os.getuid() != 0:
        return []
    return ["setpriv", "--reuid=postgres", "--regid=postgres", "--clear-groups"]


@pytest.fixture
def postgres():
    if not BINARIES:
        pytest.fail("PostgreSQL's server is not installed (scripts/bootstrap --tests installs it)")
    binaries = BINARIES[-1]
    # Not under pytest's directory: the server's user must reach it.
    directory = Path(tempfile.mkdtemp(prefix="flowbus-pg-"))
    if os.getuid() == 0:
        entry = pwd.getpwnam("postgres")
        os.chown(directory, entry.pw_uid, entry.pw_gid)
    subprocess.run(
        as_postgres() + [f"{binaries}/initdb", "-D", directory / "data", "-A", "trust", "-U", "flowbus", "--no-sync"],
        check=True, capture_output=True,
    )
    server = Process(
        as_postgres() + [f"{binaries}/postgres", "-D", directory / "data", "-k", directory,
                         "-c", "listen_addresses=", "-c", "fsync=off"]
    )

    def psql(sql):
        return subprocess.run(
            [f"{binaries}/psql", "-X", "-q", "-h", str(directory), "-U", "flowbus", "-d", "postgres", "-c", sql],
            capture_output=True, text=True,
        )

    wait_until(lambda: psql("SELECT 1").returncode == 0, 30, "PostgreSQL to start")
    assert psql("CREATE DATABASE fleet").returncode == 0
    yield f"postgresql:///fleet?host={directory}&user=flowbus"
    server.signal(2)
    server.process.wait(timeout=30)
    shutil.rmtree(directory, ignore_errors=True)


def ticks(daemon):
    tree = json.loads(daemon.flowctl("tree", "kiosk", "--json"))
    return sorted(s["parameters"]["n"] for s in tree["screens"] if s["name"] == "Tick")


def test_a_client_follows_the_fleet(flowd, postgres, page, pages):
    fleet = {"env": {"FLOWD_STORE": postgres}, "stateless": True, "flows": "Tests/Browser/flows/ticker.yaml"}
    a = flowd("--instance", "a", "--lease", "1s", **fleet)
    b = flowd("--instance", "b", "--lease", "1s", **fleet)
    open_client(page, pages)
    # The session is created at a; a presenter that tries b first is sent on by REDIRECT (to the next URL: a).
    page.evaluate(
        """async ([a, b]) => {
          const {Stepper, Presenter} = window.flowbus;
          window.fates = [];
          window.ticker = await Stepper.connect({urls: [a, b], session: "kiosk", name: "ticker", connectTimeout: 20000});
          for (let n = 1; n <= 10; n += 1) window.fates.push((await window.ticker.emit("tick", {n})).accepted);
          window.presenter = await Presenter.connect({urls: [b, a], session: "kiosk", connectTimeout: 20000});
        }""",
        [a.url, b.url],
    )
    top = "window.presenter.screens.topmostVisibleScreen()?.parameters?.n"
    wait_until(lambda: page.evaluate(top) == 10, 10, "the presenter at the session's instance")
    assert ticks(a) == list(range(1, 11))

    # a dies: b takes the session over after the lease; the clients move there and go on.
    a.kill()
    page.evaluate(
        """() => {
          for (let n = 11; n <= 30; n += 1) {
            window.ticker.emit("tick", {n}).then((fate) => window.fates.push(fate.accepted),
                                                 (error) => window.fates.push(error.code));
          }
        }"""
    )
    wait_until(lambda: len(page.evaluate("window.fates")) == 30, 30, "every step's fate, at b")
    assert page.evaluate("window.fates") == [True] * 30
    assert ticks(b) == list(range(1, 31)), "every tick applied once, none lost"
    wait_until(lambda: page.evaluate(top) == 30, 20, "the presenter following at b")
