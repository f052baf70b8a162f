"""A guard: answers flowd's questions ("may this step pass?") with a function of its own."""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from .link import Link
from .options import Options
from .step import Step
from .wire import Message

log = logging.getLogger("flowbus")


@dataclass(frozen=True)
class Question:
    """A guard question: the guard's name, the subject (what the flow file's `requires` names), the step, and the
    deadline (ms since 1970) after which no answer counts as a refusal."""

    id: int
    guard: str
    subject: str
    step: Step
    deadline: int


Decide = Callable[[Question], bool | Awaitable[bool]]


class Guard:
    """`await Guard.connect("permissions", decide)`: `decide(question)` returns (or awaits) whether it passes."""

    def __init__(self, link: Link, decide: Decide) -> None:
        self.link = link
        self.decide = decide
        self.answered = 0

    @staticmethod
    async def connect(name: str, decide: Decide, session: str | None = None, options: Options | None = None) -> Guard:
        holder: list[Guard] = []
        link = Link("guard", session=session, name=name, options=options or Options.from_environment(),
                    on_message=lambda message: holder[0]._message(message) if holder else None)
        guard = Guard(link, decide)
        holder.append(guard)
        await link.start()
        return guard

    def _message(self, message: Message) -> None:
        if message.type != "GUARD_QUESTION":
            return
        body = message.body
        try:
            question = Question(
                int(body["question"]), str(body.get("guardName", "")), str(body.get("subject", "")),
                Step.from_json(body.get("step")), int(body.get("deadline") or 0),
            )
        except (KeyError, ValueError, TypeError) as error:
            log.warning("flowbus %s: a GUARD_QUESTION that cannot be read: %s", self.link.id, error)
            return
        asyncio.get_running_loop().create_task(self._answer(question, message.header.get("session")))

    async def _answer(self, question: Question, session: Any) -> None:
        try:
            decided = self.decide(question)
            allowed = bool(await decided) if inspect.isawaitable(decided) else bool(decided)
        except Exception:
            log.exception("flowbus %s: deciding question %d failed: refused", self.link.id, question.id)
            allowed = False
        self.link.send("GUARD_ANSWER", {"question": question.id, "allowed": allowed},
                       session if isinstance(session, str) else None)
        self.answered += 1

    async def close(self) -> None:
        """Says BYE: flowd asks its questions to another guard of the name at once, rather than after the heartbeat
        timeout."""
        await self.link.close()

    async def __aenter__(self) -> Guard:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.close()
