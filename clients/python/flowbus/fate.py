"""What became of a step: accepted by flows, or dropped with a reason, an explanation and a remedy."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Fate:
    """A step's fate, as STEP_ACK carries it. `reason` is one of the specification's drop reasons (`notVisible`,
    `unhandled`, `unboundStepper`, `invalidParameters`...) when `accepted` is false."""

    accepted: bool
    flows: list[int] = field(default_factory=list)
    reason: str | None = None
    presentable: int | None = None
    flow: int | None = None
    parameter: str | None = None
    explanation: str | None = None
    remedy: str | None = None

    @staticmethod
    def from_json(value: Any) -> Fate:
        if not isinstance(value, dict) or not isinstance(value.get("accepted"), bool):
            raise ValueError(f"not a fate: {value!r}")

        def text(key: str) -> str | None:
            item = value.get(key)
            return item if isinstance(item, str) else None

        def number(key: str) -> int | None:
            item = value.get(key)
            return item if isinstance(item, int) and not isinstance(item, bool) else None

        flows = [item for item in value.get("flows") or [] if isinstance(item, int)]
        return Fate(
            value["accepted"], flows, text("reason"), number("presentable"), number("flow"), text("parameter"),
            text("explanation"), text("remedy"),
        )

    def __str__(self) -> str:
        if self.accepted:
            return "accepted by " + ", ".join(f"f{flow}" for flow in self.flows)
        said = f"dropped ({self.reason})"
        if self.explanation:
            said += f": {self.explanation}"
        if self.remedy:
            said += f" — {self.remedy}"
        return said
