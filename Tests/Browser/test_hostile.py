"""Hostile input at flowd's WebSocket endpoint, from a client whose every byte is the test's: each gets the
protocol's ERROR or a WebSocket close code (or an HTTP refusal before the upgrade), never a crash or unbounded
memory, and flowd goes on serving the others.

Tried: a foreign Origin, a missing subprotocol, a wrong path, no id, an id with a control character, a binary
message, a frame over the size limit, a message in too many fragments, fragments out of order, text that is not
FlowBus, three frames instead of four, a header that is not JSON, too many subscriptions, a handshake that never
ends, connections beyond the limit, a second connection under the same id, and a reader that never reads."""

import json
import os
import socket
import subprocess
import time

import pytest

from conftest import wait_until
from rawsocket import RawWebSocket, message


def hello(peer_id, role="stepper", session="h", name="app"):
    return message("HELLO", {"role": role, "id": peer_id, "name": name, "session": session, "protocolVersion": 1})


def resident_bytes(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def test_handshakes_are_refused_with_a_status_and_a_reason(flowd):
    daemon = flowd("--ephemeral")
    wrong_path = RawWebSocket(daemon.port, path="/other?id=x")
    assert wrong_path.status == 404 and "/flowbus" in wrong_path.body()
    no_protocol = RawWebSocket(daemon.port, protocols=())
    assert no_protocol.status == 400 and "flowbus.v1" in no_protocol.body()
    foreign = RawWebSocket(daemon.port, headers={"Origin": "https://evil.example"})
    assert foreign.status == 403 and "evil.example" in foreign.body()
    local = RawWebSocket(daemon.port, path="/flowbus?id=h%2Flocal", headers={"Origin": "http://localhost:8080"})
    assert local.status == 101 and "Sec-WebSocket-Protocol: flowbus.v1" in local.response


def test_a_url_without_a_usable_id_is_closed_with_4400(flowd):
    daemon = flowd("--ephemeral")
    for path in ["/flowbus", "/flowbus?id=", "/flowbus?id=a%07b", "/flowbus?id=" + "x" * 129]:
        peer = RawWebSocket(daemon.port, path=path)
        assert peer.status == 101
        code, reason = peer.closed_with()
        assert code == 4400, (path, code, reason)
        assert "id" in reason


def test_binary_oversized_and_over_fragmented_messages_are_closed(flowd):
    daemon = flowd("--ephemeral", "--max-message-size", "4096")
    binary = RawWebSocket(daemon.port)
    binary.frame(b"\x00\x01", opcode=0x2)
    assert binary.closed_with()[0] == 1003

    oversized = RawWebSocket(daemon.port)
    oversized.frame("x" * (4096 + 8192 + 1))
    assert oversized.closed_with()[0] == 1009

    fragmented = RawWebSocket(daemon.port)
    fragmented.frame("ab", fin=False)
    for _ in range(70):
        fragmented.frame("ab", opcode=0x0, fin=False)
    assert fragmented.closed_with()[0] == 1009

    out_of_order = RawWebSocket(daemon.port)
    out_of_order.frame("ab", opcode=0x0, fin=True)
    assert out_of_order.closed_with()[0] == 1002

    # flowd goes on: a message in fragments is one message.
    whole = RawWebSocket(daemon.port, path="/flowbus?id=h%2Fapp")
    text = hello("h/app")
    whole.frame(text[:10], fin=False)
    whole.frame(text[10:40], opcode=0x0, fin=False)
    whole.frame(text[40:], opcode=0x0, fin=True)
    assert "\nWELCOME\n" in whole.message()


def test_what_is_not_a_flowbus_message_gets_the_protocols_errors(flowd):
    daemon = flowd("--ephemeral")
    peer = RawWebSocket(daemon.port, path="/flowbus?id=h%2Fapp")
    peer.send("hello flowd")
    assert '"code":"notFlowBus"' in peer.message()
    peer.send("FLOWBUS/1\nHELLO\n{}")
    assert '"code":"wrongFrameCount"' in peer.message()
    peer.send("FLOWBUS/1\nHELLO\nnot json\n{}")
    assert '"code":"malformedHeader"' in peer.message()
    peer.send(message("STEP", {"step": {"name": "introIsComplete", "parameters": {}}, "sequence": 1}, session="h"))
    assert '"code":"notRegistered"' in peer.message()
    peer.send(hello("h/other"))
    assert '"code":"idMismatch"' in peer.message()
    peer.send(hello("h/app"))
    assert "\nWELCOME\n" in peer.message()


def test_subscriptions_beyond_the_bound_close_the_connection(flowd):
    daemon = flowd("--ephemeral")
    peer = RawWebSocket(daemon.port, path="/flowbus?id=inspector")
    for index in range(64):
        peer.send(f"SUBSCRIBE\nins/nobody-{index}/")
    peer.send("SUBSCRIBE\nins/one-too-many/")
    code, reason = peer.closed_with()
    assert code == 1008 and "subscriptions" in reason
    long_topic = RawWebSocket(daemon.port, path="/flowbus?id=inspector2")
    long_topic.send("SUBSCRIBE\n" + "x" * 300)
    assert long_topic.closed_with()[0] == 1008


def test_a_handshake_that_never_ends_is_closed(flowd):
    daemon = flowd("--ephemeral")
    slow = RawWebSocket(daemon.port, handshake=False)
    slow.socket.sendall(b"GET /flowbus?id=slow HTTP/1.1\r\nHost: 127.0.0.1\r\n")
    started = time.monotonic()
    slow.socket.settimeout(20)
    assert slow.socket.recv(1024) == b"", "flowd closes the connection"
    assert time.monotonic() - started < 15


def test_connections_beyond_the_limit_are_closed_as_they_open(flowd):
    daemon = flowd("--ephemeral", "--websocket-max-connections", "2")
    first = RawWebSocket(daemon.port, path="/flowbus?id=one")
    second = RawWebSocket(daemon.port, path="/flowbus?id=two")
    assert first.status == 101 and second.status == 101
    third = RawWebSocket(daemon.port, path="/flowbus?id=three")
    assert third.status == 0, "closed before any answer"
    first.close()
    wait_until(lambda: RawWebSocket(daemon.port, path="/flowbus?id=four").status == 101, 5, "a free place again")


def test_a_new_connection_under_an_id_takes_it_over(flowd):
    daemon = flowd("--ephemeral")
    old = RawWebSocket(daemon.port, path="/flowbus?id=h%2Fapp")
    old.send(hello("h/app"))
    assert "\nWELCOME\n" in old.message()
    new = RawWebSocket(daemon.port, path="/flowbus?id=h%2Fapp")
    code, reason = old.closed_with()
    assert code == 4409 and "another connection" in reason
    new.send(hello("h/app"))
    assert "\nWELCOME\n" in new.message()


def test_a_reader_that_never_reads_costs_bounded_memory_and_is_closed(flowd):
    daemon = flowd(
        "--ephemeral", "--heartbeat-interval", "300", "--heartbeat-timeout", "1500",
        flows="Tests/Browser/flows/ticker.yaml",
    )
    # It subscribes to everything (the inspection stream of every session) and never reads again.
    sleeper = RawWebSocket(daemon.port, path="/flowbus?id=sleeper")
    sleeper.socket.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sleeper.send(message("HELLO", {"role": "inspector", "id": "sleeper", "protocolVersion": 1}))
    sleeper.send("SUBSCRIBE\ninb/")
    sleeper.send("SUBSCRIBE\nins/")
    before = resident_bytes(daemon.process.pid)
    ticker = RawWebSocket(daemon.port, path="/flowbus?id=t%2Fticker")
    ticker.send(hello("t/ticker", session="t", name="ticker"))
    assert "\nWELCOME\n" in ticker.message()
    acknowledged = 0
    peak = before
    started = time.monotonic()
    for n in range(1, 3001):
        ticker.send(message("STEP", {"step": {"name": "tick", "parameters": {"n": n, "pad": "x" * 2000}}, "sequence": n}, id_=n + 1, session="t"))
        if n % 50 == 0:
            while acknowledged < n:
                text = ticker.message(within=10)
                assert text is not None, "the stepper is still served"
                if "\nSTEP_ACK\n" in text:
                    acknowledged += 1
            peak = max(peak, resident_bytes(daemon.process.pid))
    assert acknowledged == 3000
    assert time.monotonic() - started < 60
    # What waits for the sleeper is bounded (its queue), whatever it was sent.
    assert peak - before < 96 << 20, f"flowd grew by {(peak - before) >> 20} MiB"
    # It answers no ping: flowd closes it once the heartbeat timeout has passed (its end of the connection leaves
    # ESTABLISHED, whatever the system still holds to send it).
    sleeper_port = sleeper.socket.getsockname()[1]

    def flowd_end_state():
        listed = subprocess.run(
            ["ss", "-tnH", f"( sport = :{daemon.port} and dport = :{sleeper_port} )"], capture_output=True, text=True
        ).stdout.split()
        return listed[0] if listed else "gone"

    wait_until(lambda: flowd_end_state() != "ESTAB", 15, "flowd to close the reader that never reads")
