"""What the Python client's tests share: real flowd processes (the repository's build, or FLOWBUS_BIN), each on ipc
endpoints and a state directory of its own under pytest's temporary directory, stopped at the end of its test.
Nothing waits blindly: each wait is for a condition, with a deadline."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # the package as it is in the repository

ROOT = HERE.parents[2]
BIN = Path(os.environ.get("FLOWBUS_BIN", ROOT / ".build" / "debug"))
DEMO_FLOWS = ROOT / "deploy" / "flows" / "movies.yaml"


def wait_until(condition: Callable[[], Any], within: float = 10.0, what: str = "the condition") -> Any:
    deadline = time.monotonic() + within
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} did not happen within {within} s")
        time.sleep(0.02)


class Flowd:
    """A flowd on ipc endpoints of its own (or tcp ones given), with a state directory of its own."""

    def __init__(self, directory: Path, *extra: str, flows: Path = DEMO_FLOWS, control: str | None = None,
                 events: str | None = None) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        self.directory = directory
        self.control = control or f"ipc://{directory}/control"
        self.events = events or f"ipc://{directory}/events"
        stateless = "--ephemeral" in extra or "--store" in extra
        state = [] if stateless else ["--state-dir", str(directory / "state")]
        tcp = ["--no-tcp"] if self.control.startswith("ipc://") else []
        self.arguments = [
            str(BIN / "flowd"), "--flows", str(flows), *state, *tcp, "--control", self.control, "--events",
            self.events, *extra,
        ]
        self.process: subprocess.Popen[str] | None = None
        self.log = directory / "flowd.log"
        self.start()

    def start(self) -> None:
        with open(self.log, "a") as log:
            self.process = subprocess.Popen(self.arguments, stdout=log, stderr=subprocess.STDOUT,
                                            stdin=subprocess.DEVNULL, start_new_session=True)
        wait_until(lambda: "ready: control" in self.log.read_text() or self.process.poll() is not None, 15,
                   "flowd to be ready")
        assert self.process.poll() is None, self.log.read_text()[-2000:]

    def kill(self) -> None:
        """kill -9."""
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(10)
        # The next start waits for its own "ready".
        self.log.write_text("")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    @property
    def env(self) -> dict[str, str]:
        return dict(os.environ, FLOWBUS_CONTROL=self.control, FLOWBUS_EVENTS=self.events)

    def options(self, **given: Any) -> Any:
        import flowbus

        return flowbus.Options.from_environment(self.env, **given)


@pytest.fixture
def flowd(tmp_path: Path) -> Iterator[Callable[..., Flowd]]:
    """A flowd factory: `flowd(*extra_arguments, flows=...)`; every one started is stopped."""
    started: list[Flowd] = []

    def make(*extra: str, **named: Any) -> Flowd:
        daemon = Flowd(tmp_path / f"flowd{len(started)}", *extra, **named)
        started.append(daemon)
        return daemon

    yield make
    for daemon in started:
        daemon.stop()


class Program:
    """A Python program using the client, in a process of its own (killed at the end of its test)."""

    def __init__(self, source: str, env: dict[str, str]) -> None:
        self.lines: list[str] = []
        self.process = subprocess.Popen(
            [sys.executable, "-u", "-c", source], env=dict(env, PYTHONPATH=str(HERE.parent)),
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True,
        )
        import threading

        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.append(line.rstrip("\n"))

    def wait_for(self, text: str, within: float = 15.0) -> str:
        return str(wait_until(lambda: next((line for line in self.lines if text in line), None), within,
                              f"'{text}' from the program (it said {self.lines[-5:]})"))

    def kill(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()


@pytest.fixture
def program() -> Iterator[Callable[[str, dict[str, str]], Program]]:
    started: list[Program] = []

    def make(source: str, env: dict[str, str]) -> Program:
        started.append(Program(source, env))
        return started[-1]

    yield make
    for item in started:
        item.kill()
