"""A presenter that prints its screens each time flowd's commands change them (`*` marks what the user sees).

    FLOWBUS_CONTROL=... FLOWBUS_EVENTS=... python3 presenter.py [SESSION]
"""

import asyncio
import sys

import flowbus


async def main(session: str) -> None:
    async with await flowbus.Presenter.connect("main", session) as presenter:
        while True:
            update = await presenter.next_update()
            print(f"after batch {update.sequence}:")
            print(presenter.screens.describe(), flush=True)


asyncio.run(main(sys.argv[1] if len(sys.argv) > 1 else "kiosk-7"))
