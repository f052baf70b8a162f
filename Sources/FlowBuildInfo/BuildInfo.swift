/// What flowd and flowctl were built from: printed by `--version`, exported as the `flowbus_build_info` metric and
/// sent to clients in WELCOME.
public enum BuildInfo {
    /// The version of FlowBus these binaries belong to.
    public static let version = "0.2.0"

    /// The commit the binaries were built from (twelve hex digits, `-dirty` when the tree had uncommitted
    /// changes), or "unknown" when they were built outside a git checkout without `FLOWBUS_COMMIT`.
    public static let commit = buildCommit

    /// One line for `--version`: the program's name, the version and the commit.
    ///
    /// - Parameter program: the name the line starts with (`flowd`, `flowctl`).
    /// - Returns: a line such as `flowd 0.2.0 (commit 51eba6e3c2d1)`.
    public static func versionLine(program: String) -> String {
        "\(program) \(version) (commit \(commit))"
    }
}
