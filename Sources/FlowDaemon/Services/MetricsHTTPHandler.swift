import Foundation
import NIOCore
import NIOHTTP1

/// Answers one HTTP/1.1 connection of the metrics endpoint: `GET /metrics`, `/livez`, `/readyz` and `/`; anything
/// else is 404 (an unknown path) or 405 (another method). Keep-alive is honoured; request bodies are ignored.
final class MetricsHTTPHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let metrics: DaemonMetrics
    private let health: DaemonHealth
    private var request: HTTPRequestHead?

    init(metrics: DaemonMetrics, health: DaemonHealth) {
        self.metrics = metrics
        self.health = health
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            request = head
        case .body:
            break
        case .end:
            guard let head = request else { return }
            request = nil
            let (status, contentType, body) = answer(head)
            respond(context: context, head: head, status: status, contentType: contentType, body: body)
        }
    }

    /// The status, content type and body for a request.
    private func answer(_ head: HTTPRequestHead) -> (HTTPResponseStatus, String, [UInt8]) {
        let text = "text/plain; charset=utf-8"
        let path = head.uri.split(separator: "?", maxSplits: 1).first.map(String.init) ?? head.uri
        guard head.method == .GET || head.method == .HEAD else {
            return (.methodNotAllowed, text, Array("flowd serves GET and HEAD only\n".utf8))
        }
        switch path {
        case "/metrics":
            return (.ok, "text/plain; version=0.0.4; charset=utf-8", metrics.exposition())
        case "/livez":
            return Self.verdict(health.liveness, healthy: "alive")
        case "/readyz":
            return Self.verdict(health.readiness, healthy: "ready")
        case "/":
            return (.ok, text, Array("flowd: /metrics (Prometheus's text format), /livez, /readyz\n".utf8))
        default:
            return (.notFound, text, Array("not found: flowd serves GET /metrics, /livez and /readyz\n".utf8))
        }
    }

    private static func verdict(
        _ verdict: DaemonHealth.Verdict,
        healthy: String
    ) -> (HTTPResponseStatus, String, [UInt8]) {
        switch verdict {
        case .healthy: (.ok, "text/plain; charset=utf-8", Array("\(healthy)\n".utf8))
        case .unhealthy(let reason): (.serviceUnavailable, "text/plain; charset=utf-8", Array("\(reason)\n".utf8))
        }
    }

    private func respond(
        context: ChannelHandlerContext,
        head: HTTPRequestHead,
        status: HTTPResponseStatus,
        contentType: String,
        body: [UInt8]
    ) {
        HTTPReply.send(
            context: context,
            to: head,
            status: status,
            contentType: contentType,
            body: body,
            headers: status == .methodNotAllowed ? [("Allow", "GET, HEAD")] : []
        )
    }

    /// A connection silent for the idle timeout is closed.
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is IdleStateHandler.IdleStateEvent {
            context.close(promise: nil)
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
