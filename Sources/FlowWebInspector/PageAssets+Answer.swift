import FlowHTTP
import NIOHTTP1

extension PageAssets {
    /// The answer to a plain HTTP request: a page file by path (`?…` ignored); for the feed's path, that it is a
    /// WebSocket; for anything else a 404 that says what is served; only GET and HEAD.
    func answer(_ head: HTTPRequestHead) -> HTTPAnswer {
        if let refused = HTTPAnswer.onlyGetAndHead(head, server: "flowctl web") {
            return refused
        }
        let path = head.path
        var answer: HTTPAnswer
        if let file = self[path] {
            answer = HTTPAnswer(.ok, contentType: file.contentType, body: file.bytes)
        } else if path == InspectorWebServer.feedPath {
            answer = .text(.upgradeRequired, "\(path) is the inspector page's WebSocket feed\n")
        } else {
            answer = .text(
                .notFound,
                "flowctl web has no page at \(path.prefix(200)): the inspector is at /, its feed at \(InspectorWebServer.feedPath)\n"
            )
        }
        answer.headers += [("Cache-Control", "no-store"), ("X-Content-Type-Options", "nosniff")]
        return answer
    }
}
