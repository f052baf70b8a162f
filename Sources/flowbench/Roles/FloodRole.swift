import FlowWire
import Foundation
import Synchronization
import ZeroMQ

/// `flowbench flooder CONTROL`: a registered stepper that sends 64 KiB STEP bodies of the most expensive shape
/// (empty objects: 25 ns a byte to read) naming a step no flow declares, as fast as its socket takes them, until
/// its standard input closes or says `stop`.
enum FloodRole {
    static func run(_ arguments: [String]) throws {
        let context = try Context()
        let dealer = try Socket(.dealer, context: context)
        try dealer.setOption(.routingID, Array("flooder/app".utf8))
        try dealer.connect(arguments[0])
        let codec = WireCodec()
        let hello = Hello(role: .stepper, id: "flooder/app", name: "app", session: "flooder")
        try dealer.send(frames: codec.encode(Envelope(header: Header(id: 0, sentAt: 0), message: .hello(hello))))
        let value = "[" + Array(repeating: "{}", count: 21_800).joined(separator: ",") + "]"
        let body = Array("{\"step\":{\"name\":\"noSuchStep\",\"parameters\":{\"a\":\(value)}},\"sequence\":1}".utf8)
        let header = Array("{\"id\":1,\"session\":\"flooder\",\"sentAt\":0}".utf8)
        let frames = [WireCodec.protocolFrame, Array("STEP".utf8), header, body]
        let stopping = Stopping()
        Thread {
            while let line = readLine(), line != "stop" {}
            stopping.stop()
        }.start()
        RoleLines.say("ready")
        var sent = 0
        while !stopping.isStopped {
            if try dealer.send(frames: frames, dontWait: true) {
                sent += 1
            } else {
                _ = try dealer.wait(for: .writable, within: .milliseconds(10))
            }
            while try dealer.receive(dontWait: true) != nil {}
        }
        RoleLines.say("done \(sent)")
    }
}

/// A flag another thread sets.
private final class Stopping: Sendable {
    private let flag = Mutex(false)
    var isStopped: Bool { flag.withLock { $0 } }
    func stop() { flag.withLock { $0 = true } }
}
