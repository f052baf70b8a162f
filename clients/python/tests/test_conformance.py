"""The protocol's conformance vectors (Tests/Conformance) replayed against a real flowd through the client's own
framing (flowbus.wire) on raw ZeroMQ sockets: the client speaks the protocol as flowd does."""

from __future__ import annotations

import json
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
import zmq

from conftest import ROOT, Flowd
from flowbus.wire import decode, decode_published, encode

VECTORS = sorted((ROOT / "Tests" / "Conformance").glob("*.json"))


class Mismatch(AssertionError):
    pass


class Runner:
    def __init__(self, daemon: Flowd) -> None:
        self.daemon = daemon
        self.context = zmq.Context.instance()
        self.peers: dict[str, tuple[zmq.Socket[bytes], zmq.Socket[bytes]]] = {}
        self.values: dict[str, Any] = {"session": f"py-{uuid.uuid4().hex[:8]}"}

    def close(self) -> None:
        for dealer, subscriber in self.peers.values():
            dealer.close(0)
            subscriber.close(0)

    def substitute(self, value: Any) -> Any:
        if isinstance(value, str):
            if value.startswith("$") and not value.startswith("${") and value[1:] in self.values:
                return self.values[value[1:]]
            for name, captured in self.values.items():
                value = value.replace("${" + name + "}", str(captured))
            return value
        if isinstance(value, list):
            return [self.substitute(item) for item in value]
        if isinstance(value, dict):
            return {key: self.substitute(item) for key, item in value.items()}
        return value

    def match(self, expected: Any, actual: Any, path: str) -> None:
        if isinstance(expected, str) and expected.startswith("$"):
            if expected == "$any":
                if actual is None:
                    raise Mismatch(f"{path}: absent")
                return
            if expected.startswith("$contains:"):
                text = self.substitute(expected[len("$contains:"):])
                if not isinstance(actual, str) or text not in actual:
                    raise Mismatch(f"{path}: {actual!r} does not contain {text!r}")
                return
            if expected.startswith("$capture:"):
                self.values[expected[len("$capture:"):]] = actual
                return
            expected = self.substitute(expected)
        if isinstance(expected, dict):
            if not isinstance(actual, dict):
                raise Mismatch(f"{path}: {actual!r} is not an object")
            for key, item in expected.items():
                if item == "$absent":
                    if key in actual:
                        raise Mismatch(f"{path}.{key}: present ({actual[key]!r})")
                    continue
                self.match(item, actual.get(key), f"{path}.{key}")
            return
        if isinstance(expected, list):
            if not isinstance(actual, list) or len(actual) != len(expected):
                raise Mismatch(f"{path}: {actual!r} is not {len(expected)} items")
            for index, (item, value) in enumerate(zip(expected, actual)):
                self.match(item, value, f"{path}[{index}]")
            return
        expected = self.substitute(expected)
        if expected != actual or type(expected) is not type(actual) and not (
            isinstance(expected, (int, float)) and isinstance(actual, (int, float))
        ):
            raise Mismatch(f"{path}: {actual!r} where {expected!r} was expected")

    def run(self, exchange: dict[str, Any]) -> None:
        peer = exchange["peer"]
        within = exchange.get("within", 5000) / 1000
        if "connect" in exchange:
            dealer = self.context.socket(zmq.DEALER)
            dealer.setsockopt(zmq.LINGER, 0)
            dealer.setsockopt(zmq.ROUTING_ID, self.substitute(exchange["connect"]).encode())
            dealer.connect(self.daemon.control)
            subscriber = self.context.socket(zmq.SUB)
            subscriber.setsockopt(zmq.LINGER, 0)
            subscriber.connect(self.daemon.events)
            self.peers[peer] = (dealer, subscriber)
        elif "subscribe" in exchange:
            topic = self.substitute(exchange["subscribe"])
            subscriber = self.peers[peer][1]
            subscriber.setsockopt(zmq.SUBSCRIBE, topic.encode())
            self.receive(subscriber, lambda t, m: m.type == "HEARTBEAT" and t == topic, within, published=True)
        elif "send" in exchange:
            send = self.substitute(exchange["send"])
            header = dict({"sentAt": 0}, **send.get("header", {}))
            self.peers[peer][0].send_multipart(encode(send["type"], header, send.get("body", {})))
        elif "frames" in exchange:
            self.peers[peer][0].send_multipart([self.substitute(f).encode() for f in exchange["frames"]])
        elif "expect" in exchange or "expectPublished" in exchange:
            published = "expectPublished" in exchange
            expected = exchange["expectPublished" if published else "expect"]
            socket = self.peers[peer][1 if published else 0]
            topic = self.substitute(expected.get("topic")) if published else None
            topic_, message = self.receive(
                socket, lambda t, m: m.type == expected["type"] and (topic is None or t == topic), within, published
            )
            self.match(expected.get("header", {}), message.header, "header")
            self.match(expected.get("body", {}), message.body, "body")
        elif exchange.get("close"):
            dealer, subscriber = self.peers.pop(peer)
            dealer.close(0)
            subscriber.close(0)
        else:
            raise AssertionError(f"an exchange this runner does not know: {exchange}")

    def receive(self, socket: zmq.Socket[bytes], wanted: Any, within: float, published: bool) -> Any:
        deadline = time.monotonic() + within
        while (left := deadline - time.monotonic()) > 0:
            if not socket.poll(int(left * 1000)):
                break
            frames = socket.recv_multipart()
            if published:
                topic, message = decode_published(frames)
            else:
                topic, message = None, decode(frames)
            if wanted(topic, message):
                return topic, message
        raise Mismatch(f"nothing wanted came within {within:g} s")


def vectors() -> list[Any]:
    cases = []
    for file in VECTORS:
        content = json.loads(file.read_text())
        for vector in content["vectors"]:
            cases.append(pytest.param(content, vector, id=f"{file.stem}: {vector['name']}"))
    return cases


@pytest.mark.parametrize("content,vector", vectors())
def test_vector(flowd: Any, content: dict[str, Any], vector: dict[str, Any]) -> None:
    flows = ROOT / content.get("flows", "deploy/flows/movies.yaml")
    daemon = flowd("--ephemeral", *content.get("daemon", []), flows=flows)
    runner = Runner(daemon)
    try:
        for index, exchange in enumerate(vector["exchanges"]):
            try:
                runner.run(exchange)
            except Mismatch as mismatch:
                raise AssertionError(f"exchange {index} ({json.dumps(exchange)[:200]}): {mismatch}") from None
    finally:
        runner.close()


def test_every_vector_file_is_replayed() -> None:
    assert len(VECTORS) >= 5 and sum(len(json.loads(f.read_text())["vectors"]) for f in VECTORS) >= 30


def test_the_runner_tells_a_mismatch(flowd: Any) -> None:
    """The matching is not lax: a value, a type, a missing member, a longer array and a present `$absent` each fail."""
    runner = Runner.__new__(Runner)
    runner.values = {"session": "s"}
    runner.match({"a": 1, "b": "$absent", "c": "$contains:x"}, {"a": 1, "c": "xyz"}, "body")
    for expected, actual in [
        ({"a": 1}, {"a": 2}), ({"a": 1}, {"a": "1"}), ({"a": "$any"}, {}), ({"a": [1]}, {"a": [1, 2]}),
        ({"b": "$absent"}, {"b": None}), ({"c": "$contains:x"}, {"c": "y"}), ({"s": "${session}"}, {"s": "t"}),
    ]:
        with pytest.raises(Mismatch):
            runner.match(expected, actual, "body")
