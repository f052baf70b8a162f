"""A stepper: emits steps into its session and learns each one's fate. Every step waits, numbered, until flowd
acknowledges it; after each WELCOME (a lost connection, flowd restarted, a fleet's instance changed) and on a
`sequenceGap` every waiting step is sent again with its number, so nothing is lost or applied twice."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .errors import FlowBusError
from .fate import Fate
from .link import Link, error_of
from .options import Options
from .step import Step, StepRepresentable, as_step
from .wire import JSONObject, Message

log = logging.getLogger("flowbus")


@dataclass
class _Waiting:
    type: str  # STEP or DEEPLINK
    body: JSONObject
    fate: asyncio.Future[Fate]
    session: str | None = None
    #: When it was last sent (None: not yet).
    sent_at: float | None = None


#: Refusals that come before flowd looks at a step's sequence (the specification's error order): no number taken.
TAKE_NO_NUMBER = frozenset(
    ["tooLarge", "malformedHeader", "malformedBody", "idNotAllowed", "tooLong", "notAllowed", "missingSession"]
)


class Steps:
    """The numbering and resending of one sender's STEPs and DEEPLINKs (a stepper's, a presenter's screens', an
    inspector's injections: numbered on its connection, across the sessions they go to)."""

    def __init__(self, link: Link, limit: int) -> None:
        self.link = link
        self.limit = limit
        #: While set, steps wait unsent: a presenter registered again holds its screens' steps until it has reported
        #: its screens visible again (flowd holds them hidden until then), for a heartbeat timeout at most.
        self.held_since: float | None = None
        self.next_sequence = 1
        self.highest_acknowledged = 0
        self.waiting: dict[int, _Waiting] = {}
        self.sent: dict[int, int] = {}  # message id → sequence
        #: The first message id of the last resend: a `sequenceGap` about an earlier message is answered already.
        self.resent_from = 0

    def welcomed(self, welcome: JSONObject) -> None:
        """A WELCOME: numbering continues above what flowd took; what waits is sent again (renumbered from
        `lastSequence + 1` when flowd lost steps it had acknowledged)."""
        last = welcome.get("lastSequence")
        taken = last if isinstance(last, int) and not isinstance(last, bool) else None
        if taken is not None and taken < self.highest_acknowledged:
            log.warning(
                "flowbus %s: flowd lost the steps acknowledged after %d (up to %d): numbering anew",
                self.link.id, taken, self.highest_acknowledged,
            )
            renumbered: dict[int, _Waiting] = {}
            for offset, sequence in enumerate(sorted(self.waiting)):
                item = self.waiting[sequence]
                item.body["sequence"] = taken + 1 + offset
                renumbered[taken + 1 + offset] = item
            self.waiting = renumbered
            self.highest_acknowledged = taken
            self.next_sequence = taken + 1 + len(renumbered)
        elif taken is not None:
            self.next_sequence = max(self.next_sequence, taken + 1)
        asyncio.get_running_loop().call_soon(self.resend)

    def hold(self) -> None:
        """Steps wait unsent until `release` (or a heartbeat timeout)."""
        self.held_since = asyncio.get_running_loop().time()

    def release(self) -> None:
        if self.held_since is not None:
            self.held_since = None
            self.resend()

    def resend(self) -> None:
        if not self.link.registered.is_set() or self.link.closed or self.held_since is not None:
            return
        self.sent.clear()
        self.resent_from = self.link.next_id
        for sequence in sorted(self.waiting):
            self._send(sequence)

    def _send(self, sequence: int) -> None:
        item = self.waiting[sequence]
        self.sent[self.link.send(item.type, item.body, item.session)] = sequence
        item.sent_at = asyncio.get_running_loop().time()

    def overdue(self, moment: float) -> None:
        """Sends again what was sent before `moment` and is still unanswered (a message dropped on the way: flowd
        applies a step once however many copies come); steps held since before it go as they are."""
        if self.held_since is not None:
            if self.held_since < moment:
                log.info("flowbus %s: the screens were not reported again in time: sending their steps", self.link.id)
                self.release()
            return
        if not self.link.registered.is_set() or self.link.closed:
            return
        for sequence in sorted(self.waiting):
            sent_at = self.waiting[sequence].sent_at
            if sent_at is not None and sent_at < moment:
                self._send(sequence)

    def submit(self, type: str, body: JSONObject, session: str | None = None) -> asyncio.Future[Fate]:
        # Refused here, the step takes no number (rule 3 of "A client, step by step"): what cannot be written as
        # JSON, or is larger than flowd takes.
        try:
            size = len(json.dumps(body, allow_nan=False, ensure_ascii=False).encode("utf-8"))
        except (TypeError, ValueError) as error:
            raise FlowBusError("invalidStep", f"the step cannot be written as JSON: {error}") from None
        limit = (self.link.welcome or {}).get("maxMessageSize")
        if isinstance(limit, int) and size > limit:
            raise FlowBusError("tooLarge", f"the step is {size} bytes; flowd takes at most {limit}")
        if len(self.waiting) >= self.limit:
            raise FlowBusError(
                "queueFull", f"{len(self.waiting)} steps wait for their fate (the options' max_outstanding_steps)"
            )
        sequence = self.next_sequence
        self.next_sequence += 1
        body = dict(body, sequence=sequence)
        fate: asyncio.Future[Fate] = asyncio.get_running_loop().create_future()
        self.waiting[sequence] = _Waiting(type, body, fate, session)
        if self.link.registered.is_set() and self.held_since is None:
            self._send(sequence)
        return fate

    def answered(self, message: Message) -> bool:
        """Takes a STEP_ACK, or an ERROR about a step; whether it was one."""
        if message.type == "STEP_ACK":
            sequence = message.body.get("sequence")
            item = self.waiting.pop(sequence, None) if isinstance(sequence, int) else None
            if item is None:
                return True  # a repeat of a fate already known
            self.highest_acknowledged = max(self.highest_acknowledged, sequence or 0)
            self.sent = {id: taken for id, taken in self.sent.items() if taken != sequence}
            if item.fate.done():
                return True  # the caller gave up on it (a timeout, a cancellation)
            try:
                item.fate.set_result(Fate.from_json(message.body.get("fate")))
            except ValueError as error:
                item.fate.set_exception(FlowBusError("protocolError", f"flowd sent a STEP_ACK without a fate: {error}"))
            return True
        if message.type != "ERROR":
            return False
        correlation = message.correlation
        sequence = self.sent.pop(correlation, None) if correlation is not None else None
        if sequence is None:
            return False
        code = message.body.get("code")
        if code == "sequenceGap":
            # Everything waiting is sent again, once per gap: the errors about messages before the resend are
            # answered by it.
            if correlation is not None and correlation >= self.resent_from:
                self.resend()
            return True
        item = self.waiting.pop(sequence, None)
        if item is None:
            return True
        if code in TAKE_NO_NUMBER:
            # Refused before its number was looked at: the number is given back, the steps after it move down one.
            moved: dict[int, _Waiting] = {}
            for other in sorted(self.waiting):
                entry = self.waiting[other]
                if other > sequence:
                    entry.body["sequence"] = other - 1
                moved[other - 1 if other > sequence else other] = entry
            self.waiting = moved
            self.next_sequence -= 1
            if any(other >= sequence for other in moved):
                self.resend()
        else:
            # Refused, and the number taken all the same (the specification's STEP).
            self.highest_acknowledged = max(self.highest_acknowledged, sequence)
        if not item.fate.done():
            item.fate.set_exception(error_of(message))
        return True

    def fail_all(self, error: FlowBusError) -> None:
        for item in self.waiting.values():
            if not item.fate.done():
                item.fate.set_exception(error)
        self.waiting.clear()


class Stepper:
    """A stepper process's connection: `await Stepper.connect("app", session="kiosk-7")`, then `await
    stepper.emit(Step("dashboardIsRequired"))` for the fate."""

    def __init__(self, link: Link, steps: Steps) -> None:
        self.link = link
        self.steps = steps

    @staticmethod
    async def connect(name: str, session: str, options: Options | None = None) -> Stepper:
        """Registers the stepper `name` in `session` (created if new); raises FlowBusError (`unreachable`, or what
        flowd refused the HELLO with)."""
        chosen = options or Options.from_environment()
        holder: list[Steps] = []
        link = Link(
            "stepper", session=session, name=name, options=chosen,
            on_welcome=lambda welcome: holder[0].welcomed(welcome) if holder else None,
            on_message=lambda message: _ignore(holder[0].answered(message)),
            on_overdue=lambda moment: holder[0].overdue(moment) if holder else None,
        )
        steps = Steps(link, max(1, min(chosen.max_outstanding_steps, 256)))
        holder.append(steps)
        await link.start()
        return Stepper(link, steps)

    @property
    def id(self) -> str:
        return self.link.id

    @property
    def welcome(self) -> JSONObject:
        """flowd's WELCOME: its version, the session, the epoch, the heartbeat times..."""
        return dict(self.link.welcome or {})

    async def emit(self, step: Step | StepRepresentable | Any, timeout: float | None = None) -> Fate:
        """Emits a step and returns its fate once flowd has decided it (kept and resent until then). Raises
        FlowBusError when flowd refuses it (`unknownStep`...), `queueFull`, or `timeout` after `timeout` seconds."""
        fate = self.steps.submit("STEP", {"step": as_step(step).json()})
        if not timeout:
            return await fate
        try:
            # Shielded: a caller that stops waiting leaves the step to be decided (and its number kept).
            return await asyncio.wait_for(asyncio.shield(fate), timeout)
        except TimeoutError:
            raise FlowBusError("timeout", f"the step's fate did not come within {timeout:g} s") from None

    def post(self, step: Step | StepRepresentable | Any) -> asyncio.Future[Fate]:
        """Emits a step without waiting: its fate comes in the future returned (resent like any step)."""
        return self.steps.submit("STEP", {"step": as_step(step).json()})

    async def deep_link(self, path: Sequence[Step | StepRepresentable | Any]) -> Fate:
        """Sends a deep link: each step of `path` to every flow of the session in turn; its fate as a step's."""
        if not path:
            raise FlowBusError("invalidOptions", "a deep link has at least one step")
        return await self.steps.submit("DEEPLINK", {"path": [as_step(item).json() for item in path]})

    async def set_session_data(self, key: str, value: Any) -> None:
        """Sets (or with None removes) a value of the session's data, which flows' adapt rules read."""
        await self.link.request("SESSION_DATA", {"key": key, "value": value})

    async def close(self) -> None:
        """Says BYE and closes; steps still waiting fail with `closed`."""
        self.steps.fail_all(FlowBusError("closed", "the stepper was closed"))
        await self.link.close()

    async def __aenter__(self) -> Stepper:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.close()


def _ignore(_: object) -> None:
    return None
