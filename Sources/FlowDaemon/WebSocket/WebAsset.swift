/// A file the WebSocket endpoint serves over plain HTTP beside it (`/flowbus.js`, the JavaScript client).
public struct WebAsset: Sendable {
    /// Its `Content-Type`.
    public var contentType: String
    /// Its bytes.
    public var bytes: [UInt8]

    /// An asset of `bytes` served as `contentType`.
    /// - Parameters:
    ///   - contentType: its `Content-Type` (`text/javascript; charset=utf-8`).
    ///   - bytes: its content.
    public init(contentType: String, bytes: [UInt8]) {
        self.contentType = contentType
        self.bytes = bytes
    }
}
