import NIOHTTP1

/// A whole HTTP/1.1 response to one request: its status, content type, body and extra headers.
public struct HTTPAnswer: Sendable {
    public var status: HTTPResponseStatus
    public var contentType: String
    public var body: [UInt8]
    /// Headers beside `Content-Type` and `Content-Length`.
    public var headers: [(String, String)]
    /// Whether the connection stays open after it; nil: as the request asked.
    public var keepAlive: Bool?

    /// An answer; `headers` beside `Content-Type` and `Content-Length`.
    public init(
        _ status: HTTPResponseStatus,
        contentType: String,
        body: [UInt8],
        headers: [(String, String)] = [],
        keepAlive: Bool? = nil
    ) {
        self.status = status
        self.contentType = contentType
        self.body = body
        self.headers = headers
        self.keepAlive = keepAlive
    }

    /// A plain-text answer (`text/plain; charset=utf-8`).
    public static func text(_ status: HTTPResponseStatus, _ text: String, headers: [(String, String)] = []) -> Self {
        HTTPAnswer(status, contentType: "text/plain; charset=utf-8", body: Array(text.utf8), headers: headers)
    }

    /// 405 for a method other than GET and HEAD, saying what `server` serves; nil for GET and HEAD.
    public static func onlyGetAndHead(_ head: HTTPRequestHead, server: String) -> Self? {
        guard head.method != .GET && head.method != .HEAD else { return nil }
        return .text(.methodNotAllowed, "\(server) serves GET and HEAD only\n", headers: [("Allow", "GET, HEAD")])
    }
}

extension HTTPRequestHead {
    /// The request's path, without its query or fragment.
    public var path: String {
        String(uri.prefix { $0 != "?" && $0 != "#" })
    }
}
