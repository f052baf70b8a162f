"""FlowBus's framing: a message is four ZeroMQ frames, `FLOWBUS/1`, its type, a JSON header and a JSON body
(the specification's "Framing"); on the events socket a topic frame comes first."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any

from .errors import FlowBusError

PROTOCOL = b"FLOWBUS/1"

#: Every message type of version 1.
TYPES = frozenset(
    [
        "HELLO", "WELCOME", "REDIRECT", "STEP", "DEEPLINK", "STEP_ACK", "VISIBILITY", "COMMANDS",
        "SNAPSHOT_REQUEST", "SNAPSHOT", "QUERY", "REPLY", "SESSION_DATA", "GUARD_QUESTION", "GUARD_ANSWER",
        "EVENT", "EVENTS", "HEARTBEAT", "BYE", "ERROR",
    ]
)

JSONObject = dict[str, Any]


@dataclass(frozen=True)
class Message:
    """A message as read: its type, header and body (JSON objects)."""

    type: str
    header: JSONObject = field(default_factory=dict)
    body: JSONObject = field(default_factory=dict)

    @property
    def correlation(self) -> int | None:
        value = self.header.get("correlation")
        return value if isinstance(value, int) and not isinstance(value, bool) else None


def now_ms() -> int:
    """Milliseconds since 1970 on this machine's clock (a header's `sentAt`)."""
    return int(time.time() * 1000)


def _json(value: JSONObject) -> bytes:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode("utf-8")


def encode(type: str, header: JSONObject, body: JSONObject | None = None) -> list[bytes]:
    """The four frames of a message."""
    return [PROTOCOL, type.encode("ascii"), _json(header), _json(body or {})]


def _object(frame: bytes, what: str) -> JSONObject:
    try:
        value = json.loads(frame.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise FlowBusError("protocolError", f"flowd sent a {what} that is not JSON: {error}") from None
    if not isinstance(value, dict):
        raise FlowBusError("protocolError", f"flowd sent a {what} that is not a JSON object")
    return value


def decode(frames: list[bytes]) -> Message:
    """Reads the four frames of a message from flowd.

    Raises FlowBusError `protocolError` when they are not a FlowBus message of version 1."""
    if len(frames) != 4:
        raise FlowBusError("protocolError", f"flowd sent {len(frames)} frames where a message has 4")
    protocol, kind, header, body = frames
    if protocol != PROTOCOL:
        raise FlowBusError("protocolError", f"flowd sent {protocol[:16]!r} where FLOWBUS/1 was expected")
    try:
        type = kind.decode("ascii")
    except UnicodeDecodeError:
        raise FlowBusError("protocolError", "flowd sent a message type that is not ASCII") from None
    if type not in TYPES:
        raise FlowBusError("protocolError", f"flowd sent a message of an unknown type {type[:32]!r}")
    return Message(type, _object(header, "header"), _object(body, "body"))


def decode_published(frames: list[bytes]) -> tuple[str, Message]:
    """Reads a message from the events socket: its topic, then the message."""
    if not frames:
        raise FlowBusError("protocolError", "flowd published an empty message")
    try:
        topic = frames[0].decode("utf-8")
    except UnicodeDecodeError:
        raise FlowBusError("protocolError", "flowd published a topic that is not UTF-8") from None
    return topic, decode(frames[1:])
