"""The same clients for scripts that do not use asyncio: each call runs on an event loop of the module's own (in a
thread) and blocks until it is done.

    from flowbus.blocking import Stepper
    stepper = Stepper.connect("app", session="kiosk-7")
    print(stepper.emit("dashboardIsRequired"))
    stepper.close()
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

from . import inspector as _inspector
from . import stepper as _stepper
from .errors import FlowBusError
from .fate import Fate
from .options import Options
from .step import Step, StepRepresentable

T = TypeVar("T")

_loop: asyncio.AbstractEventLoop | None = None
_lock = threading.Lock()


#: Seconds a blocking call waits at most when given no timeout of its own.
DEFAULT_TIMEOUT = 30.0


def _run(coroutine: Coroutine[Any, Any, T], timeout: float | None = None) -> T:
    """Runs `coroutine` on the module's loop and waits for it, `timeout` seconds at most (then FlowBusError
    `timeout`, the coroutine cancelled)."""
    global _loop
    with _lock:
        if _loop is None:
            _loop = asyncio.new_event_loop()
            threading.Thread(target=_loop.run_forever, name="flowbus", daemon=True).start()
    future = asyncio.run_coroutine_threadsafe(coroutine, _loop)
    limit = DEFAULT_TIMEOUT if timeout is None else timeout
    try:
        return future.result(limit)
    except concurrent.futures.TimeoutError:
        future.cancel()
        raise FlowBusError("timeout", f"no answer within {limit:g} s") from None


class Stepper:
    """A stepper whose calls block: `Stepper.connect("app", session="kiosk-7").emit("dashboardIsRequired")`."""

    def __init__(self, client: _stepper.Stepper) -> None:
        self.client = client

    @staticmethod
    def connect(name: str, session: str, options: Options | None = None) -> Stepper:
        return Stepper(_run(_stepper.Stepper.connect(name, session, options), _connecting(options)))

    @property
    def welcome(self) -> dict[str, Any]:
        """flowd's WELCOME: its version, the session, the epoch, the heartbeat times..."""
        return self.client.welcome

    def emit(self, step: Step | StepRepresentable | Any, timeout: float | None = None) -> Fate:
        """Emits a step (a Step, a name, an Enum member, a dataclass...) and returns its fate; FlowBusError
        `timeout` when it does not come within `timeout` seconds (30 by default). A step whose fate was not waited
        for is still sent and decided: emitting it again would apply it twice."""
        return _run(self.client.emit(step, timeout or DEFAULT_TIMEOUT), (timeout or DEFAULT_TIMEOUT) + 1)

    def deep_link(self, path: list[Step | StepRepresentable | Any], timeout: float | None = None) -> Fate:
        return _run(self.client.deep_link(path), timeout)

    def set_session_data(self, key: str, value: Any) -> None:
        _run(self.client.set_session_data(key, value))

    def close(self) -> None:
        _run(self.client.close())

    def __enter__(self) -> Stepper:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


class Inspector:
    """An inspector whose calls block: `Inspector.connect().query("sessions")`."""

    def __init__(self, client: _inspector.Inspector) -> None:
        self.client = client

    @staticmethod
    def connect(name: str | None = None, session: str | None = None, options: Options | None = None) -> Inspector:
        return Inspector(_run(_inspector.Inspector.connect(name, session, options), _connecting(options)))

    def query(
        self, what: str, arguments: dict[str, Any] | None = None, session: str | None = None, timeout: float = 5.0
    ) -> Any:
        return _run(self.client.query(what, arguments, session, timeout), timeout + 1)

    def emit(
        self,
        step: Step | StepRepresentable | Any,
        session: str,
        presentable: int | None = None,
        timeout: float | None = None,
    ) -> Fate:
        return _run(self.client.emit(step, session, presentable), timeout)

    def close(self) -> None:
        _run(self.client.close())

    def __enter__(self) -> Inspector:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


def _connecting(options: Options | None) -> float:
    """How long connecting may take: the options' connect timeout, and a second for the rest."""
    return (options or Options.from_environment()).connect_timeout + 1
