import FlowHTTP
import NIOHTTP1

/// What the metrics endpoint answers: `GET /metrics`, `/livez`, `/readyz` and `/`; anything else is 404 (an unknown
/// path) or 405 (another method). Served by an ``HTTPRequestResponder`` (keep-alive honoured, bodies ignored).
struct MetricsEndpointAnswers: Sendable {
    let metrics: DaemonMetrics
    let health: DaemonHealth

    /// The answer to a request.
    func answer(_ head: HTTPRequestHead) -> HTTPAnswer {
        if let refused = HTTPAnswer.onlyGetAndHead(head, server: "flowd") {
            return refused
        }
        switch head.path {
        case "/metrics":
            return HTTPAnswer(.ok, contentType: "text/plain; version=0.0.4; charset=utf-8", body: metrics.exposition())
        case "/livez":
            return Self.verdict(health.liveness, healthy: "alive")
        case "/readyz":
            return Self.verdict(health.readiness, healthy: "ready")
        case "/":
            return .text(.ok, "flowd: /metrics (Prometheus's text format), /livez, /readyz\n")
        default:
            return .text(.notFound, "not found: flowd serves GET /metrics, /livez and /readyz\n")
        }
    }

    private static func verdict(_ verdict: DaemonHealth.Verdict, healthy: String) -> HTTPAnswer {
        switch verdict {
        case .healthy: .text(.ok, "\(healthy)\n")
        case .unhealthy(let reason): .text(.serviceUnavailable, "\(reason)\n")
        }
    }
}
