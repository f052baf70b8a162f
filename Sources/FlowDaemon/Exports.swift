// The coordinator, its durability and the configuration value: what imports FlowDaemon sees them as before.
@_exported import FlowDaemonCore
