"""The connection every role shares: a DEALER on flowd's control endpoint (its routing id the client's id), and for
roles that read published messages a SUB on the events endpoint. It registers with HELLO each time the connection
is made and whenever flowd says `notRegistered`, keeps the connection alive (HEARTBEAT, ZMTP heartbeats), follows a
fleet's REDIRECTs and tries the next instance when the one in use does not answer, and matches answers to requests
by `correlation` (the specification's "A client, step by step")."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Any

import zmq
import zmq.asyncio
from zmq.utils.monitor import parse_monitor_message

from .errors import FlowBusError
from .options import Endpoints, Options
from .wire import JSONObject, Message, decode, decode_published, encode, now_ms

log = logging.getLogger("flowbus")

#: How long a HELLO may wait for its answer before the next instance of a fleet is tried.
HELLO_PATIENCE = 0.5
#: How many HELLOs go unanswered on one connection before it is opened anew (under CURVE, one: flowd keeps an id
#: that a closing connection still holds, and takes nothing this one sends as the client's).
HELLOS_BEFORE_NEW_CONNECTION = 4


class Link:
    """One registration with flowd, kept alive across lost connections, restarts and a fleet's moves."""

    def __init__(
        self,
        role: str,
        *,
        session: str | None,
        name: str | None,
        options: Options,
        topics: list[str] | None = None,
        on_welcome: Callable[[JSONObject], None] | None = None,
        on_message: Callable[[Message], None] | None = None,
        on_published: Callable[[str, Message], None] | None = None,
        on_events_connected: Callable[[], None] | None = None,
        on_overdue: Callable[[float], None] | None = None,
    ) -> None:
        self.role = role
        self.session = session
        self.name = name
        self.options = options
        if not options.endpoints:
            # `Options(id=...)` alone: flowd is found as the environment says (FLOWBUS_CONTROL...), else at its default.
            options = options.replacing(endpoints=Options.from_environment().endpoints)
            self.options = options
        # The Swift library's rule: `session/name`, or the name alone for a client of no session.
        self.id = options.id or (f"{session}/{name}" if session and name else name or role)
        self.topics = topics or []
        self.on_welcome = on_welcome
        self.on_message = on_message
        self.on_published = on_published
        self.on_events_connected = on_events_connected
        #: Called a few times per heartbeat timeout while registered, with the moment before which what was sent
        #: and not answered is overdue (sent again: a message dropped on the way).
        self.on_overdue = on_overdue
        self.context = zmq.asyncio.Context.instance()
        self.dealer: zmq.asyncio.Socket | None = None
        self.subscriber: zmq.asyncio.Socket | None = None
        self.monitor: zmq.asyncio.Socket | None = None
        self.welcome: JSONObject | None = None
        self.registered = asyncio.Event()
        self.problem: FlowBusError | None = None
        self.next_id = 1
        self.answers: dict[int, asyncio.Future[Message]] = {}
        self.pair = 0
        self.redirected: Endpoints | None = None
        self.last_sent = 0.0
        self.last_heard = 0.0
        self.hello_sent_at: float | None = None
        self.hello_id: int | None = None
        self.hellos_unanswered = 0
        #: How long an unanswered HELLO waits before the next: doubles up to the options' maximum.
        self.hello_retry = options.reconnect_interval * 2
        #: Set when flowd refuses the first HELLO for good (`nameTaken`, `notAllowed`...): `start` fails at once.
        self.refused = asyncio.Event()
        self.started = False
        #: Moves to another instance (REDIRECTs, stores that do not answer) since the last WELCOME: each waits longer.
        self.moves = 0
        #: A move waiting for its moment: where to, and when.
        self.move_to: Endpoints | None = None
        self.move_at = 0.0
        self.next_overdue_check = 0.0
        self.closed = False
        self.connected = False
        #: When to try the next instance of a fleet (set when the connection drops; acted on by the loop only).
        self.failover_at: float | None = None
        self.task: asyncio.Task[None] | None = None

    # MARK: Life

    async def start(self) -> None:
        """Connects and registers; raises `unreachable` when flowd does not welcome the client within the
        options' connect timeout (or the error flowd refused the HELLO with)."""
        self._open(self.options.endpoints[0])
        self.task = asyncio.get_running_loop().create_task(self._run())
        self.task.add_done_callback(self._ended)
        waits = [asyncio.ensure_future(self.registered.wait()), asyncio.ensure_future(self.refused.wait())]
        try:
            await asyncio.wait(waits, timeout=self.options.connect_timeout, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for waiting in waits:
                waiting.cancel()
        if self.registered.is_set():
            self.started = True
            return
        await self.close(say_bye=False)
        if self.refused.is_set() and self.problem is not None:
            raise self.problem
        raise self.problem or FlowBusError(
            "unreachable",
            f"flowd did not answer at {self.endpoints.control} within {self.options.connect_timeout:g} s",
        )

    async def close(self, say_bye: bool = True) -> None:
        if self.closed:
            return
        bye = say_bye and self.registered.is_set() and self.dealer is not None
        if bye and self.dealer is not None:
            with contextlib.suppress(zmq.ZMQError):
                await self.dealer.send_multipart(self._frames("BYE", {"reason": "closed"}))
                # Given 200 ms to leave: closed at once, the BYE would be dropped with the socket.
                self.dealer.setsockopt(zmq.LINGER, 200)
        self.closed = True
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self.task
        for future in self.answers.values():
            if not future.done():
                future.set_exception(FlowBusError("closed", "the client was closed"))
        self._close_sockets()

    def _ended(self, task: asyncio.Task[None]) -> None:
        """The loop ended: by close(), or by an error, which is logged and given to everyone waiting."""
        if task.cancelled() or task.exception() is None:
            return
        error = task.exception()
        log.error("flowbus %s: the client's loop stopped: %r", self.id, error)
        self.problem = FlowBusError("internal", f"the client's loop stopped: {error!r}")
        for future in self.answers.values():
            if not future.done():
                future.set_exception(self.problem)

    @property
    def endpoints(self) -> Endpoints:
        return self.redirected or self.options.endpoints[self.pair % len(self.options.endpoints)]

    # MARK: Sending

    def _frames(self, type: str, body: JSONObject, session: str | None = None, id: int | None = None) -> list[bytes]:
        header: JSONObject = {"id": id if id is not None else self._take_id(), "sentAt": now_ms()}
        if session is not None:
            header["session"] = session
        return encode(type, header, body)

    def _take_id(self) -> int:
        value = self.next_id
        self.next_id += 1
        return value

    def send(self, type: str, body: JSONObject, session: str | None = None) -> int:
        """Sends a message now (flowd must have welcomed the client); returns its id."""
        if self.dealer is None or self.closed:
            raise FlowBusError("closed", "the client is closed")
        message_id = self._take_id()
        self.dealer.send_multipart(self._frames(type, body, session, message_id))
        self.last_sent = asyncio.get_running_loop().time()
        return message_id

    def expect(self, message_id: int) -> asyncio.Future[Message]:
        """The answer to message `message_id` (a REPLY, a STEP_ACK... or an ERROR), when it comes."""
        future: asyncio.Future[Message] = asyncio.get_running_loop().create_future()
        self.answers[message_id] = future
        return future

    async def request(self, type: str, body: JSONObject, session: str | None = None, timeout: float = 5.0) -> Message:
        """Sends a message once registered and waits for its answer; an ERROR is raised as FlowBusError."""
        await self.wait_registered(timeout)
        message_id = self.send(type, body, session)
        future = self.expect(message_id)
        try:
            answer = await asyncio.wait_for(future, timeout)
        except TimeoutError:
            raise FlowBusError("timeout", f"flowd did not answer {type} within {timeout:g} s") from None
        finally:
            self.answers.pop(message_id, None)
        if answer.type == "ERROR":
            raise error_of(answer)
        return answer

    async def wait_registered(self, timeout: float) -> None:
        if self.closed:
            raise FlowBusError("closed", "the client is closed")
        try:
            await asyncio.wait_for(self.registered.wait(), timeout)
        except TimeoutError:
            raise self.problem or FlowBusError("unreachable", f"flowd is not answering at {self.endpoints.control}") from None

    # MARK: Sockets

    def _open(self, endpoints: Endpoints) -> None:
        self._close_sockets()
        dealer = self.context.socket(zmq.DEALER)
        dealer.setsockopt(zmq.LINGER, 0)
        dealer.setsockopt(zmq.ROUTING_ID, self.id.encode("utf-8"))
        interval = int(self.options.connection_check_interval * 1000)
        dealer.setsockopt(zmq.HEARTBEAT_IVL, interval)
        dealer.setsockopt(zmq.HEARTBEAT_TIMEOUT, interval * 4)
        self._secure(dealer)
        self.monitor = dealer.get_monitor_socket(zmq.EVENT_CONNECTED | zmq.EVENT_DISCONNECTED)
        dealer.connect(endpoints.control)
        self.dealer = dealer
        if self.topics or self.on_published:
            subscriber = self.context.socket(zmq.SUB)
            subscriber.setsockopt(zmq.LINGER, 0)
            self._secure(subscriber)
            for topic in self.topics:
                subscriber.setsockopt(zmq.SUBSCRIBE, topic.encode("utf-8"))
            subscriber.connect(endpoints.events)
            self.subscriber = subscriber
        self.registered.clear()
        self.connected = False
        self.failover_at = None
        self.move_to = None
        # HELLO goes when the connection is made (the monitor says so); said again if unanswered (`_tick`).
        self.hello_sent_at = asyncio.get_running_loop().time()
        self.hellos_unanswered = 0

    def _secure(self, socket: zmq.asyncio.Socket) -> None:
        curve = self.options.curve
        if curve is None:
            return
        socket.setsockopt(zmq.CURVE_SECRETKEY, curve.secret_key.encode("ascii"))
        socket.setsockopt(zmq.CURVE_PUBLICKEY, curve.public_key.encode("ascii"))
        socket.setsockopt(zmq.CURVE_SERVERKEY, curve.server_key.encode("ascii"))

    def _close_sockets(self) -> None:
        if self.dealer is not None:
            with contextlib.suppress(zmq.ZMQError):
                self.dealer.disable_monitor()
        for socket in (self.monitor, self.dealer, self.subscriber):
            if socket is not None:
                socket.close(linger=200 if socket is self.dealer and self.closed else 0)
        self.dealer = self.subscriber = self.monitor = None

    def subscribe(self, topic: str) -> None:
        if topic not in self.topics:
            self.topics.append(topic)
        if self.subscriber is not None:
            self.subscriber.setsockopt(zmq.SUBSCRIBE, topic.encode("utf-8"))

    # MARK: The loop

    def _hello(self) -> None:
        body: JSONObject = {"role": self.role, "id": self.id, "protocolVersion": 1, "capabilities": []}
        if self.session is not None:
            body["session"] = self.session
        if self.name is not None:
            body["name"] = self.name
        assert self.dealer is not None
        self.hello_id = self._take_id()
        self.dealer.send_multipart(self._frames("HELLO", body, id=self.hello_id))
        loop = asyncio.get_running_loop()
        self.hello_sent_at = self.last_sent = loop.time()

    def _next_instance(self, why: str, backing_off: bool = False) -> None:
        """Tries the next pair of endpoints (or, back from a redirect, the pair that sent the client there); with
        `backing_off`, after a wait that doubles with each such move until a WELCOME."""
        if self.redirected is not None:
            self.redirected = None
        elif len(self.options.endpoints) > 1:
            self.pair += 1
        log.info("flowbus %s: %s; trying %s", self.id, why, self.endpoints.control)
        if backing_off:
            self._move(self.endpoints)
        else:
            self._open(self.endpoints)

    def _move(self, endpoints: Endpoints) -> None:
        """Connects to `endpoints`: at once the first time since the last WELCOME, then after a wait that doubles
        (a chain of REDIRECTs, or instances whose store does not answer, would otherwise spin)."""
        delay = 0.0 if self.moves == 0 else min(
            self.options.reconnect_interval * 2 ** self.moves, self.options.reconnect_interval_max
        )
        self.moves += 1
        if delay == 0.0:
            self._open(endpoints)
            return
        self.move_to = endpoints
        self.move_at = asyncio.get_running_loop().time() + delay

    async def _run(self) -> None:
        poller = zmq.asyncio.Poller()
        loop = asyncio.get_running_loop()
        registered_sockets: tuple[Any, ...] = ()
        while not self.closed:
            sockets = (self.dealer, self.subscriber, self.monitor)
            if sockets != registered_sockets:
                poller = zmq.asyncio.Poller()
                for socket in sockets:
                    if socket is not None:
                        poller.register(socket, zmq.POLLIN)
                registered_sockets = sockets
            ready = dict(await poller.poll(50))
            now = loop.time()
            if self.monitor is not None and self.monitor in ready:
                self._guarded(self._monitored, await self.monitor.recv_multipart())
                continue
            if self.dealer is not None and self.dealer in ready:
                frames = await self.dealer.recv_multipart()
                self.last_heard = now
                self._guarded(self._received, frames)
                if (self.dealer, self.subscriber, self.monitor) != registered_sockets:
                    continue  # connected elsewhere (a redirect): what was ready is of the sockets closed
            if self.subscriber is not None and self.subscriber in ready:
                self._guarded(self._published, await self.subscriber.recv_multipart())
            self._tick(now)

    def _guarded(self, handle: Callable[[list[bytes]], None], frames: list[bytes]) -> None:
        """Handles what came; an error of a handler (the application's callback included) is logged, and the loop
        goes on."""
        try:
            handle(frames)
        except Exception:
            log.exception("flowbus %s: handling a message failed", self.id)

    def _tick(self, now: float) -> None:
        if self.dealer is None:
            return
        if self.move_to is not None:
            if now >= self.move_at:
                self._open(self.move_to)
            return
        fleet = len(self.options.endpoints) > 1 or self.redirected is not None
        if not self.registered.is_set():
            if self.failover_at is not None and now >= self.failover_at:
                self._next_instance("the connection was lost")
                return
            if not self.connected:
                # libzmq connects again by itself; a fleet moves on when this one does not come within patience.
                if fleet and self.hello_sent_at is not None and now - self.hello_sent_at > HELLO_PATIENCE:
                    self._next_instance("no connection")
                return
            if self.hello_sent_at is None or now - self.hello_sent_at > (HELLO_PATIENCE if fleet else self.hello_retry):
                if self.hello_sent_at is not None:
                    self.hellos_unanswered += 1
                    if fleet:
                        self._next_instance("no answer to HELLO")
                        return
                    unanswered = 1 if self.options.curve is not None else HELLOS_BEFORE_NEW_CONNECTION
                    if self.hellos_unanswered >= unanswered:
                        # A connection whose HELLOs go unanswered is opened anew (the specification's advice).
                        self._open(self.endpoints)
                        return
                    self.hello_retry = min(self.hello_retry * 2, self.options.reconnect_interval_max)
                self._hello()
            return
        welcome = self.welcome or {}
        interval = (welcome.get("heartbeatInterval") or 1000) / 1000
        timeout = (welcome.get("heartbeatTimeout") or 5000) / 1000
        if now - self.last_sent >= interval:
            self.dealer.send_multipart(self._frames("HEARTBEAT", {}))
            self.last_sent = now
        if now - self.last_heard > timeout:
            log.info("flowbus %s: nothing heard from flowd for %.1f s: connecting again", self.id, timeout)
            self._open(self.endpoints)
            return
        if self.on_overdue is not None and now >= self.next_overdue_check:
            self.next_overdue_check = now + timeout / 20
            self.on_overdue(now - timeout)

    def _monitored(self, frames: list[bytes]) -> None:
        event = parse_monitor_message(frames)["event"]
        now = asyncio.get_running_loop().time()
        if event == zmq.EVENT_CONNECTED:
            # Registered anew on each connection: flowd may have restarted.
            self.connected = True
            self.failover_at = None
            if self.dealer is not None:
                self.registered.clear()
                self._hello()
        elif event == zmq.EVENT_DISCONNECTED:
            self.connected = False
            self.registered.clear()
            self.hello_sent_at = now
            if len(self.options.endpoints) > 1 or self.redirected is not None:
                # Half a second later, the next instance (the loop does it: sockets change only there).
                self.failover_at = now + HELLO_PATIENCE

    def _received(self, frames: list[bytes]) -> None:
        try:
            message = decode(frames)
        except FlowBusError as error:
            log.warning("flowbus %s: %s", self.id, error.message)
            if not self.registered.is_set():
                # What `connect` says if no WELCOME comes: the peer at the endpoint does not speak FlowBus.
                self.problem = FlowBusError(error.code, f"{error.message} (at {self.endpoints.control})")
            return
        correlation = message.correlation
        if message.type == "WELCOME":
            self.welcome = message.body
            self.problem = None
            self.hellos_unanswered = 0
            self.hello_sent_at = None
            self.hello_retry = self.options.reconnect_interval * 2
            self.moves = 0
            self.next_overdue_check = asyncio.get_running_loop().time()
            if self.on_welcome is not None:
                self.on_welcome(message.body)
            self.registered.set()
            if self.subscriber is not None and self.on_events_connected is not None:
                self.on_events_connected()
            return
        if message.type == "REDIRECT":
            self._redirect(message.body)
            return
        if message.type == "ERROR" and message.body.get("code") == "notRegistered":
            # flowd restarted, or forgot this client: HELLO again (steps waiting for their fate are resent after the
            # next WELCOME by the stepper).
            self.registered.clear()
            self._hello()
            return
        if message.type == "ERROR" and not self.registered.is_set() and correlation == self.hello_id:
            self._refused(message)
            return
        if correlation is not None and (future := self.answers.pop(correlation, None)) is not None:
            if not future.done():
                future.set_result(message)
            return
        if self.on_message is not None:
            self.on_message(message)

    def _refused(self, message: Message) -> None:
        """flowd refused the HELLO: its store does not answer (HELLO again later, or at the next instance), or it
        refuses the client (`nameTaken`, `notAllowed`...): `start` fails at once; later, what waits learns why."""
        self.problem = error_of(message)
        if self.problem.code == "storeUnavailable":
            log.info("flowbus %s: flowd cannot register the client now: %s", self.id, self.problem.message)
            self.hellos_unanswered = 0
            if len(self.options.endpoints) > 1 or self.redirected is not None:
                self._next_instance("the instance's store does not answer", backing_off=True)
            return
        if not self.started:
            self.refused.set()
            return
        log.warning("flowbus %s: flowd refused to register the client again: %s", self.id, self.problem)
        for future in self.answers.values():
            if not future.done():
                future.set_exception(self.problem)

    def _redirect(self, body: JSONObject) -> None:
        controls = [item for item in body.get("control") or [] if isinstance(item, str)]
        events = [item for item in body.get("events") or [] if isinstance(item, str)]
        pairs = [Endpoints(c, e) for c, e in zip(controls, events)]
        if not pairs:
            log.warning("flowbus %s: a REDIRECT without endpoints", self.id)
            return
        scheme = self.endpoints.control.split("://")[0]
        chosen = next((pair for pair in pairs if pair.control.startswith(scheme + "://")), pairs[0])
        log.info("flowbus %s: session %s is served by %s: going there", self.id, body.get("session"), body.get("instance"))
        self.redirected = chosen
        self._move(chosen)

    def _published(self, frames: list[bytes]) -> None:
        try:
            topic, message = decode_published(frames)
        except FlowBusError as error:
            log.warning("flowbus %s: %s", self.id, error.message)
            return
        if self.on_published is not None:
            self.on_published(topic, message)


def error_of(message: Message) -> FlowBusError:
    """The FlowBusError an ERROR says."""
    return FlowBusError(str(message.body.get("code", "internal")), str(message.body.get("message", "")))

