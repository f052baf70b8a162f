import Foundation
import Yams

/// flowd's configuration file (YAML): every key is optional, and a command-line flag wins over the file.
///
/// ```yaml
/// flows: /etc/flowbus/flows.yaml
/// control: [ "ipc:///run/flowbus/control", "tcp://127.0.0.1:5860" ]
/// events: [ "ipc:///run/flowbus/events", "tcp://127.0.0.1:5861" ]
/// heartbeatInterval: 1000
/// ```
public struct ConfigurationFile: Sendable, Hashable {
    /// The keys a file may have.
    public static let keys = [
        "flows", "control", "events", "tcp", "heartbeatInterval", "heartbeatTimeout", "maxMessageSize", "guardTimeout",
        "deepLinkWait", "curveSecretKey", "authorizedKeys",
    ]

    /// The flow file.
    public var flows: String?
    /// Control endpoints.
    public var control: [String]?
    /// Events endpoints.
    public var events: [String]?
    /// Whether the default tcp endpoints are added to the default ipc ones.
    public var tcp: Bool?
    /// Milliseconds.
    public var heartbeatInterval: Int?
    /// Milliseconds.
    public var heartbeatTimeout: Int?
    /// Bytes.
    public var maxMessageSize: Int?
    /// Milliseconds.
    public var guardTimeout: Int?
    /// Milliseconds.
    public var deepLinkWait: Int?
    /// flowd's CURVE secret key (Z85); with it, every socket requires CURVE.
    public var curveSecretKey: String?
    /// Client id → CURVE public key (Z85).
    public var authorizedKeys: [String: String]?

    /// An empty configuration: every default.
    public init() {}

    /// Reads a configuration file.
    /// - Throws: a message naming the file, the line and the key for anything wrong.
    public static func load(contentsOf path: String) throws -> ConfigurationFile {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw ConfigurationError("cannot read \(path): \(error.localizedDescription)")
        }
        let root: Node?
        do {
            root = try Yams.compose(yaml: text)
        } catch {
            throw ConfigurationError("\(path): not valid YAML: \(error)")
        }
        var file = ConfigurationFile()
        guard let root else { return file }
        guard case .mapping(let mapping) = root else {
            throw ConfigurationError("\(path): a configuration file is a mapping of keys to values")
        }
        var problems: [String] = []
        for (keyNode, value) in mapping {
            let key = keyNode.string ?? ""
            let place = "\(path):\(keyNode.mark?.line ?? 0):\(keyNode.mark?.column ?? 0)"
            func number() -> Int? {
                guard let number = value.int, number > 0 else {
                    problems.append("\(place): '\(key)' must be a positive whole number")
                    return nil
                }
                return number
            }
            func strings() -> [String]? {
                if let single = value.string, case .scalar = value { return [single] }
                guard case .sequence(let items) = value, items.allSatisfy({ $0.string != nil }) else {
                    problems.append("\(place): '\(key)' must be an endpoint or a list of endpoints")
                    return nil
                }
                return items.compactMap(\.string)
            }
            switch key {
            case "flows": file.flows = value.string
            case "control": file.control = strings()
            case "events": file.events = strings()
            case "tcp":
                guard let flag = value.bool else {
                    problems.append("\(place): 'tcp' must be true or false")
                    continue
                }
                file.tcp = flag
            case "heartbeatInterval": file.heartbeatInterval = number()
            case "heartbeatTimeout": file.heartbeatTimeout = number()
            case "maxMessageSize": file.maxMessageSize = number()
            case "guardTimeout": file.guardTimeout = number()
            case "deepLinkWait": file.deepLinkWait = number()
            case "curveSecretKey": file.curveSecretKey = value.string
            case "authorizedKeys":
                guard case .mapping(let keys) = value,
                    keys.allSatisfy({ $0.key.string != nil && $0.value.string != nil })
                else {
                    problems.append("\(place): 'authorizedKeys' maps client ids to Z85 public keys")
                    continue
                }
                file.authorizedKeys = Dictionary(
                    keys.compactMap { pair in pair.key.string.flatMap { id in pair.value.string.map { (id, $0) } } },
                    uniquingKeysWith: { _, last in last }
                )
            default:
                problems.append("\(place): unknown key '\(key)'; known keys: \(keys.joined(separator: ", "))")
            }
        }
        guard problems.isEmpty else {
            throw ConfigurationError(problems.joined(separator: "\n"))
        }
        return file
    }
}

/// A configuration file that cannot be used, and why.
public struct ConfigurationError: Error, Sendable, CustomStringConvertible {
    /// Where and what.
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}
