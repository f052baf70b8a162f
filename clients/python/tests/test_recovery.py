"""What the client keeps when a process dies: flowd killed -9 under a stepper and a presenter (every step gets one
fate, none applied twice), a presenter killed and started again (back on the same screens), and a stepper killed
with steps in flight (what flowd took is applied once, and the next process numbers after it)."""

from __future__ import annotations

import asyncio
from typing import Any

import flowbus
from conftest import wait_until

DASHBOARD = flowbus.Step("dashboardIsRequired")


def dashboards(daemon: Any, session: str) -> int:
    from flowbus import blocking

    with blocking.Inspector.connect(options=daemon.options()) as inspector:
        tree = inspector.query("tree", session=session)
    return sum(1 for flow in tree["flows"] if flow["name"] == "DashboardFlow")


def steps_in(daemon: Any) -> int:
    from flowbus import blocking

    with blocking.Inspector.connect(options=daemon.options()) as inspector:
        return int(inspector.query("stats").get("stepsIn", 0))


def test_flowd_killed_under_the_clients_loses_and_doubles_nothing(flowd: Any) -> None:
    daemon = flowd()  # durable: its state directory

    async def scenario() -> list[flowbus.Fate]:
        options = daemon.options(connect_timeout=10.0)
        presenter = await flowbus.Presenter.connect("main", "py-durable", options)
        stepper = await flowbus.Stepper.connect("app", "py-durable", options)
        fates: list[asyncio.Future[flowbus.Fate]] = []
        for index in range(60):
            fates.append(stepper.post(DASHBOARD))
            await asyncio.sleep(0.02)
            if index == 20:
                await asyncio.get_running_loop().run_in_executor(None, daemon.kill)
            if index == 25:
                await asyncio.get_running_loop().run_in_executor(None, daemon.start)
        decided = await asyncio.wait_for(asyncio.gather(*fates), 30)
        await stepper.close()
        await presenter.close()
        return decided

    fates = asyncio.run(scenario())
    accepted = sum(1 for fate in fates if fate.accepted)
    # Each step has exactly one fate; each accepted one pushed one dashboard, none twice (after the restart too).
    assert len(fates) == 60 and accepted >= 30, [str(fate) for fate in fates]
    assert all(fate.accepted or fate.reason == "notVisible" for fate in fates), [str(f) for f in fates if not f.accepted]
    assert dashboards(daemon, "py-durable") == accepted


PRESENTER = """
import asyncio, flowbus
async def main():
    presenter = await flowbus.Presenter.connect("main", "py-back")
    while True:
        await presenter.next_update()
        print("screens:", presenter.screens.describe().replace(chr(10), " | "), flush=True)
asyncio.run(main())
"""


def test_a_presenter_killed_and_started_again_comes_back_on_the_same_screens(flowd: Any, program: Any) -> None:
    daemon = flowd()
    first = program(PRESENTER, daemon.env)

    async def navigate() -> None:
        async with await flowbus.Stepper.connect("app", "py-back", daemon.options()) as stepper:
            assert (await stepper.emit(DASHBOARD)).accepted
            assert (await stepper.emit(flowbus.Step("settingsAreRequired"))).reason in ("notVisible", "unboundStepper",
                                                                                      "unhandled", "notDeclaredForSender",
                                                                                      None)

    asyncio.run(navigate())
    before = first.wait_for("WishlistTable")
    shown = wait_until(lambda: [line for line in first.lines if "screens:" in line][-1], 5, "the last screens")
    first.kill()
    second = program(PRESENTER, daemon.env)
    after = second.wait_for("WishlistTable")
    assert after == shown, (before, shown, after)


STEPPER = """
import asyncio, flowbus
async def main():
    stepper = await flowbus.Stepper.connect("app", "py-killed")
    fates = [stepper.post(flowbus.Step("dashboardIsRequired")) for _ in range(200)]
    print("posted", flush=True)
    await asyncio.sleep(30)
asyncio.run(main())
"""


def test_a_stepper_killed_with_steps_in_flight_loses_and_doubles_nothing(flowd: Any, program: Any) -> None:
    daemon = flowd()

    async def presenter_and_wait() -> None:
        presenter = await flowbus.Presenter.connect("main", "py-killed", daemon.options())
        killed = program(STEPPER, daemon.env)
        killed.wait_for("posted")
        # Killed once flowd has taken some of its steps (waited for off this loop, which serves the presenter).
        await asyncio.get_running_loop().run_in_executor(
            None, lambda: wait_until(lambda: steps_in(daemon) > 0, 10, "flowd to take a step of the stepper")
        )
        killed.kill()
        # What flowd took of the 200, each once; the next process numbers after it.
        async with await flowbus.Stepper.connect("app", "py-killed", daemon.options()) as again:
            taken = again.welcome.get("lastSequence") or 0
            assert 0 < taken <= 200, again.welcome
            before = await asyncio.get_running_loop().run_in_executor(None, dashboards, daemon, "py-killed")
            fate = await again.emit(DASHBOARD)
            assert fate.accepted, fate
            after = await asyncio.get_running_loop().run_in_executor(None, dashboards, daemon, "py-killed")
            # Every step flowd took was applied once (each pushed one dashboard), and the new one after them.
            assert before == taken and after == before + 1, (taken, before, after)
        await presenter.close()

    asyncio.run(presenter_and_wait())


def test_a_flowd_paused_past_its_heartbeat_timeout_is_left_and_found_again(flowd: Any) -> None:
    """flowd stopped (SIGSTOP) for longer than the heartbeat timeout it gave (1 s): the stepper stops hearing it, opens
    a new connection, says HELLO again once flowd runs again (SIGCONT), and a step emitted meanwhile gets its fate."""
    import signal

    daemon = flowd("--heartbeat-interval", "200", "--heartbeat-timeout", "1000")

    async def scenario() -> None:
        async with await flowbus.Stepper.connect("app", "py-paused", daemon.options()) as stepper:
            assert (await stepper.emit(DASHBOARD)).accepted
            assert daemon.process is not None
            daemon.process.send_signal(signal.SIGSTOP)
            try:
                pending = stepper.post(DASHBOARD)
                deadline = asyncio.get_running_loop().time() + 5
                while stepper.link.registered.is_set():
                    assert asyncio.get_running_loop().time() < deadline, "still registered with a flowd that says nothing"
                    await asyncio.sleep(0.05)
            finally:
                daemon.process.send_signal(signal.SIGCONT)
            fate = await asyncio.wait_for(pending, 15)
            assert fate.accepted, fate
        assert dashboards(daemon, "py-paused") == 2

    asyncio.run(scenario())
