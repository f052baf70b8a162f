/// An engine's options, one instance for all of its sessions: each session refers to it, where a copy in each took
/// 96 bytes of every idle one.
final class SharedEngineOptions: Sendable {
    let options: EngineOptions

    init(_ options: EngineOptions) {
        self.options = options
    }
}
