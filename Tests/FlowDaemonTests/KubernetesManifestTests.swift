import FlowBusTesting
import Foundation
import Testing
import Yams

/// The fleet's Kubernetes manifests in deploy/kubernetes: valid against Kubernetes' own schemas
/// (kubernetes-validate, from PyPI), and what they give flowd works: the flows the ConfigMap holds pass
/// `flowd check`, its settings with the Secret's store are a valid fleet configuration, and the probes ask for
/// flowd's health paths on its metrics port.
@Suite struct KubernetesManifestTests {
    let directory = repositoryRoot.appendingPathComponent("deploy/kubernetes").path

    /// kubernetes-validate, where bootstrap --tests installed it (pip's scripts directory may not be on the path).
    static let validator: String? = {
        let candidates = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map {
            "\($0)/kubernetes-validate"
        }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    /// The documents of a manifest file.
    private func documents(_ name: String) throws -> [[String: Any]] {
        let text = try String(contentsOfFile: directory + "/" + name, encoding: .utf8)
        return try Yams.load_all(yaml: text).compactMap { $0 as? [String: Any] }
    }

    @Test(
        .enabled(if: validator != nil, "kubernetes-validate is not installed (scripts/bootstrap --tests installs it)")
    )
    func theManifestsAreValidKubernetesObjects() throws {
        let files = ["flowd.yaml", "secret.example.yaml"].map { directory + "/" + $0 }
        let checked = try run(try #require(Self.validator), ["--strict"] + files)
        #expect(checked.status == 0, "\(checked.output)\(checked.errors)")
        for kind in [
            "configmap/flowd", "service/flowd", "statefulset/flowd", "poddisruptionbudget/flowd", "secret/flowd",
        ] {
            #expect(checked.output.contains("passed for resource \(kind)"), "\(checked.output)\(checked.errors)")
        }
    }

    @Test func theConfigMapsFlowsAndSettingsWorkWithFlowd() throws {
        let objects = try documents("flowd.yaml")
        let configMap = try #require(objects.first { $0["kind"] as? String == "ConfigMap" })
        let data = try #require(configMap["data"] as? [String: String])
        let scratch = ScratchDirectory("k8s")
        let flows = scratch.path + "/flows.yaml"
        try #require(data["flows.yaml"]).write(toFile: flows, atomically: true, encoding: .utf8)
        let flowd = try builtProduct("flowd")
        let checked = try run(flowd, ["check", flows])
        #expect(checked.status == 0, "\(checked.output)\(checked.errors)")
        // The settings, with the files where the pod mounts them moved here, and the Secret's store.
        let key = try run(flowd, ["keygen"]).output.split(separator: "\n").first { $0.contains("secret") }
        let secret = try #require(key?.split(separator: " ").last.map(String.init))
        try secret.write(toFile: scratch.path + "/curve-secret-key", atomically: true, encoding: .utf8)
        let settings = try #require(data["flowd.yaml"])
            .replacingOccurrences(of: "/etc/flowbus/flows.yaml", with: flows)
            .replacingOccurrences(of: "/etc/flowbus/curve/curve-secret-key", with: scratch.path + "/curve-secret-key")
        try settings.write(toFile: scratch.path + "/flowd.yaml", atomically: true, encoding: .utf8)
        let configured = try run(
            flowd,
            [
                "config", "--config", scratch.path + "/flowd.yaml",
                "--advertise-control=tcp://flowd-1.flowd.fleet.svc.cluster.local:5860",
                "--advertise-events=tcp://flowd-1.flowd.fleet.svc.cluster.local:5861",
            ],
            environment: ["FLOWD_STORE": "postgres://flowd:s3cret@postgres/flowbus", "FLOWD_INSTANCE": "flowd-1"]
        )
        #expect(configured.status == 0, "\(configured.output)\(configured.errors)")
        #expect(configured.output.contains("store: \"postgres://flowd:***@postgres/flowbus\""), "\(configured.output)")
        #expect(!configured.output.contains("s3cret"))
        #expect(configured.output.contains("instance: \"flowd-1\""))
        #expect(configured.output.contains("advertiseControl: [\"tcp://flowd-1.flowd.fleet.svc.cluster.local:5860\"]"))
    }

    @Test func theStatefulSetProbesFlowdsHealthAndReadsItsSecrets() throws {
        let objects = try documents("flowd.yaml")
        let statefulSet = try #require(objects.first { $0["kind"] as? String == "StatefulSet" })
        let spec = (statefulSet["spec"] as? [String: Any])?["template"] as? [String: Any]
        let containers = (spec?["spec"] as? [String: Any])?["containers"] as? [[String: Any]]
        let flowd = try #require(containers?.first)
        let path = { (probe: String) in
            ((flowd[probe] as? [String: Any])?["httpGet"] as? [String: Any])?["path"] as? String
        }
        #expect(path("readinessProbe") == "/readyz")
        #expect(path("livenessProbe") == "/livez")
        let environment = (flowd["env"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
        #expect(environment.contains("FLOWD_STORE") && environment.contains("FLOWD_INSTANCE"))
        let store = (flowd["env"] as? [[String: Any]])?.first { $0["name"] as? String == "FLOWD_STORE" }
        #expect(
            (store?["valueFrom"] as? [String: Any])?["secretKeyRef"] != nil,
            "the store URL must come from a Secret"
        )
        let budget = try #require(objects.first { $0["kind"] as? String == "PodDisruptionBudget" })
        #expect(((budget["spec"] as? [String: Any])?["maxUnavailable"] as? Int) == 1)
    }
}
