// A client program speaks in FlowCore's vocabulary (steps, presentable ids, screens) and names flowd's
// endpoints; `import FlowBus` brings both.
@_exported import FlowCore

@_exported import struct FlowWire.Endpoints
