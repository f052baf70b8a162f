import FlowSpec
import Yams

/// What flowd checks in its configuration file (YAML) before reading values from it: that it is a mapping of known
/// keys, each with a value of the right shape, and where each key is (so that a problem and `flowd config` name the
/// line). The values themselves are read through swift-configuration (``SettingSources``); the authorized keys, a
/// mapping of client ids, are read here.
///
/// ```yaml
/// flows: /etc/flowbus/flows.yaml
/// control: [ "ipc:///run/flowbus/control", "tcp://127.0.0.1:5860" ]
/// heartbeatInterval: 1000
/// ```
public struct ConfigurationFile: Sendable, Hashable {
    /// The file.
    public let path: String
    /// The line of each key given.
    public private(set) var lines: [String: Int] = [:]
    /// Each scalar value as written, for messages about it.
    public private(set) var written: [String: String] = [:]
    /// The clients `authorizedKeys` allows in, when the file has the key.
    public private(set) var authorizations: [ClientAuthorization]?

    /// Reads and checks `path`.
    /// - Throws: ``ConfigurationError`` naming the file, the line and the key of every problem.
    public init(contentsOf path: String) throws {
        self.path = path
        let text: String
        do {
            text = String(decoding: try FileReading.data(path), as: UTF8.self)
        } catch {
            throw ConfigurationError("cannot read the configuration file \(path): \(error.reason)")
        }
        let root: Node?
        do {
            root = try Yams.compose(yaml: text)
        } catch {
            // Yams quotes the line at fault, which may hold the CURVE secret key: only where and what is said.
            throw ConfigurationError("\(path): not valid YAML\(Self.place(of: error))")
        }
        guard let root else { return }
        guard case .mapping(let mapping) = root else {
            throw ConfigurationError("\(path): a configuration file is a mapping of keys to values")
        }
        var problems: [String] = []
        for (keyNode, value) in mapping {
            let key = keyNode.string ?? ""
            let line = keyNode.mark?.line ?? 0
            let place = "\(path):\(line):\(keyNode.mark?.column ?? 0)"
            if let first = lines[key] {
                problems.append("\(place): '\(key.prefix(64))' is given twice (first on line \(first))")
                continue
            }
            guard let setting = DaemonSetting.named(key) else {
                problems.append(
                    "\(place): unknown key '\(key.prefix(64))'; known keys: \(DaemonSetting.all.map(\.key).joined(separator: ", "))"
                )
                continue
            }
            lines[key] = line
            switch (setting.kind, value) {
            case (.authorizations, _):
                authorizations = Self.authorizations(value, at: place, problems: &problems)
            case (_, .scalar(let scalar)):
                written[key] = scalar.string
            case (.endpoints, .sequence(let items)) where items.allSatisfy({ $0.scalar != nil }):
                written[key] = items.compactMap(\.string).joined(separator: ", ")
            case (.endpoints, _):
                problems.append("\(place): '\(key)' must be an endpoint or a list of endpoints")
            default:
                problems.append("\(place): '\(key)' takes one value, not a list or a mapping")
            }
        }
        guard problems.isEmpty else {
            throw ConfigurationError(problems.joined(separator: "\n"))
        }
    }

    /// Whether the file gives any setting (an empty or comments-only file gives none).
    public var isEmpty: Bool { lines.isEmpty }

    /// Where a YAML error is, and what it is, without the text of the line (which may hold a secret).
    private static func place(of error: any Error) -> String {
        guard let yaml = error as? YamlError else { return "" }
        switch yaml {
        case .scanner(_, let problem, let mark, _), .parser(_, let problem, let mark, _):
            return " at line \(mark.line), column \(mark.column): \(problem)"
        case .composer(_, let problem, let mark, _):
            return " at line \(mark.line), column \(mark.column): \(problem)"
        case .duplicatedKeysInMapping(let duplicates, let context):
            return
                " at line \(context.mark.line): \(duplicates.map { "'\($0.prefix(64))'" }.joined(separator: ", ")) given twice"
        case .reader(let problem, _, _, _):
            return ": \(problem)"
        default:
            return ""
        }
    }

    /// `authorizedKeys`: client ids mapped to a key, or to a mapping with `key`, `sessions` and `roles`.
    private static func authorizations(
        _ value: Node,
        at place: String,
        problems: inout [String]
    ) -> [ClientAuthorization]? {
        guard case .mapping(let clients) = value else {
            problems.append("\(place): 'authorizedKeys' maps client ids to Z85 public keys (or to grants)")
            return nil
        }
        var authorizations: [ClientAuthorization] = []
        for (idNode, client) in clients {
            guard let id = idNode.string else { continue }
            if let key = client.string, case .scalar = client {
                authorizations.append(ClientAuthorization(id: id, key: key))
            } else if case .mapping(let fields) = client, let key = fields["key"]?.string {
                // A misspelt field (`session:`) would otherwise leave the key granted everything.
                let unknown = fields.map { $0.key.string ?? "" }.filter { !["key", "sessions", "roles"].contains($0) }
                guard unknown.isEmpty else {
                    problems.append(
                        "\(place): the grant of '\(id.prefix(64))' has '\(unknown[0].prefix(32))': a grant has key, sessions and roles"
                    )
                    continue
                }
                let list = { (node: Node) in node.sequence?.compactMap(\.string) ?? node.string.map { [$0] } ?? [] }
                let sessions = fields["sessions"].map(list)
                let roles = fields["roles"].map(list)
                do {
                    let grant = try ClientGrant(
                        parsing: (sessions ?? ["*"]).joined(separator: ",")
                            + (roles.map { ":" + $0.joined(separator: ",") } ?? "")
                    )
                    authorizations.append(ClientAuthorization(id: id, key: key, grant: grant))
                } catch {
                    problems.append("\(place): the grant of '\(id.prefix(64))': \(error)")
                }
            } else {
                problems.append("\(place): '\(id.prefix(64))' needs a key, or a mapping with key, sessions and roles")
            }
        }
        return authorizations
    }
}
