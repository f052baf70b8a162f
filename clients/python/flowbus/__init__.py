"""FlowBus for Python: steppers, presenters, guards and inspectors of a flowd coordinator, over ZeroMQ.

    import asyncio, flowbus

    async def main() -> None:
        async with await flowbus.Stepper.connect("app", session="kiosk-7") as stepper:
            print(await stepper.emit(flowbus.Step("dashboardIsRequired")))

    asyncio.run(main())
"""

from .errors import FlowBusError
from .fate import Fate
from .guard import Guard, Question
from .inspector import Event, Inspector
from .presenter import Presenter, Update
from .screens import CommandMisfit, Screen, Screens
from .options import Curve, Endpoints, Options, curve_keys
from .step import Step, StepRepresentable, as_step
from .stepper import Stepper

__all__ = [
    "CommandMisfit", "Curve", "Endpoints", "Event", "Fate", "FlowBusError", "Guard", "Inspector", "Options", "Presenter",
    "Question", "Screen", "Screens", "Step", "StepRepresentable", "Stepper", "Update", "as_step", "curve_keys",
]
