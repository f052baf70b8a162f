/// Makes flows by name, so that a restored session gets its flows back, and so that flow files and wire
/// messages can name a flow.
public struct FlowRegistry: Sendable {
    /// Makes a flow from the parameters it was created with.
    public typealias Factory = @Sendable (JSONObject) throws -> any Flow

    private var factories: [String: Factory] = [:]

    /// Creates an empty registry.
    public init() {}

    /// Registers a factory under `name` (the ``Flow/name`` of the flows it makes), replacing any other.
    public mutating func register(_ name: String, factory: @escaping Factory) {
        factories[name] = factory
    }

    /// Registers a flow type that can be made from its parameters.
    public mutating func register<F: RestorableFlow>(_ type: F.Type) {
        register(F.flowName) { try F(parameters: $0) }
    }

    /// The registered names, sorted.
    public var names: [String] {
        factories.keys.sorted()
    }

    /// Makes the flow registered under `name`.
    public func make(_ name: String, parameters: JSONObject = [:]) throws(FlowCoreError) -> any Flow {
        guard let factory = factories[name] else {
            let known = names.isEmpty ? "none is registered" : "known: \(names.joined(separator: ", "))"
            throw FlowCoreError(.unknownFlow, "no flow named \"\(name)\" is registered (\(known))")
        }
        do {
            return try factory(parameters)
        } catch let error as FlowCoreError {
            throw error
        } catch {
            throw FlowCoreError(.unknownFlow, "the flow \"\(name)\" cannot be made from \(parameters): \(error)")
        }
    }
}

/// A flow type that a ``FlowRegistry`` can make from its parameters.
public protocol RestorableFlow: Flow {
    /// The name it is registered under; its instances' ``Flow/name`` must be the same.
    static var flowName: String { get }
    /// Makes the flow from the ``Flow/parameters`` an earlier instance had.
    init(parameters: JSONObject) throws
}

extension RestorableFlow {
    public static var flowName: String { String(describing: Self.self) }
    public var name: String { Self.flowName }
}
