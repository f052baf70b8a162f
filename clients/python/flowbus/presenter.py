"""A presenter: applies the navigation commands flowd sends it to its screens, and reports what it shows. It follows
the specification's resync rule: it subscribes to its commands, waits for flowd's HEARTBEAT on that topic, asks
for a snapshot, applies each next batch only when its sequence is the next and its epoch the same, and asks again
on a gap, another epoch, a batch that does not fit, a new events connection or a session created anew."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .errors import FlowBusError
from .fate import Fate
from .link import Link
from .options import Options
from .screens import CommandMisfit, Screens
from .step import Step, StepRepresentable, as_step
from .stepper import Steps
from .wire import JSONObject, Message

log = logging.getLogger("flowbus")


@dataclass(frozen=True)
class Update:
    """What changed the screens: `commands` applied (a navigation), or `snapshot` True when they were rebuilt whole."""

    commands: list[dict[str, Any]]
    snapshot: bool
    sequence: int


class Presenter:
    """`await Presenter.connect("main", session="kiosk-7")`; its `screens` follow flowd's commands, and
    `await presenter.next_update()` waits for the next change. By default it reports as visible what its screens
    show (a stack's top, the selected tab, a modal over what it covers) and as hidden what they stop showing."""

    def __init__(self, name: str, session: str, options: Options, report_shown: bool,
                 on_update: Callable[[Presenter, Update], None] | None) -> None:
        self.name = name
        self.session = session
        self.screens = Screens()
        self.sequence = 0
        self.epoch: str | None = None
        self.report_shown = report_shown
        self.on_update = on_update
        self.updates: asyncio.Queue[Update] = asyncio.Queue(maxsize=1000)
        self.reported: dict[int, str] = {}
        self.buffered: list[JSONObject] = []
        self.synced = False
        self.subscribed = False
        self.asked = False
        #: When the last SNAPSHOT_REQUEST went (asked again when unanswered for a heartbeat timeout).
        self.asked_at = 0.0
        #: Since when the presenter waits for flowd to confirm its subscription.
        self.subscribing_since: float | None = None
        self.topic = f"cmd/{session}/{name}"
        self.link = Link(
            "presenter", session=session, name=name, options=options, topics=[self.topic],
            on_welcome=self._welcomed, on_message=self._message, on_published=self._published,
            on_events_connected=self._events_connected, on_overdue=self._overdue,
        )
        self.steps = Steps(self.link, max(1, min(options.max_outstanding_steps, 256)))

    @staticmethod
    async def connect(
        name: str,
        session: str,
        options: Options | None = None,
        report_shown: bool = True,
        on_update: Callable[[Presenter, Update], None] | None = None,
    ) -> Presenter:
        if "/" in name:
            raise FlowBusError("invalidOptions", f"a presenter's name holds no '/': {name!r}")
        presenter = Presenter(name, session, options or Options.from_environment(), report_shown, on_update)
        await presenter.link.start()
        return presenter

    # MARK: The application's side

    async def next_update(self, timeout: float | None = None) -> Update:
        """The next change of the screens (raises TimeoutError after `timeout` seconds)."""
        return await asyncio.wait_for(self.updates.get(), timeout)

    async def wait_for(self, condition: Callable[[Screens], bool], timeout: float = 10.0) -> None:
        """Waits until `condition(screens)` holds (checked now, then at each change)."""
        async def waiting() -> None:
            while not condition(self.screens):
                await self.updates.get()
        await asyncio.wait_for(waiting(), timeout)

    def report(self, visibility: str, presentables: list[int]) -> None:
        """Reports screens `visible`, `hidden` or `dismissed` (only this presenter's own)."""
        if not presentables:
            return
        self.link.send("VISIBILITY", {"visibility": visibility, "presentables": list(presentables)})
        for id in presentables:
            self.reported[id] = visibility

    async def emit(self, step: Step | StepRepresentable | Any, presentable: int) -> Fate:
        """Emits a step as screen `presentable` (its flow's contribution takes it)."""
        return await self.steps.submit("STEP", {"step": as_step(step).json(), "presentable": presentable})

    def resync(self) -> None:
        """Asks flowd for the whole screen again (a snapshot)."""
        self.synced = False
        self._ask()

    async def close(self) -> None:
        self.steps.fail_all(FlowBusError("closed", "the presenter was closed"))
        await self.link.close()

    async def __aenter__(self) -> Presenter:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.close()

    # MARK: flowd's side

    def _welcomed(self, welcome: JSONObject) -> None:
        if self.report_shown:
            # flowd holds the screens hidden until they are reported again (after the snapshot): a screen's step
            # sent before would be dropped `notVisible`.
            self.steps.hold()
        self.steps.welcomed(welcome)
        if welcome.get("sessionCreated") is True and self.screens.root is not None:
            # The session started anew: command sequences start over.
            self.screens.clear()
            self.epoch = None
        self.synced = False
        self.asked = False
        asyncio.get_running_loop().call_soon(self._ask)

    def _ask(self) -> None:
        # After WELCOME, and once flowd confirmed the subscription: a snapshot then leaves no gap.
        if self.subscribed and self.link.registered.is_set() and not self.asked:
            self.asked = True
            self.asked_at = asyncio.get_running_loop().time()
            self.link.send("SNAPSHOT_REQUEST", {"presenter": self.name})

    def _events_connected(self) -> None:
        if not self.subscribed and self.subscribing_since is None:
            self.subscribing_since = asyncio.get_running_loop().time()

    def _overdue(self, moment: float) -> None:
        self.steps.overdue(moment)
        if self.asked and not self.synced and self.asked_at < moment:
            log.info("flowbus %s: no answer to the snapshot request: asking again", self.link.id)
            self.asked = False
            self._ask()
        if not self.subscribed and self.subscribing_since is not None and self.subscribing_since < moment:
            # A confirmation can be lost (a full queue): after a while the subscription is taken as live.
            log.info("flowbus %s: flowd did not confirm the subscription: resyncing anyway", self.link.id)
            self.subscribed = True
            self.subscribing_since = None
            self._ask()

    def _published(self, topic: str, message: Message) -> None:
        if topic != self.topic:
            return
        if message.type == "HEARTBEAT":
            # flowd confirms the subscription (again, after the events connection was made anew): resync.
            self.subscribed = True
            self.subscribing_since = None
            self.synced = False
            self.asked = False
            self._ask()
        elif message.type == "COMMANDS":
            if not self.synced:
                self.buffered.append(message.body)
                del self.buffered[:-1000]
            else:
                self._batch(message.body)

    def _message(self, message: Message) -> None:
        if self.steps.answered(message):
            return
        if message.type == "SNAPSHOT":
            self._snapshot(message.body)
        elif message.type == "ERROR":
            log.warning("flowbus %s: flowd: %s: %s", self.link.id, message.body.get("code"), message.body.get("message"))

    def _snapshot(self, body: JSONObject) -> None:
        if body.get("presenter") not in (None, self.name):
            return
        if self.synced and not self.asked:
            return  # not asked for (an answer to a request already answered): the screens follow the batches
        sequence = body.get("sequence")
        if self.synced and body.get("epoch") == self.epoch and isinstance(sequence, int) and sequence < self.sequence:
            return  # an answer to an earlier request: what was applied since is newer
        self.asked = False
        self.screens.clear()
        self.reported.clear()
        try:
            for command in body.get("commands") or []:
                self.screens.apply(command)
        except CommandMisfit as misfit:
            log.warning("flowbus %s: a snapshot that does not fit (%s): asking again", self.link.id, misfit)
            self.screens.clear()
            self._ask()
            return
        self.sequence = int(body.get("sequence") or 0)
        self.epoch = body.get("epoch") if isinstance(body.get("epoch"), str) else None
        self.synced = True
        self._changed(Update(list(body.get("commands") or []), True, self.sequence), everything=True)
        # The screens are reported again: their steps may go.
        self.steps.release()
        buffered, self.buffered = self.buffered, []
        for batch in buffered:
            if isinstance(batch.get("sequence"), int) and batch["sequence"] > self.sequence:
                self._batch(batch)
                if not self.synced:
                    break

    def _batch(self, body: JSONObject) -> None:
        sequence = body.get("sequence")
        if body.get("epoch") == self.epoch and isinstance(sequence, int) and sequence <= self.sequence:
            return  # already in what was applied (a snapshot that came first)
        if body.get("epoch") != self.epoch or sequence != self.sequence + 1:
            log.info("flowbus %s: batch %s after %s (epoch %s): resyncing", self.link.id, sequence, self.sequence,
                     body.get("epoch"))
            self.resync()
            return
        commands = list(body.get("commands") or [])
        try:
            for command in commands:
                self.screens.apply(command)
        except CommandMisfit as misfit:
            log.warning("flowbus %s: commands that do not fit the screens (%s): resyncing", self.link.id, misfit)
            self.resync()
            return
        self.sequence = sequence
        self._changed(Update(commands, False, sequence))

    def _changed(self, update: Update, everything: bool = False) -> None:
        if self.report_shown:
            visible = set(self.screens.visible())
            shown = [id for id in self.screens.visible() if everything or self.reported.get(id) != "visible"]
            hidden = [id for id, said in self.reported.items() if said == "visible" and id not in visible and id in self.screens]
            for id in [id for id in self.reported if id not in self.screens]:
                del self.reported[id]
            self.report("hidden", hidden)
            self.report("visible", shown)
        if self.on_update is not None:
            self.on_update(self, update)
        if self.updates.full():
            self.updates.get_nowait()
        self.updates.put_nowait(update)
