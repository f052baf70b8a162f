// Step parameters, session data and screen parameters are JSON values: FlowCore's users get FlowJSON with it.
@_exported import FlowJSON
