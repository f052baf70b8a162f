/// The inspector page's files, by the path they are served at: `index.html` at `/`, `inspector.js` and
/// `inspector.css` at the root, the other modules under `/modules/`. They are built into flowctl.
struct PageAssets: Sendable {
    /// A file and its `Content-Type`.
    struct File: Sendable {
        let contentType: String
        let bytes: [UInt8]
    }

    private let files: [String: File]

    /// The page's files.
    init() {
        let html = "text/html; charset=utf-8"
        let script = "text/javascript; charset=utf-8"
        var files: [String: File] = [
            "/": File(contentType: html, bytes: PackageResources.index_html),
            "/index.html": File(contentType: html, bytes: PackageResources.index_html),
            "/inspector.js": File(contentType: script, bytes: PackageResources.inspector_js),
            "/inspector.css": File(contentType: "text/css; charset=utf-8", bytes: PackageResources.inspector_css),
        ]
        for (name, bytes) in Self.modules {
            files["/modules/\(name)"] = File(contentType: script, bytes: bytes)
        }
        self.files = files
    }

    subscript(path: String) -> File? { files[path] }

    /// The page's modules by file name.
    private static let modules: [(String, [UInt8])] = [
        ("feed.js", PackageResources.feed_js),
        ("history.js", PackageResources.history_js),
        ("sessions-view.js", PackageResources.sessions_view_js),
        ("tree-view.js", PackageResources.tree_view_js),
        ("timeline-view.js", PackageResources.timeline_view_js),
        ("diagram-view.js", PackageResources.diagram_view_js),
        ("recording-view.js", PackageResources.recording_view_js),
        ("text.js", PackageResources.text_js),
    ]
}
