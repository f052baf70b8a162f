"""Errors: each with the specification's code (`notVisible` is a fate, not an error; these are refusals and
failures), its message, and for an ERROR from flowd the message's own words."""

from __future__ import annotations


class FlowBusError(Exception):
    """What went wrong, with a code: one of the specification's error codes when flowd refused something
    (`unknownStep`, `notAllowed`, `malformedBody`...), or one of the client's own: `unreachable` (flowd did not
    answer in time), `protocolError` (flowd sent what is not FlowBus), `closed` (the client was closed),
    `queueFull` (too many steps wait for their fate), `timeout` (an answer did not come in time),
    `invalidOptions`."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


#: The error codes flowd sends (the specification's "Error codes").
DAEMON_CODES = frozenset(
    [
        "flood", "notFlowBus", "unsupportedVersion", "wrongFrameCount", "unknownType", "tooLarge",
        "malformedHeader", "malformedBody", "idNotAllowed", "tooLong", "notRegistered", "idMismatch",
        "missingSession", "nameTaken", "notAllowed", "wrongSession", "unknownSession", "unknownStep",
        "unknownPresentable", "foreignPresentable", "sequenceGap", "unknownQuery", "limitReached",
        "storeUnavailable", "unknownQuestion", "internal",
    ]
)
