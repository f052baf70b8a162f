"""The demo's app stepper: says whether the dashboard comes first, and prints the fate flowd gives it.

    FLOWBUS_CONTROL=... FLOWBUS_EVENTS=... python3 app_stepper.py [SESSION]
"""

import asyncio
import enum
import sys

import flowbus


class AppStep(enum.Enum):
    ONBOARDING = "onboardingIsRequired"
    DASHBOARD = "dashboardIsRequired"


async def main(session: str) -> None:
    async with await flowbus.Stepper.connect("app", session) as stepper:
        fate = await stepper.emit(AppStep.DASHBOARD)
        print(f"{AppStep.DASHBOARD.value}: {fate}")


asyncio.run(main(sys.argv[1] if len(sys.argv) > 1 else "kiosk-7"))
