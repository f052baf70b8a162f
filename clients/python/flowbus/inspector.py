"""An inspector: asks flowd what it holds (QUERY: sessions, trees, drops, stats...) and, as flowctl does, may
inject steps into a session as a named stepper or as one of its screens."""

from __future__ import annotations

import asyncio
import itertools
import os
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from .errors import FlowBusError
from .fate import Fate
from .link import Link
from .options import Options
from .step import Step, StepRepresentable, as_step
from .stepper import Steps
from .wire import JSONObject, Message


@dataclass(frozen=True)
class Event:
    """One event of the inspection stream: its kind (`stepFate`, `didNavigate`, `commands`...), its session (None
    for what belongs to none), when flowd produced it (ms since 1970), and its fields (the specification's EVENT
    table)."""

    kind: str
    session: str | None
    at: int
    fields: JSONObject


class Inspector:
    """`await Inspector.connect()`, then `await inspector.query("sessions")`."""

    def __init__(self, link: Link, steps: Steps) -> None:
        self.link = link
        #: The steps injected: numbered on the connection, across the sessions they go to (the specification's STEP).
        self.steps = steps
        self.queue: asyncio.Queue[Event | None] = asyncio.Queue(maxsize=100_000)
        #: Set once flowd confirmed the subscription (its HEARTBEAT on the topic): nothing published since is missed.
        self.watching = asyncio.Event()
        #: Events let go because the reader did not keep up (the queue holds 100 000).
        self.missed = 0

    @staticmethod
    async def connect(
        name: str | None = None,
        session: str | None = None,
        options: Options | None = None,
        watch: str | None = None,
    ) -> Inspector:
        """Registers an inspector named `name` (injected steps count as that stepper's; by default one of its own,
        `python-<pid>-<n>`), for one session or none. `watch`: a session whose events `events()` gives (`"*"` for
        every session)."""
        chosen = options or Options.from_environment()
        name = name or f"python-{os.getpid()}-{next(_numbers)}"
        holder: list[Inspector] = []
        topics = [] if watch is None else ["inb/" if watch == "*" else f"inb/{watch}/"]
        link = Link(
            "inspector", session=session, name=name, options=chosen, topics=topics,
            on_welcome=lambda welcome: holder[0].steps.welcomed(welcome) if holder else None,
            on_message=lambda message: holder[0]._message(message),
            on_overdue=lambda moment: holder[0].steps.overdue(moment) if holder else None,
            on_published=(lambda topic, message: holder[0]._published(watch, topic, message) if holder else None)
            if watch is not None else None,
        )
        inspector = Inspector(link, Steps(link, max(1, min(chosen.max_outstanding_steps, 256))))
        holder.append(inspector)
        await link.start()
        if watch is not None:
            try:
                await asyncio.wait_for(inspector.watching.wait(), chosen.connect_timeout)
            except TimeoutError:
                await inspector.close()
                raise FlowBusError("unreachable", f"flowd did not confirm the subscription to {topics[0]}") from None
        return inspector

    def _message(self, message: Message) -> None:
        self.steps.answered(message)

    def _published(self, watch: str | None, topic: str, message: Message) -> None:
        if message.type == "HEARTBEAT" and topic in self.link.topics:
            self.watching.set()
        if message.type != "EVENTS":
            return
        session = message.body.get("session")
        if watch not in (None, "*") and session != watch:
            return  # a session whose name only starts with the one watched
        for entry in message.body.get("events") or []:
            if not isinstance(entry, dict):
                continue
            event = Event(str(entry.get("kind", "")), session if isinstance(session, str) else None,
                          int(entry.get("at") or 0), dict(entry.get("fields") or {}))
            if self.queue.full():
                self.queue.get_nowait()
                self.missed += 1
            self.queue.put_nowait(event)

    async def events(self) -> AsyncIterator[Event]:
        """The events of the session watched, as they come (connect with `watch=`)."""
        while True:
            event = await self.queue.get()
            if event is None:
                return
            yield event

    async def query(
        self, what: str, arguments: JSONObject | None = None, session: str | None = None, timeout: float = 5.0
    ) -> Any:
        """A QUERY's result (`sessions`, `registrations`, `tree`, `drops`, `steps`, `flows`, `stats`, `store`,
        `fleet`, `endSession`); raises FlowBusError with flowd's code (`unknownSession`, `unknownQuery`...)."""
        body: JSONObject = {"what": what}
        if arguments is not None:
            body["arguments"] = dict(arguments)  # the caller's own stays as it was
        if session is not None:
            body.setdefault("arguments", {})["session"] = session
        reply = await self.link.request("QUERY", body, timeout=timeout)
        return reply.body.get("result")

    async def emit(
        self, step: Step | StepRepresentable | Any, session: str, presentable: int | None = None
    ) -> Fate:
        """Injects a step into `session`: as the stepper named like this inspector, or as screen `presentable`."""
        body: JSONObject = {"step": as_step(step).json()}
        if presentable is not None:
            body["presentable"] = presentable
        return await self.steps.submit("STEP", body, session=session)

    async def close(self) -> None:
        self.steps.fail_all(FlowBusError("closed", "the inspector was closed"))
        await self.link.close()
        if self.queue.full():
            self.queue.get_nowait()
        self.queue.put_nowait(None)

    async def __aenter__(self) -> Inspector:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.close()




_numbers = itertools.count(1)
