"""The protocol's conformance vectors (Tests/Conformance) replayed over flowd's WebSocket endpoint, in the browser,
with flowbus.js's codec: every rule holds over WebSocket as over ZeroMQ (one flowd per file, as the Swift runner
starts them)."""

import json

import pytest

from conftest import ROOT

FILES = sorted((ROOT / "Tests" / "Conformance").glob("*.json"))


@pytest.mark.parametrize("path", FILES, ids=[path.stem for path in FILES])
def test_the_vectors_pass_over_websocket(path, flowd, page, pages):
    file = json.loads(path.read_text())
    # JavaScript reads 1.0 as 1 and 1e3 as 1000: the messages to send are written here, as the file spells their
    # numbers (the page substitutes the captured values into the text).
    for vector in file["vectors"]:
        for exchange in vector["exchanges"]:
            if "send" in exchange:
                header = {"sentAt": 0, **exchange["send"].get("header", {})}
                exchange["send"]["text"] = [
                    json.dumps(header, separators=(",", ":"), ensure_ascii=False),
                    json.dumps(exchange["send"].get("body", {}), separators=(",", ":"), ensure_ascii=False),
                ]
    daemon = flowd("--ephemeral", *file.get("daemon", []), flows=file.get("flows", "deploy/flows/movies.yaml"))
    page.goto(f"{pages}/conformance.html")
    page.wait_for_function("window.runFile !== undefined")
    result = page.evaluate("([url, file]) => window.runFile(url, file)", [daemon.url, file])
    assert result["failures"] == [], json.dumps(result["failures"], indent=1)
    assert result["passed"] == len(file["vectors"])
