import FlowHTTP
import NIOCore
import NIOHTTP1
import NIOWebSocket

/// What the WebSocket endpoint answers to a request that is not an upgrade: its assets by path (any origin may load
/// them: they are public code), and for the endpoint's own path, why the upgrade was refused (a status and a reason)
/// or that an upgrade is needed (426). Anything else is 404. Served by an ``HTTPRequestResponder``.
struct WebSocketEndpointAnswers: Sendable {
    let assets: [String: WebAsset]
    let decide: @Sendable (HTTPRequestHead, any Channel) -> WebSocketHandshake.Decision

    /// The answer to a request on `channel`.
    func answer(_ head: HTTPRequestHead, on channel: any Channel) -> HTTPAnswer {
        var answer: HTTPAnswer
        let path = String(WebSocketHandshake.split(head.uri).path)
        if let refused = HTTPAnswer.onlyGetAndHead(head, server: "flowd's WebSocket endpoint") {
            answer = refused
        } else if let asset = assets[path] {
            answer = HTTPAnswer(.ok, contentType: asset.contentType, body: asset.bytes)
        } else if path == "/flowbus" {
            switch decide(head, channel) {
            case .refuse(let status, let reason):
                answer = .text(HTTPResponseStatus(statusCode: status), reason + "\n")
            default:
                answer = .text(
                    .upgradeRequired,
                    "this is flowd's WebSocket endpoint: open it with a WebSocket client\n"
                )
            }
        } else {
            let served = (["/flowbus"] + assets.keys.sorted()).joined(separator: ", ")
            answer = .text(.notFound, "not found: flowd serves \(served) here\n")
        }
        answer.headers += [
            ("Access-Control-Allow-Origin", "*"), ("Cache-Control", "no-cache"), ("X-Content-Type-Options", "nosniff"),
        ]
        answer.keepAlive = head.isKeepAlive && answer.status == .ok
        return answer
    }

    /// A declined upgrade comes as this error before its request does: the request is answered with the reason.
    static func tolerates(_ error: any Error) -> Bool {
        error is NIOWebSocketUpgradeError
    }
}
