"""What the client does when messages are lost or flowd says no: a STEP or a SNAPSHOT_REQUEST lost on the way is
sent again while connected; a presenter registered again holds its screens' steps until its screens are reported
visible again; an inspector's steps are numbered across sessions; a HELLO refused for good fails `connect` at
once; instances that answer with REDIRECTs to each other, or whose store does not answer, are tried again after a
wait that doubles; a blocking call gives up after its timeout; a command placing a screen twice changes nothing.

Bad input tried: a relay that loses the first STEP, the first SNAPSHOT_REQUEST; peers that answer every HELLO with a
REDIRECT to each other or with `storeUnavailable`; a second stepper of a name already connected (`nameTaken`); a
paused flowd; a `setTabs` with one id twice."""

from __future__ import annotations

import asyncio
import json
import signal
import threading
import time
from pathlib import Path
from typing import Any

import pytest
import zmq

import flowbus
from flowbus.screens import CommandMisfit, Screens

#: A flowd quick to notice silence: what is unanswered for 1 s is overdue.
QUICK = ("--ephemeral", "--heartbeat-interval", "200", "--heartbeat-timeout", "1000")


class LossyRelay:
    """Stands between clients and a real flowd's control endpoint: forwards every message both ways, each client
    under its own routing id, and loses the first message of each type in `lose` (as a full queue would)."""

    def __init__(self, front: str, control: str, lose: list[str]) -> None:
        self.front = front
        self.control = control
        self.lose = list(lose)
        self.lost: list[str] = []
        self.stopping = False
        self.ready = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()
        assert self.ready.wait(5)

    def _run(self) -> None:
        context = zmq.Context.instance()
        front = context.socket(zmq.ROUTER)
        front.setsockopt(zmq.LINGER, 0)
        front.bind(self.front)
        self.ready.set()
        backs: dict[bytes, zmq.Socket[bytes]] = {}
        owners: dict[zmq.Socket[bytes], bytes] = {}
        poller = zmq.Poller()
        poller.register(front, zmq.POLLIN)
        while not self.stopping:
            for socket, _ in poller.poll(50):
                if socket is front:
                    identity, *frames = front.recv_multipart()
                    back = backs.get(identity)
                    if back is None:
                        back = context.socket(zmq.DEALER)
                        back.setsockopt(zmq.LINGER, 0)
                        back.setsockopt(zmq.ROUTING_ID, identity)
                        back.connect(self.control)
                        backs[identity] = back
                        owners[back] = identity
                        poller.register(back, zmq.POLLIN)
                    kind = frames[1].decode() if len(frames) > 1 else ""
                    if kind in self.lose:
                        self.lose.remove(kind)
                        self.lost.append(kind)
                        continue
                    back.send_multipart(frames)
                else:
                    frames = socket.recv_multipart()
                    front.send_multipart([owners[socket], *frames])
        for socket in [front, *backs.values()]:
            socket.close(0)

    def stop(self) -> None:
        self.stopping = True
        self.thread.join(5)


class Refuser:
    """Peers that answer every HELLO the same way (a REDIRECT to the next of them, or an ERROR), counting HELLOs."""

    def __init__(self, fronts: list[str], answer: str) -> None:
        self.fronts = fronts
        self.answer = answer
        self.hellos = 0
        self.stopping = False
        self.ready = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()
        assert self.ready.wait(5)

    def _reply(self, index: int, hello: dict[str, Any]) -> list[bytes]:
        header = json.dumps({"id": 1, "sentAt": int(time.time() * 1000), "correlation": hello["id"]}).encode()
        if self.answer == "redirect":
            other = self.fronts[(index + 1) % len(self.fronts)]
            body = {"session": "s", "instance": f"i{index + 1}", "control": [other], "events": [other + "-events"]}
            return [b"FLOWBUS/1", b"REDIRECT", header, json.dumps(body).encode()]
        body = {"code": self.answer, "message": f"refused: {self.answer}"}
        return [b"FLOWBUS/1", b"ERROR", header, json.dumps(body).encode()]

    def _run(self) -> None:
        context = zmq.Context.instance()
        sockets = []
        for front in self.fronts:
            socket = context.socket(zmq.ROUTER)
            socket.setsockopt(zmq.LINGER, 0)
            socket.bind(front)
            sockets.append(socket)
        self.ready.set()
        poller = zmq.Poller()
        for socket in sockets:
            poller.register(socket, zmq.POLLIN)
        while not self.stopping:
            for socket, _ in poller.poll(50):
                routing, *frames = socket.recv_multipart()
                if len(frames) == 4 and frames[1] == b"HELLO":
                    self.hellos += 1
                    socket.send_multipart([routing, *self._reply(sockets.index(socket), json.loads(frames[2]))])
        for socket in sockets:
            socket.close(0)

    def stop(self) -> None:
        self.stopping = True
        self.thread.join(5)


def through(relay: LossyRelay, daemon: Any, **given: Any) -> flowbus.Options:
    return flowbus.Options([flowbus.Endpoints(relay.front, daemon.events)], **given)


def test_a_step_lost_on_the_way_is_sent_again_while_connected(flowd: Any, tmp_path: Path) -> None:
    daemon = flowd(*QUICK)
    relay = LossyRelay(f"ipc://{tmp_path}/relay", daemon.control, lose=["STEP"])

    async def scenario() -> flowbus.Fate:
        async with await flowbus.Stepper.connect("app", "py-lost", through(relay, daemon)) as stepper:
            # The connection stays up (heartbeats pass): only the client's own resend brings the step to flowd.
            return await stepper.emit("dashboardIsRequired", timeout=10)

    try:
        fate = asyncio.run(scenario())
    finally:
        relay.stop()
    assert relay.lost == ["STEP"]
    assert fate.accepted, fate


def test_a_snapshot_request_lost_on_the_way_is_made_again(flowd: Any, tmp_path: Path) -> None:
    daemon = flowd(*QUICK)
    relay = LossyRelay(f"ipc://{tmp_path}/relay", daemon.control, lose=["SNAPSHOT_REQUEST"])

    async def scenario() -> list[str]:
        async with await flowbus.Stepper.connect("app", "py-snap", daemon.options()) as stepper:
            assert (await stepper.emit("dashboardIsRequired")).accepted
            async with await flowbus.Presenter.connect("main", "py-snap", through(relay, daemon)) as presenter:
                await presenter.wait_for(lambda screens: screens.root is not None, timeout=10)
                return [screen.name for screen in presenter.screens.nodes.values()]

    try:
        names = asyncio.run(scenario())
    finally:
        relay.stop()
    assert relay.lost == ["SNAPSHOT_REQUEST"]
    assert "WishlistTable" in names, names


def test_a_presenter_holds_its_screens_steps_until_it_has_reported_them_again(flowd: Any) -> None:
    """flowd killed -9 and started again restores the session with the screens hidden (their presenter is away): a
    tap made meanwhile goes only once the presenter has reported its screens visible again, and passes."""
    daemon = flowd()  # durable

    async def scenario() -> flowbus.Fate:
        options = daemon.options(connect_timeout=10.0)
        stepper = await flowbus.Stepper.connect("app", "py-held", options)
        presenter = await flowbus.Presenter.connect("main", "py-held", options)
        assert (await stepper.emit("dashboardIsRequired")).accepted
        await presenter.wait_for(lambda screens: any(s.name == "WishlistTable" for s in screens.nodes.values()))
        table = next(s.id for s in presenter.screens.nodes.values() if s.name == "WishlistTable")
        async with await flowbus.Inspector.connect(options=options) as inspector:
            deadline = asyncio.get_running_loop().time() + 10
            while True:
                tree = await inspector.query("tree", session="py-held")
                if any(s["id"] == table and s["visibility"] == "visible" for s in tree["screens"]):
                    break
                assert asyncio.get_running_loop().time() < deadline, tree
                await asyncio.sleep(0.05)
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(None, daemon.kill)
        tap = presenter.steps.submit("STEP", {"step": {"name": "movieIsPicked", "parameters": {"withId": 7}},
                                              "presentable": table})
        await loop.run_in_executor(None, daemon.start)
        fate = await asyncio.wait_for(tap, 20)
        await presenter.close()
        await stepper.close()
        return fate

    fate = asyncio.run(scenario())
    assert fate.accepted, fate


def test_an_inspector_numbers_its_steps_across_the_sessions_it_injects_into(flowd: Any) -> None:
    daemon = flowd("--ephemeral")

    async def scenario() -> list[flowbus.Fate]:
        options = daemon.options()
        for session in ("py-a", "py-b"):
            async with await flowbus.Stepper.connect("app", session, options) as stepper:
                assert (await stepper.emit("dashboardIsRequired")).accepted
        fates = []
        async with await flowbus.Inspector.connect("app", options=options) as inspector:
            for session in ("py-a", "py-b", "py-a", "py-b", "py-a"):
                fates.append(await asyncio.wait_for(inspector.emit("dashboardIsRequired", session), 5))
            # Into a session flowd does not have: its fate, and the numbering there starts wherever it is.
            fates.append(await asyncio.wait_for(inspector.emit("dashboardIsRequired", "py-none"), 5))
        return fates

    fates = asyncio.run(scenario())
    assert [fate.accepted for fate in fates] == [True] * 5 + [False], [str(fate) for fate in fates]
    assert fates[-1].reason == "unknownSession"


def test_a_hello_refused_for_good_fails_connect_at_once(flowd: Any) -> None:
    daemon = flowd("--ephemeral")

    async def scenario() -> flowbus.FlowBusError:
        async with await flowbus.Stepper.connect("app", "py-taken", daemon.options()):
            with pytest.raises(flowbus.FlowBusError) as refused:
                # Far below its connect timeout: retrying the HELLO until then would fail this wait.
                await asyncio.wait_for(
                    flowbus.Stepper.connect("app", "py-taken", daemon.options(id="another", connect_timeout=60)), 5
                )
            return refused.value

    error = asyncio.run(scenario())
    assert error.code == "nameTaken", error


@pytest.mark.parametrize(
    "answer, listed, code",
    [
        # Instances that send the client to each other: it follows, later each time.
        ("redirect", 1, "unreachable"),
        # A fleet whose stores do not answer: the next instance, later each time.
        ("storeUnavailable", 2, "storeUnavailable"),
    ],
)
def test_moving_between_instances_without_a_welcome_waits_longer_each_time(
    tmp_path: Path, answer: str, listed: int, code: str
) -> None:
    fronts = [f"ipc://{tmp_path}/one", f"ipc://{tmp_path}/two"]
    peers = Refuser(fronts, answer)
    try:
        options = flowbus.Options([flowbus.Endpoints(front, front + "-events") for front in fronts[:listed]],
                                  connect_timeout=2.5)
        with pytest.raises(flowbus.FlowBusError) as failed:
            asyncio.run(flowbus.Stepper.connect("app", "s", options))
    finally:
        peers.stop()
    assert failed.value.code == code, failed.value
    # Waits of 0, 0.2, 0.4, 0.8 s...: a handful of HELLOs in 2.5 s, where moving at once makes hundreds.
    assert 2 <= peers.hellos <= 10, peers.hellos


def test_a_blocking_call_gives_up_after_its_timeout(flowd: Any) -> None:
    from flowbus import blocking

    daemon = flowd("--ephemeral")
    with blocking.Stepper.connect("app", "py-paused", daemon.options()) as stepper:
        assert daemon.process is not None
        daemon.process.send_signal(signal.SIGSTOP)
        try:
            with pytest.raises(flowbus.FlowBusError) as late:
                stepper.emit("dashboardIsRequired", timeout=0.5)
            assert late.value.code == "timeout"
        finally:
            daemon.process.send_signal(signal.SIGCONT)
        # The step given up on is still decided; the next one too.
        assert stepper.emit("dashboardIsRequired").accepted


def test_clients_of_no_session_are_known_by_their_name(flowd: Any) -> None:
    daemon = flowd("--ephemeral")

    async def scenario() -> list[dict[str, Any]]:
        options = daemon.options()
        async with await flowbus.Guard.connect("parental", lambda question: True, options=options):
            async with await flowbus.Inspector.connect("auditor", options=options) as inspector:
                registrations: list[dict[str, Any]] = await inspector.query("registrations")
                return registrations

    ids = {peer["name"]: peer["id"] for peer in asyncio.run(scenario())}
    assert ids["parental"] == "parental" and ids["auditor"] == "auditor", ids


def test_a_command_placing_a_screen_twice_changes_nothing() -> None:
    screens = Screens()
    screens.apply({"op": "setWindowRoot", "presentable": {"id": 1, "style": "tabs", "name": "Tabs"}})
    twice = {"op": "setTabs", "container": 1, "selected": 0,
             "tabs": [{"id": 2, "style": "screen", "name": "A"}, {"id": 2, "style": "screen", "name": "B"}]}
    with pytest.raises(CommandMisfit):
        screens.apply(twice)
    assert list(screens.nodes) == [1] and screens[1].items == []


def test_options_with_an_id_alone_find_flowd_as_the_environment_says(flowd: Any, monkeypatch: Any) -> None:
    from flowbus import blocking

    daemon = flowd("--ephemeral")
    monkeypatch.setenv("FLOWBUS_CONTROL", daemon.control)
    monkeypatch.setenv("FLOWBUS_EVENTS", daemon.events)
    with blocking.Stepper.connect("app", "py-id", flowbus.Options(id="py-id/app-given")) as stepper:
        assert stepper.welcome["session"] == "py-id"
        assert stepper.emit("dashboardIsRequired").accepted
