extension WebSocketSettings {
    /// Reads the `websocketOrigins` setting: origins separated by commas or spaces, each `scheme://host[:port]`, or
    /// `*`.
    /// - Parameter text: the setting as written.
    /// - Throws: ``ConfigurationError`` naming an origin that is not of that form.
    static func origins(parsing text: String) throws -> [String] {
        let origins = text.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\n" }).map(String.init)
        for origin in origins where origin != "*" {
            guard let schemeEnd = origin.range(of: "://"), !origin[schemeEnd.upperBound...].isEmpty,
                !origin[schemeEnd.upperBound...].contains("/")
            else {
                throw ConfigurationError(
                    "\(DaemonSetting.websocketOrigins) takes origins as a browser sends them, scheme://host[:port] (https://kiosk.example, http://localhost:8080), or *, not '\(origin.prefix(64))'"
                )
            }
        }
        return origins
    }
}
