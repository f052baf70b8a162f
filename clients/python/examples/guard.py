"""A guard in five lines: adults only (the flow file's `guard: { name: parental, subject: adult }`)."""

import asyncio

import flowbus


async def main() -> None:
    async with await flowbus.Guard.connect("parental", lambda question: question.subject == "adult"):
        await asyncio.Event().wait()


asyncio.run(main())
