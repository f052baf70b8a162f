import FlowCore
import FlowWire
import Foundation
import ZeroMQ

/// The connection's thread: it owns the sockets and nothing else touches them. What it polls becomes events for
/// the client's state machine (``ClientStateMachine``), which holds every protocol rule; the loop carries out the
/// actions it returns, and sleeps until the machine's next deadline.
final class ConnectionLoop {
    let connection: BusConnection
    let clock = ContinuousClock()
    let codec = WireCodec()
    var machine: ClientStateMachine<ContinuousClock>
    var sockets: ClientSockets
    /// The caller of `connect`, until the first WELCOME (or the client gives up).
    var startup: PendingReply<Void>?
    var running = true

    /// Runs a connection on the calling thread until it is closed (or never reaches flowd).
    static func run(_ connection: BusConnection, registered: PendingReply<Void>) {
        let loop: ConnectionLoop
        do {
            loop = try ConnectionLoop(connection, startup: registered)
        } catch {
            registered.resume(with: .failure(error))
            _ = connection.closeQueue()
            connection.updates?.finish()
            connection.questions?.finish()
            return
        }
        loop.run()
    }

    private init(_ connection: BusConnection, startup: PendingReply<Void>) throws(FlowBusError) {
        self.connection = connection
        self.startup = startup
        let setup = connection.setup
        machine = ClientStateMachine(setup: setup, now: clock.now)
        do {
            sockets = try ClientSockets(setup, to: machine.target, wakeup: connection.wakeup)
        } catch {
            throw FlowBusError(.invalidOptions, "cannot connect to \(setup.options.endpoints.control): \(error)")
        }
    }

    private var setup: ConnectionSetup { connection.setup }

    // MARK: The loop

    private func run() {
        while running {
            let ready: [ClientSockets.Source]
            do {
                let deadline = machine.nextDeadline(now: clock.now)
                ready = try sockets.poll(timeout: max(.zero, clock.now.duration(to: deadline)))
            } catch {
                setup.options.logger.info("polling failed, the connection stops: \(error)")
                break
            }
            for source in ready {
                switch source {
                case .wakeup:
                    connection.wakeup.drain()
                case .control:
                    receiveFromDaemon()
                case .controlMonitor:
                    while let event = try? sockets.monitor.next() {
                        LinkEvent(event).map { perform(machine.control($0, now: clock.now)) }
                    }
                case .events:
                    receivePublished()
                case .eventsMonitor:
                    while let event = try? sockets.subscriberMonitor?.next() {
                        LinkEvent(event).map { perform(machine.subscription($0, now: clock.now)) }
                    }
                }
            }
            for request in connection.takeRequests() {
                perform(machine.handle(request, now: clock.now))
            }
            perform(machine.tick(now: clock.now))
        }
        perform(machine.finish(queued: connection.closeQueue(), now: clock.now))
    }

    private func receiveFromDaemon() {
        while running, let message = try? sockets.dealer.receive(dontWait: true) {
            let decoded = Result { () throws(WireError) in try codec.decode(message.frames) }
            perform(machine.received(decoded, now: clock.now))
        }
    }

    private func receivePublished() {
        while let message = try? sockets.subscriber?.receive(dontWait: true) {
            guard let envelope = try? codec.decode(Array(message.frames.dropFirst())) else { continue }
            perform(machine.published(envelope, now: clock.now))
        }
    }

    // MARK: Actions

    private func perform(_ actions: [ClientAction]) {
        for action in actions {
            perform(action)
        }
    }

    private func perform(_ action: ClientAction) {
        switch action {
        case .send(let message):
            let sentAt = Int64(Date().timeIntervalSince1970 * 1000)
            // A full queue (flowd away for long) drops the message; what waits for an answer is sent again later.
            _ = try? sockets.dealer.send(
                frames: message.frames(codec, sender: setup.id, sentAt: sentAt),
                dontWait: true
            )
        case .reconnect(let target):
            do {
                sockets = try ClientSockets(setup, to: target, wakeup: connection.wakeup)
            } catch {
                setup.options.logger.info("cannot open new connections, the client stops: \(error)")
                running = false
            }
        case .settleStep(let fate, let result):
            connection.releaseStep()
            fate?.resume(with: result.mapError { $0 })
        case .answer(let reply, let result):
            reply.resume(with: result.mapError { $0 })
        case .started:
            startup?.resume(with: .success(()))
            startup = nil
        case .startupFailed(let error):
            startup?.resume(with: .failure(error))
            startup = nil
        case .welcomed(let welcome):
            connection.welcome.withLock { $0 = welcome }
        case .present(let update):
            connection.screens.withLock { $0 = update.screens }
            connection.updates?.add(update)
        case .publishScreens(let screens):
            connection.screens.withLock { $0 = screens }
        case .question(let question):
            connection.questions?.yield(question)
        case .log(let level, let message):
            setup.options.logger.log(level: level, "\(message)")
        case .endStreams:
            connection.updates?.finish()
            connection.questions?.finish()
        case .closed(let waiter):
            waiter.resume(with: .success(()))
        case .stop:
            running = false
        }
    }
}
