/// The JavaScript client, as flowd serves it beside its WebSocket endpoint (`/flowbus.js`, `/flowbus.d.ts`): the files
/// of this folder, built into the binary so that a flowd installed alone serves them.
public enum FlowWebClient {
    /// `flowbus.js`: the ES module.
    public static let script: [UInt8] = PackageResources.flowbus_js
    /// `flowbus.d.ts`: its TypeScript declarations.
    public static let declarations: [UInt8] = PackageResources.flowbus_d_ts
}
