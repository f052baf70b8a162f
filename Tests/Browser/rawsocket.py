"""A WebSocket client written for hostile tests: every byte on the wire is the test's to choose (frames of any size,
fragments, binary, a handshake left unfinished), so that what flowd does with them is seen as it is."""

import base64
import os
import socket
import struct
import time


class RawWebSocket:
    def __init__(self, port, path="/flowbus?id=hostile", protocols=("flowbus.v1",), headers=None, handshake=True):
        self.socket = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.buffer = b""
        if handshake:
            self.status, self.response = self.handshake(path, protocols, headers or {})

    def handshake(self, path, protocols, headers):
        key = base64.b64encode(os.urandom(16)).decode()
        lines = [
            f"GET {path} HTTP/1.1", "Host: 127.0.0.1", "Upgrade: websocket", "Connection: Upgrade",
            f"Sec-WebSocket-Key: {key}", "Sec-WebSocket-Version: 13",
        ]
        if protocols:
            lines.append("Sec-WebSocket-Protocol: " + ", ".join(protocols))
        lines += [f"{name}: {value}" for name, value in headers.items()]
        try:
            self.socket.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
            while b"\r\n\r\n" not in self.buffer:
                chunk = self.socket.recv(65536)
                if not chunk:
                    break
                self.buffer += chunk
        except (ConnectionResetError, BrokenPipeError):
            return 0, ""
        head, _, self.buffer = self.buffer.partition(b"\r\n\r\n")
        status = int(head.split(b" ", 2)[1]) if head else 0
        return status, head.decode(errors="replace")

    def body(self):
        """What follows a refused handshake's head (the reason), until flowd closes."""
        self.socket.settimeout(5)
        while True:
            chunk = self.socket.recv(65536)
            if not chunk:
                return self.buffer.decode(errors="replace")
            self.buffer += chunk

    def frame(self, payload, opcode=0x1, fin=True, mask=True):
        """Sends one frame."""
        if isinstance(payload, str):
            payload = payload.encode()
        first = (0x80 if fin else 0) | opcode
        length = len(payload)
        if length < 126:
            header = struct.pack("!BB", first, (0x80 if mask else 0) | length)
        elif length < 65536:
            header = struct.pack("!BBH", first, (0x80 if mask else 0) | 126, length)
        else:
            header = struct.pack("!BBQ", first, (0x80 if mask else 0) | 127, length)
        if mask:
            key = os.urandom(4)
            masked = bytes(b ^ key[i % 4] for i, b in enumerate(payload)) if length < 4096 else _mask(payload, key)
            self.socket.sendall(header + key + masked)
        else:
            self.socket.sendall(header + payload)

    def send(self, text):
        self.frame(text)

    def receive(self, within=5.0):
        """The next frame from flowd: (opcode, payload); (None, b"") when the connection ended."""
        self.socket.settimeout(within)
        try:
            while True:
                parsed = self._parse()
                if parsed:
                    return parsed
                chunk = self.socket.recv(65536)
                if not chunk:
                    return None, b""
                self.buffer += chunk
        except (ConnectionResetError, BrokenPipeError):
            return None, b""

    def _parse(self):
        if len(self.buffer) < 2:
            return None
        first, second = self.buffer[0], self.buffer[1]
        length = second & 0x7F
        offset = 2
        if length == 126:
            if len(self.buffer) < 4:
                return None
            length = struct.unpack("!H", self.buffer[2:4])[0]
            offset = 4
        elif length == 127:
            if len(self.buffer) < 10:
                return None
            length = struct.unpack("!Q", self.buffer[2:10])[0]
            offset = 10
        if len(self.buffer) < offset + length:
            return None
        payload = self.buffer[offset : offset + length]
        self.buffer = self.buffer[offset + length :]
        return first & 0x0F, payload

    def message(self, within=5.0, skip_heartbeats=True):
        """The next text message (skipping pings and, unless asked, HEARTBEATs), as text; None at the end."""
        deadline = time.monotonic() + within
        while True:
            opcode, payload = self.receive(max(0.01, deadline - time.monotonic()))
            if opcode is None:
                return None
            if opcode == 0x9:
                self.frame(payload, opcode=0xA)
                continue
            if opcode == 0x8:
                raise Closed(*close_reason(payload))
            if opcode == 0x1:
                text = payload.decode()
                if skip_heartbeats and "\nHEARTBEAT\n" in text and not text.startswith("PUBLISH"):
                    continue
                return text

    def closed_with(self, within=5.0):
        """Waits for flowd's close frame; returns (code, reason)."""
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            opcode, payload = self.receive(max(0.01, deadline - time.monotonic()))
            if opcode is None:
                return None, "connection ended without a close frame"
            if opcode == 0x8:
                return close_reason(payload)
            if opcode == 0x9:
                self.frame(payload, opcode=0xA)
        raise AssertionError(f"no close frame within {within} s")

    def close(self):
        try:
            self.socket.close()
        except OSError:
            pass


class Closed(Exception):
    def __init__(self, code, reason):
        super().__init__(f"closed {code}: {reason}")
        self.code = code
        self.reason = reason


def close_reason(payload):
    if len(payload) < 2:
        return 1005, ""
    return struct.unpack("!H", payload[:2])[0], payload[2:].decode(errors="replace")


def _mask(payload, key):
    repeated = (key * (len(payload) // 4 + 1))[: len(payload)]
    return (int.from_bytes(payload, "big") ^ int.from_bytes(repeated, "big")).to_bytes(len(payload), "big")


def message(type_, body, id_=1, session=None):
    """A protocol message's text."""
    import json

    header = {"id": id_, "sentAt": 0}
    if session:
        header["session"] = session
    return f"FLOWBUS/1\n{type_}\n{json.dumps(header)}\n{json.dumps(body)}"
