#!/usr/bin/env python3
"""The coordinator a user might write instead of running flowd: Python, pyzmq and the json module, one hard-coded
flow (every `tick` shows an Item as the detail of the split), no engine, no gating, no inspection, no journal.

flowbench starts it as `coordinator.py CONTROL EVENTS` and drives it with the same lean clients as flowd: it speaks
just enough of the FlowBus protocol for them (HELLO, STEP, HEARTBEAT, BYE; a subscription confirmed by a HEARTBEAT
on its topic).
"""
import json
import sys
import time

import zmq

PROTOCOL = b"FLOWBUS/1"


def compact(value):
    return json.dumps(value, separators=(",", ":"))


def main(control, events):
    context = zmq.Context()
    router = context.socket(zmq.ROUTER)
    router.setsockopt(zmq.SNDHWM, 0)
    router.setsockopt(zmq.RCVHWM, 0)
    router.bind(control)
    publisher = context.socket(zmq.XPUB)
    publisher.setsockopt(zmq.SNDHWM, 0)
    publisher.bind(events)
    poller = zmq.Poller()
    poller.register(router, zmq.POLLIN)
    poller.register(publisher, zmq.POLLIN)
    print("ready", flush=True)
    next_id = 0
    command_sequence = 0
    presentable = 1

    def header(**fields):
        nonlocal next_id
        next_id += 1
        return compact({"id": next_id, "sentAt": int(time.time() * 1000), **fields}).encode()

    while True:
        for socket, _ in poller.poll():
            if socket is publisher:
                subscription = publisher.recv()
                if subscription[:1] == b"\x01":
                    publisher.send_multipart([subscription[1:], PROTOCOL, b"HEARTBEAT", header(), b"{}"])
                continue
            frames = router.recv_multipart()
            if len(frames) != 5 or frames[1] != PROTOCOL:
                continue
            peer, kind, body = frames[0], frames[2], json.loads(frames[4])
            request = json.loads(frames[3])
            if kind == b"HELLO":
                welcome = {"daemonVersion": "coordinator.py", "id": body["id"], "session": body.get("session"),
                           "sessionCreated": False, "heartbeatInterval": 5000, "heartbeatTimeout": 15000,
                           "maxMessageSize": 65536, "epoch": "py"}
                router.send_multipart([peer, PROTOCOL, b"WELCOME", header(correlation=request["id"]),
                                       compact(welcome).encode()])
            elif kind == b"STEP":
                step = body["step"]
                command_sequence += 1
                presentable += 1
                session = request.get("session", "bench")
                commands = {"presenter": "main", "sequence": command_sequence, "epoch": "py", "flow": 1,
                            "commands": [{"op": "setDetail", "container": 1,
                                          "presentable": {"id": presentable, "style": "screen", "name": "Item",
                                                          "parameters": step.get("parameters", {}), "flow": 1}}],
                            "step": step}
                publisher.send_multipart([f"cmd/{session}/main".encode(), PROTOCOL, b"COMMANDS",
                                          header(session=session), compact(commands).encode()])
                acknowledgement = {"sequence": body["sequence"], "fate": {"accepted": True, "flows": [1]}}
                router.send_multipart([peer, PROTOCOL, b"STEP_ACK", header(session=session, correlation=request["id"]),
                                       compact(acknowledgement).encode()])


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
