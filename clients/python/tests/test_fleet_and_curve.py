"""The client in a fleet and with CURVE: two flowd on one PostgreSQL (a real server, run as an unprivileged user in a
temporary directory), a stepper and a presenter given both instances, sent on by REDIRECT, moving to the other when
theirs is killed -9, every step applied once; and a flowd that requires CURVE, with per-session grants: the keys
granted get in, a session not granted and a wrong server key do not."""

from __future__ import annotations

import asyncio
import glob
import os
import pwd
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import flowbus
from conftest import BIN, ROOT, wait_until

TICKER = ROOT / "Tests" / "Browser" / "flows" / "ticker.yaml"
POSTGRES = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda path: int(path.split("/")[-2]))


def as_postgres() -> list[str]:
    """The server runs as `postgres` when the tests run as root (PostgreSQL refuses root)."""
    return ["setpriv", "--reuid=postgres", "--regid=postgres", "--clear-groups"] if os.getuid() == 0 else []


@pytest.fixture
def postgres() -> Iterator[str]:
    if not POSTGRES:
        pytest.fail("PostgreSQL's server is not installed (scripts/bootstrap --tests installs it)")
    binaries = POSTGRES[-1]
    directory = Path(tempfile.mkdtemp(prefix="flowbus-py-pg-"))  # not under pytest's: the server's user reaches it
    if os.getuid() == 0:
        entry = pwd.getpwnam("postgres")
        os.chown(directory, entry.pw_uid, entry.pw_gid)
    subprocess.run(as_postgres() + [f"{binaries}/initdb", "-D", str(directory / "data"), "-A", "trust", "-U",
                                    "flowbus", "--no-sync"], check=True, capture_output=True)
    server = subprocess.Popen(
        as_postgres() + [f"{binaries}/postgres", "-D", str(directory / "data"), "-k", str(directory), "-c",
                         "listen_addresses=", "-c", "fsync=off"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )

    def psql(sql: str) -> int:
        return subprocess.run([f"{binaries}/psql", "-X", "-q", "-h", str(directory), "-U", "flowbus", "-d",
                               "postgres", "-c", sql], capture_output=True).returncode

    try:
        wait_until(lambda: psql("SELECT 1") == 0, 30, "PostgreSQL to start")
        assert psql("CREATE DATABASE fleet") == 0
        yield f"postgresql:///fleet?host={directory}&user=flowbus"
    finally:
        server.send_signal(2)  # a fast shutdown: flowd may still be connected
        server.wait(30)
        shutil.rmtree(directory, ignore_errors=True)


def test_a_fleet_sends_the_clients_on_and_they_move_when_their_instance_dies(flowd: Any, postgres: str) -> None:
    a = flowd("--store", postgres, "--instance", "a", "--lease", "1s", flows=TICKER)
    b = flowd("--store", postgres, "--instance", "b", "--lease", "1s", flows=TICKER)
    first_a = flowbus.Options([flowbus.Endpoints(a.control, a.events), flowbus.Endpoints(b.control, b.events)],
                              connect_timeout=20.0)
    first_b = first_a.replacing(endpoints=list(reversed(first_a.endpoints)))

    async def scenario() -> list[int]:
        stepper = await flowbus.Stepper.connect("ticker", "kiosk", first_a)  # creates the session at a
        presenter = await flowbus.Presenter.connect("main", "kiosk", first_b)  # b sends it on to a
        assert presenter.link.endpoints.control == a.control
        fates = [await stepper.emit(flowbus.Step("tick", {"n": n})) for n in range(1, 11)]
        await asyncio.get_running_loop().run_in_executor(None, a.kill)
        # Emitted while a is dead: kept, and sent to b once b has taken the session over.
        fates += await asyncio.wait_for(
            asyncio.gather(*[stepper.post(flowbus.Step("tick", {"n": n})) for n in range(11, 21)]), 30
        )
        assert all(fate.accepted for fate in fates), [str(fate) for fate in fates]
        await presenter.wait_for(lambda screens: sum(1 for s in screens.nodes.values() if s.name == "Tick") == 20, 20)
        assert presenter.link.endpoints.control == b.control and stepper.link.endpoints.control == b.control
        async with await flowbus.Inspector.connect(session="kiosk", options=first_b) as inspector:
            tree = await inspector.query("tree")
        await stepper.close()
        await presenter.close()
        return sorted(screen["parameters"]["n"] for screen in tree["screens"] if screen["name"] == "Tick")

    assert asyncio.run(scenario()) == list(range(1, 21))  # each tick once


def keys() -> tuple[str, str]:
    """A CURVE key pair from `flowd keygen`: (public, secret)."""
    said = subprocess.run([str(BIN / "flowd"), "keygen"], capture_output=True, text=True, check=True).stdout
    found = dict(line.split(": ", 1) for line in said.strip().splitlines())
    return found["public"], found["secret"]


def test_curve_with_grants(flowd: Any) -> None:
    server_public, server_secret = keys()
    app_public, app_secret = keys()
    other_public, _ = keys()
    daemon = flowd("--ephemeral", f"--curve-secret-key={server_secret}",
                   f"--authorize=py/app={app_public}:py-granted:stepper")
    granted = daemon.options(curve=flowbus.curve_keys(app_secret, server_public), id="py/app", connect_timeout=3.0)

    async def scenario() -> None:
        async with await flowbus.Stepper.connect("app", "py-granted", granted) as stepper:
            assert (await stepper.emit(flowbus.Step("dashboardIsRequired"))).accepted
        with pytest.raises(flowbus.FlowBusError) as refused:
            # The key is bound to one id, and with CURVE flowd hands a connected id to no other connection while the
            # first (just closed, its BYE lingering) is there: the client opens a new connection after four
            # unanswered HELLOs, as the specification advises, so this attempt is given the time for it.
            await flowbus.Stepper.connect("app", "py-elsewhere", granted.replacing(connect_timeout=10.0))
        assert refused.value.code == "notAllowed", refused.value
        with pytest.raises(flowbus.FlowBusError) as wrong:
            await flowbus.Stepper.connect("app", "py-granted", granted.replacing(
                curve=flowbus.curve_keys(app_secret, other_public)))
        assert wrong.value.code == "unreachable", wrong.value

    asyncio.run(scenario())
