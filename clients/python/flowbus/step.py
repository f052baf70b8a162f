"""Steps as Python values: a `Step` (a name and parameters), or any value that says which step it is — an `Enum`
member, a dataclass, or an object with `to_step()` — like the Swift library's `StepRepresentable`."""

from __future__ import annotations

import dataclasses
import enum
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable


@dataclass(frozen=True)
class Step:
    """A step: `Step("movieIsPicked", {"withId": 23452})`. The step named `none` is RxFlow's NoneStep."""

    name: str
    parameters: dict[str, Any] = field(default_factory=dict)

    def json(self) -> dict[str, Any]:
        return {"name": self.name, "parameters": dict(self.parameters)}

    @staticmethod
    def from_json(value: Any) -> Step:
        if not isinstance(value, dict) or not isinstance(value.get("name"), str):
            raise ValueError(f"not a step: {value!r}")
        parameters = value.get("parameters") or {}
        return Step(value["name"], dict(parameters) if isinstance(parameters, dict) else {})

    def __str__(self) -> str:
        if not self.parameters:
            return self.name
        inner = ", ".join(f"{key}: {value!r}" for key, value in self.parameters.items())
        return f"{self.name}({inner})"


@runtime_checkable
class StepRepresentable(Protocol):
    """A value that knows the step it stands for."""

    def to_step(self) -> Step: ...


def _lower_first(name: str) -> str:
    return name[:1].lower() + name[1:]


def as_step(value: Step | StepRepresentable | enum.Enum | str | Any) -> Step:
    """The step `value` stands for:

    - a `Step`, as it is;
    - a string: the step of that name, without parameters;
    - an object with `to_step()`, what it returns;
    - an `Enum` member: its value when that is a string (`class AppStep(Enum): DASHBOARD = "dashboardIsRequired"`),
      else its name;
    - a dataclass instance: the class's `step_name` if it has one, else its name with the first letter lowered
      (`MovieIsPicked(with_id=7)` is `movieIsPicked`), its fields the parameters (a field's `step_parameter`
      metadata names the parameter: `field(metadata={"step_parameter": "withId"})`).
    """
    if isinstance(value, Step):
        return value
    if isinstance(value, str):
        return Step(value)
    if isinstance(value, StepRepresentable):
        return value.to_step()
    if isinstance(value, enum.Enum):
        return Step(value.value if isinstance(value.value, str) else value.name)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        name = getattr(type(value), "step_name", None) or _lower_first(type(value).__name__)
        parameters = {
            item.metadata.get("step_parameter", item.name): getattr(value, item.name)
            for item in dataclasses.fields(value)
        }
        return Step(name, parameters)
    raise TypeError(
        f"{value!r} is not a step: give a Step, a step's name, an Enum member, a dataclass or an object with to_step()"
    )
