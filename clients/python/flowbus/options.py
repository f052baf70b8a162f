"""How a client reaches flowd: the endpoints (a list for a fleet), its id, CURVE keys and timeouts — given, else
from the environment as flowctl reads it (`FLOWBUS_CONTROL` and `FLOWBUS_EVENTS`, comma-separated for a fleet;
`FLOWBUS_ID`; `FLOWBUS_CURVE_SECRET_KEY` and `FLOWBUS_CURVE_SERVER_KEY`), else flowd's defaults."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Mapping

from .errors import FlowBusError


@dataclass(frozen=True)
class Endpoints:
    """One flowd (or one instance of a fleet): its control and events endpoints."""

    control: str
    events: str


@dataclass(frozen=True)
class Curve:
    """CURVE keys, Z85-encoded (40 characters): the client's key pair and flowd's public key."""

    secret_key: str
    public_key: str
    server_key: str


def _default_endpoints(environment: Mapping[str, str]) -> Endpoints:
    runtime = environment.get("XDG_RUNTIME_DIR")
    directory = f"{runtime}/flowbus" if runtime else f"/tmp/flowbus-{os.getuid()}"
    for candidate in (directory, "/run/flowbus"):
        if os.path.exists(f"{candidate}/control"):
            return Endpoints(f"ipc://{candidate}/control", f"ipc://{candidate}/events")
    return Endpoints("tcp://127.0.0.1:5860", "tcp://127.0.0.1:5861")


@dataclass(frozen=True)
class Options:
    """The client's options. `endpoints` lists every instance of a fleet (one for a single flowd): the client
    talks to one at a time, follows REDIRECTs, and tries the next when the one in use does not answer."""

    endpoints: list[Endpoints] = field(default_factory=list)
    id: str | None = None
    curve: Curve | None = None
    #: Seconds `connect` waits for flowd before failing with `unreachable`.
    connect_timeout: float = 5.0
    #: The most steps that may wait for their fate (flowd remembers 256 per sender).
    max_outstanding_steps: int = 256
    #: Seconds between ZMTP heartbeats on the control connection (dropped after four times this).
    connection_check_interval: float = 0.2
    #: Seconds an unanswered HELLO waits before the next is twice this; the wait doubles up to `reconnect_interval_max`
    #: (so does the wait between REDIRECTs that lead nowhere, and after flowd's store did not answer).
    reconnect_interval: float = 0.1
    reconnect_interval_max: float = 5.0

    @staticmethod
    def from_environment(environment: Mapping[str, str] | None = None, **given: object) -> Options:
        """Options from the environment (the process's by default), with `given` ones over them."""
        env = os.environ if environment is None else environment
        endpoints: list[Endpoints] = []
        control = [item for item in env.get("FLOWBUS_CONTROL", "").split(",") if item]
        events = [item for item in env.get("FLOWBUS_EVENTS", "").split(",") if item]
        if control or events:
            if len(control) != len(events):
                raise FlowBusError(
                    "invalidOptions",
                    f"FLOWBUS_CONTROL lists {len(control)} endpoints and FLOWBUS_EVENTS {len(events)}: pair them",
                )
            endpoints = [Endpoints(c, e) for c, e in zip(control, events)]
        curve = None
        secret, server = env.get("FLOWBUS_CURVE_SECRET_KEY"), env.get("FLOWBUS_CURVE_SERVER_KEY")
        if secret or server:
            if not (secret and server):
                raise FlowBusError(
                    "invalidOptions", "CURVE needs both FLOWBUS_CURVE_SECRET_KEY and FLOWBUS_CURVE_SERVER_KEY"
                )
            curve = curve_keys(secret, server)
        options = Options(endpoints or [_default_endpoints(env)], env.get("FLOWBUS_ID") or None, curve)
        return options.replacing(**given) if given else options

    def replacing(self, **changes: object) -> Options:
        values = {name: getattr(self, name) for name in self.__dataclass_fields__}
        unknown = set(changes) - set(values)
        if unknown:
            raise FlowBusError("invalidOptions", f"no such option: {', '.join(sorted(unknown))}")
        values.update(changes)
        return Options(**values)  # type: ignore[arg-type,unused-ignore]


def curve_keys(secret_key: str, server_key: str) -> Curve:
    """The CURVE keys for a client whose secret key is `secret_key` (its public key is derived from it)."""
    import zmq

    for name, key in (("secret", secret_key), ("server", server_key)):
        if len(key) != 40:
            raise FlowBusError("invalidOptions", f"the CURVE {name} key is not 40 Z85 characters")
    try:
        public = zmq.curve_public(secret_key.encode("ascii")).decode("ascii")
    except (zmq.ZMQError, UnicodeEncodeError, ValueError) as error:
        raise FlowBusError("invalidOptions", f"the CURVE secret key is not a Z85 key: {error}") from None
    return Curve(secret_key, public, server_key)
