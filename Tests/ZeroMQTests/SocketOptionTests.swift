import Testing
import ZeroMQ

@Suite struct SocketOptionTests {
    @Test func readableOptionsRoundTrip() throws {
        let context = try Context()
        let socket = try Socket(.router, context: context)

        try socket.setOption(.sendHighWaterMark, 12_345)
        #expect(try socket.option(.sendHighWaterMark) == 12_345)
        try socket.setOption(.receiveHighWaterMark, 0)
        #expect(try socket.option(.receiveHighWaterMark) == 0)
        try socket.setOption(.linger, .milliseconds(250))
        #expect(try socket.option(.linger) == .milliseconds(250))
        try socket.setOption(.linger, nil)
        #expect(try socket.option(.linger) == nil)
        try socket.setOption(.routingID, [0, 1, 2])
        #expect(try socket.option(.routingID) == [0, 1, 2])
        try socket.setOption(.heartbeatInterval, .milliseconds(500))
        #expect(try socket.option(.heartbeatInterval) == .milliseconds(500))
        try socket.setOption(.heartbeatTimeToLive, .seconds(3))
        #expect(try socket.option(.heartbeatTimeToLive) == .seconds(3))
        try socket.setOption(.heartbeatTimeout, .milliseconds(1500))
        #expect(try socket.option(.heartbeatTimeout) == .milliseconds(1500))
        try socket.setOption(.immediate, true)
        #expect(try socket.option(.immediate) == true)
        try socket.setOption(.maxMessageSize, 65_536)
        #expect(try socket.option(.maxMessageSize) == 65_536)
        try socket.setOption(.maxMessageSize, nil)
        #expect(try socket.option(.maxMessageSize) == nil)
        try socket.setOption(.receiveTimeout, .milliseconds(40))
        #expect(try socket.option(.receiveTimeout) == .milliseconds(40))
        try socket.setOption(.sendTimeout, nil)
        #expect(try socket.option(.sendTimeout) == nil)
        try socket.setOption(.reconnectInterval, .milliseconds(50))
        #expect(try socket.option(.reconnectInterval) == .milliseconds(50))
        try socket.setOption(.reconnectIntervalMax, .seconds(2))
        #expect(try socket.option(.reconnectIntervalMax) == .seconds(2))
        try socket.setOption(.zapDomain, "flowbus")
        #expect(try socket.option(.zapDomain) == "flowbus")
    }

    @Test func aNewSocketHasTheExplicitZeroLinger() throws {
        let context = try Context()
        #expect(try Socket(.dealer, context: context).option(.linger) == .zero)
        #expect(try Socket(.dealer, context: context, linger: .seconds(1)).option(.linger) == .seconds(1))
    }

    @Test func writeOnlyOptionsAreSetButReadingThemIsAClearError() throws {
        let context = try Context()
        let router = try Socket(.router, context: context)
        try router.setOption(.routerHandover, true)
        try router.setOption(.routerMandatory, true)
        let publisher = try Socket(.extendedPublisher, context: context)
        try publisher.setOption(.extendedPublisherVerboser, true)
        try publisher.setOption(.extendedPublisherWelcomeMessage, Array("hi".utf8))

        let error = #expect(throws: ZeroMQError.self) { try router.option(.routerHandover) }
        #expect(error?.code == .notSupported)
        #expect(error?.message.contains("ZMQ_ROUTER_HANDOVER") == true)
    }

    @Test func invalidValuesAreErrorsThatNameTheOption() throws {
        let context = try Context()
        let socket = try Socket(.dealer, context: context)
        // Tried: an empty routing id, a 256-byte routing id, a value too big for a C int, an option
        // for another socket type.
        let empty = #expect(throws: ZeroMQError.self) { try socket.setOption(.routingID, []) }
        #expect(empty?.code == .invalidArgument)
        #expect(empty?.operation.contains("ZMQ_ROUTING_ID") == true)
        #expect(throws: ZeroMQError.self) { try socket.setOption(.routingID, [UInt8](repeating: 1, count: 256)) }
        let tooBig = #expect(throws: ZeroMQError.self) { try socket.setOption(.sendHighWaterMark, Int(Int32.max) + 1) }
        #expect(tooBig?.code == .invalidArgument)
        #expect(throws: ZeroMQError.self) { try socket.setOption(.extendedPublisherVerboser, true) }
        // The socket still works after refused options.
        #expect(try socket.option(.sendHighWaterMark) == 1000)
    }

    @Test func badEndpointsAreErrors() throws {
        let context = try Context()
        let socket = try Socket(.router, context: context)
        // Tried: an unknown transport, a malformed tcp address, a port already bound.
        let unknown = #expect(throws: ZeroMQError.self) { try socket.bind("carrier-pigeon://coop") }
        #expect(unknown?.code == .protocolNotSupported)
        #expect(throws: ZeroMQError.self) { try socket.bind("tcp://not an address") }
        let endpoint = try socket.bindFresh(.tcp)
        let other = try Socket(.router, context: context)
        let inUse = #expect(throws: ZeroMQError.self) { try other.bind(endpoint) }
        #expect(inUse?.code == .addressInUse)
    }

    @Test func theLibraryReportsItsVersionAndCurve() {
        #expect(ZeroMQLibrary.version.major == 4)
        #expect(ZeroMQLibrary.version.minor >= 3)
        #expect(ZeroMQLibrary.has("curve"))
        #expect(ZeroMQLibrary.has("ipc"))
    }
}
