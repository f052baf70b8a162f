"""The client's roles against a real flowd: a stepper's fates and refusals, steps as Enum members and dataclasses,
a presenter following commands and reporting what it shows, an inspector's queries, events and injections, a guard
answering, and the blocking API. Bad input tried: a step flowd does not know, a query of a session it does not
have, an unknown query, a value that is not a step, options with unpaired endpoint lists and a bad CURVE key, a
flowd that is not there, and a "flowd" that answers with frames that are not FlowBus."""

from __future__ import annotations

import asyncio
import enum
from dataclasses import dataclass, field
from typing import Any

import pytest
import zmq

import flowbus
from conftest import ROOT, wait_until


def run(coroutine: Any) -> Any:
    return asyncio.run(coroutine)


class AppStep(enum.Enum):
    DASHBOARD = "dashboardIsRequired"
    SETTINGS = "settingsAreRequired"


@dataclass
class MovieIsPicked:
    with_id: int = field(metadata={"step_parameter": "withId"})


def test_a_stepper_gets_each_steps_fate_and_flowds_refusals(flowd: Any) -> None:
    daemon = flowd("--ephemeral")

    async def scenario() -> None:
        async with await flowbus.Stepper.connect("app", "py-fates", daemon.options()) as stepper:
            assert stepper.welcome["sessionCreated"] is True
            fate = await stepper.emit(AppStep.DASHBOARD)
            assert fate.accepted and fate.flows == [1], fate
            dropped = await stepper.emit(flowbus.Step("settingsAreComplete"))
            assert not dropped.accepted and dropped.reason and dropped.explanation and dropped.remedy, dropped
            invalid = await stepper.emit(flowbus.Step("movieIsPicked", {"withId": "seven"}))
            assert invalid.reason == "invalidParameters" and invalid.parameter == "withId", invalid
            with pytest.raises(flowbus.FlowBusError) as refused:
                await stepper.emit(flowbus.Step("noSuchStep"))
            assert refused.value.code == "unknownStep"
            # The number of a refused step is taken all the same: the next step passes.
            assert (await stepper.emit(MovieIsPicked(with_id=7))).reason != "sequenceGap"
            with pytest.raises(TypeError):
                await stepper.emit(object())
            assert (await stepper.emit("dashboardIsRequired")).accepted  # a name will do
            # Refused by the client (not JSON) and by flowd before it looks at the number (a name over 128 bytes):
            # neither takes a number, and the next step passes at once (no sequenceGap).
            import datetime

            with pytest.raises(flowbus.FlowBusError) as unwritable:
                await stepper.emit(flowbus.Step("movieIsPicked", {"withId": datetime.date.today()}))
            assert unwritable.value.code == "invalidStep"
            with pytest.raises(flowbus.FlowBusError) as long:
                await stepper.emit(flowbus.Step("x" * 200))
            assert long.value.code == "tooLong"
            assert (await asyncio.wait_for(stepper.emit("dashboardIsRequired"), 5)).accepted
            await stepper.set_session_data("permissions", ["about"])

    run(scenario())


def test_steps_as_values() -> None:
    assert flowbus.as_step(AppStep.SETTINGS) == flowbus.Step("settingsAreRequired")
    assert flowbus.as_step("dashboardIsRequired") == flowbus.Step("dashboardIsRequired")
    assert flowbus.as_step(MovieIsPicked(with_id=3)) == flowbus.Step("movieIsPicked", {"withId": 3})

    class Custom:
        def to_step(self) -> flowbus.Step:
            return flowbus.Step("castIsPicked", {"withId": 1})

    assert flowbus.as_step(Custom()).name == "castIsPicked"
    assert str(flowbus.Step("movieIsPicked", {"withId": 3})) == "movieIsPicked(withId: 3)"


def test_a_presenter_follows_the_commands_and_reports_what_it_shows(flowd: Any) -> None:
    daemon = flowd("--ephemeral")

    async def scenario() -> None:
        presenter = await flowbus.Presenter.connect("main", "py-screens", daemon.options())
        stepper = await flowbus.Stepper.connect("app", "py-screens", daemon.options())
        assert (await stepper.emit(AppStep.DASHBOARD)).accepted
        await presenter.wait_for(lambda screens: any(s.name == "WishlistTable" for s in screens.nodes.values()))
        table = next(s.id for s in presenter.screens.nodes.values() if s.name == "WishlistTable")
        # Reported visible by the presenter: its own step passes (it would be dropped notVisible otherwise).
        fate = await wait_for_fate(lambda: presenter.emit(MovieIsPicked(with_id=7), table))
        assert fate.accepted, fate
        await presenter.wait_for(lambda screens: any(s.name == "MovieDetail" for s in screens.nodes.values()))
        visible = [presenter.screens[i].name for i in presenter.screens.visible()]
        assert visible[-1] == "MovieDetail" and "WishlistTable" not in visible, visible
        async with await flowbus.Inspector.connect(options=daemon.options()) as inspector:
            tree = await inspector.query("tree", session="py-screens")
            shown = {screen["name"]: screen["visibility"] for screen in tree["screens"]}
            assert shown["MovieDetail"] == "visible" and shown["WishlistTable"] == "hidden", shown
        await presenter.close()
        await stepper.close()

    run(scenario())


async def wait_for_fate(emit: Any, within: float = 5.0) -> flowbus.Fate:
    """The fate of a step emitted again until it passes (a report may still be on its way), or the last one."""
    deadline = asyncio.get_running_loop().time() + within
    while True:
        fate: flowbus.Fate = await emit()
        if fate.accepted or asyncio.get_running_loop().time() > deadline:
            return fate
        await asyncio.sleep(0.05)


def test_an_inspector_queries_watches_and_injects(flowd: Any) -> None:
    daemon = flowd("--ephemeral")

    async def scenario() -> None:
        inspector = await flowbus.Inspector.connect("app", options=daemon.options(), watch="*")
        stepper = await flowbus.Stepper.connect("app", "py-watched", daemon.options())
        assert [s["session"] for s in await inspector.query("sessions")] == ["py-watched"]
        with pytest.raises(flowbus.FlowBusError) as unknown:
            await inspector.query("tree", session="nothing-like-it")
        assert unknown.value.code == "unknownSession"
        with pytest.raises(flowbus.FlowBusError) as what:
            await inspector.query("everything")
        assert what.value.code == "unknownQuery"
        # Injected as the stepper "app" (the inspector's name).
        assert (await inspector.emit(AppStep.DASHBOARD, session="py-watched")).accepted
        kinds: list[str] = []
        async for event in inspector.events():
            kinds.append(event.kind)
            if event.kind == "stepFate" and event.fields.get("step", {}).get("name") == "dashboardIsRequired":
                break
        assert "sessionStarted" in kinds and "commands" in kinds, kinds
        await stepper.close()
        await inspector.close()

    run(scenario())


def test_a_guard_answers_its_questions(flowd: Any) -> None:
    daemon = flowd("--ephemeral", flows=ROOT / "Tests" / "Browser" / "flows" / "guarded.yaml")
    asked: list[flowbus.Question] = []

    async def scenario() -> None:
        def decide(question: flowbus.Question) -> bool:
            asked.append(question)
            return len(asked) == 1  # the first passes, the next is refused

        guard = await flowbus.Guard.connect("parental", decide, options=daemon.options())
        stepper = await flowbus.Stepper.connect("app", "py-guarded", daemon.options())
        assert (await stepper.emit(flowbus.Step("secret"))).accepted
        await stepper.emit(flowbus.Step("secret"))
        async with await flowbus.Inspector.connect(options=daemon.options()) as inspector:
            tree = await inspector.query("tree", session="py-guarded")
            names = [screen["name"] for screen in tree["screens"]]
            assert "Secret" in names and "Refused" in names, names
        assert [q.subject for q in asked] == ["adult", "adult"] and asked[0].step.name == "secret"
        await stepper.close()
        await guard.close()

    run(scenario())


def test_the_blocking_api(flowd: Any) -> None:
    from flowbus import blocking

    daemon = flowd("--ephemeral")
    with blocking.Stepper.connect("app", "py-blocking", daemon.options()) as stepper:
        assert stepper.emit("dashboardIsRequired").accepted
    with blocking.Inspector.connect(options=daemon.options()) as inspector:
        assert inspector.query("sessions")[0]["session"] == "py-blocking"


def test_bad_options_and_a_flowd_that_is_not_there_or_not_flowd(tmp_path: Any) -> None:
    with pytest.raises(flowbus.FlowBusError) as unpaired:
        flowbus.Options.from_environment({"FLOWBUS_CONTROL": "ipc://a,ipc://b", "FLOWBUS_EVENTS": "ipc://c"})
    assert unpaired.value.code == "invalidOptions"
    with pytest.raises(flowbus.FlowBusError) as key:
        flowbus.curve_keys("x" * 40, "y" * 39)
    assert key.value.code == "invalidOptions"

    nowhere = flowbus.Options([flowbus.Endpoints(f"ipc://{tmp_path}/none", f"ipc://{tmp_path}/none-events")],
                              connect_timeout=1.0)
    with pytest.raises(flowbus.FlowBusError) as absent:
        run(flowbus.Stepper.connect("app", "s", nowhere))
    assert absent.value.code == "unreachable" and "none" in absent.value.message

    # A "flowd" that answers every message with frames that are not FlowBus.
    context = zmq.Context.instance()
    impostor = context.socket(zmq.ROUTER)
    impostor.setsockopt(zmq.LINGER, 0)
    impostor.bind(f"ipc://{tmp_path}/impostor")
    stop = False

    def answer() -> None:
        while not stop:
            if impostor.poll(50):
                routing, *_ = impostor.recv_multipart()
                impostor.send_multipart([routing, b"HTTP/1.1 200 OK", b"{}"])

    import threading

    thread = threading.Thread(target=answer, daemon=True)
    thread.start()
    try:
        fake = flowbus.Options([flowbus.Endpoints(f"ipc://{tmp_path}/impostor", f"ipc://{tmp_path}/e")],
                               connect_timeout=1.5)
        with pytest.raises(flowbus.FlowBusError) as garbled:
            run(flowbus.Stepper.connect("app", "s", fake))
        assert garbled.value.code == "protocolError" and "frames" in garbled.value.message, garbled.value
    finally:
        stop = True
        thread.join()
        impostor.close(0)


def test_the_getting_started_programs_run(flowd: Any, program: Any) -> None:
    """The README's programs, as they are in examples/: the presenter prints the dashboard the app stepper asked for,
    and the guard lets an adult's step through."""
    examples = ROOT / "clients" / "python" / "examples"
    daemon = flowd("--ephemeral")
    presenter = program((examples / "presenter.py").read_text(), daemon.env)
    presenter.wait_for("after batch")  # its first snapshot: the app's root
    stepper = program((examples / "app_stepper.py").read_text(), daemon.env)
    stepper.wait_for("dashboardIsRequired: accepted by f1")
    presenter.wait_for("*       p5 WishlistTable (screen, stackItem)")

    guarded = flowd("--ephemeral", flows=ROOT / "Tests" / "Browser" / "flows" / "guarded.yaml")
    guard = program((examples / "guard.py").read_text(), guarded.env)

    async def secret() -> flowbus.Fate:
        async with await flowbus.Stepper.connect("app", "py-guard", guarded.options()) as stepper:
            async with await flowbus.Inspector.connect(options=guarded.options()) as inspector:
                await wait_until_registered(inspector, "parental")
            return await stepper.emit(flowbus.Step("secret"))

    assert run(secret()).accepted
    from flowbus import blocking

    with blocking.Inspector.connect(options=guarded.options()) as inspector:
        names = [screen["name"] for screen in inspector.query("tree", session="py-guard")["screens"]]
    assert "Secret" in names, names
    guard.kill()


async def wait_until_registered(inspector: flowbus.Inspector, name: str, within: float = 10.0) -> None:
    deadline = asyncio.get_running_loop().time() + within
    while not any(peer["name"] == name for peer in await inspector.query("registrations")):
        assert asyncio.get_running_loop().time() < deadline, f"{name} did not register within {within} s"
        await asyncio.sleep(0.05)


def test_an_idle_client_stays_registered_by_its_heartbeats(flowd: Any) -> None:
    """An idle stepper says HEARTBEAT every heartbeat interval flowd gave it (200 ms here): after 2.5 s of nothing
    else it is still registered, and its next step passes."""
    daemon = flowd("--ephemeral", "--heartbeat-interval", "200", "--heartbeat-timeout", "1000")

    async def scenario() -> None:
        async with await flowbus.Stepper.connect("app", "py-idle", daemon.options()) as stepper:
            hellos = stepper.link.next_id
            await asyncio.sleep(2.5)
            async with await flowbus.Inspector.connect(options=daemon.options()) as inspector:
                peers = [peer["id"] for peer in await inspector.query("registrations")]
            assert "py-idle/app" in peers, peers
            assert (await stepper.emit(flowbus.Step("dashboardIsRequired"))).accepted
            assert stepper.link.next_id - hellos >= 5, "heartbeats sent while idle"

    run(scenario())


def test_closing_says_bye_and_flowd_hears_it(flowd: Any) -> None:
    """A presenter that closes leaves flowd's registrations at once (its BYE reaches flowd: not after the heartbeat
    timeout, 5 s), and a query leaves the caller's arguments as they were."""
    daemon = flowd("--ephemeral")

    async def scenario() -> None:
        presenter = await flowbus.Presenter.connect("main", "py-bye", daemon.options())
        async with await flowbus.Inspector.connect(options=daemon.options()) as inspector:
            arguments = {"limit": 10}
            assert "py-bye/main" in [peer["id"] for peer in await inspector.query("registrations", arguments)]
            assert arguments == {"limit": 10}
            await presenter.close()
            deadline = asyncio.get_running_loop().time() + 2
            while "py-bye/main" in [peer["id"] for peer in await inspector.query("registrations")]:
                assert asyncio.get_running_loop().time() < deadline, "the presenter is still registered: no BYE"
                await asyncio.sleep(0.05)

    run(scenario())
