import Foundation

extension DaemonConfiguration {
    /// Reads the fleet's settings: with `store`, the state directory gives way to the database.
    mutating func readFleet(_ settings: DaemonSettings, environment: [String: String]) throws {
        let fleetOnly: [DaemonSetting] = [.instance, .lease, .advertiseControl, .advertiseEvents]
        guard let url = settings.text(.store), url != "sqlite" else {
            if let given = fleetOnly.first(where: { settings[$0] != nil }) {
                throw ConfigurationError(
                    "\(settings.naming(given)) is for an instance of a fleet: give \(settings.naming(.store)) postgres://... too"
                )
            }
            return
        }
        guard FleetConfiguration.isPostgresURL(url) else {
            throw ConfigurationError(
                "\(settings.naming(.store)) is sqlite (the state directory, the default) or a PostgreSQL URL such as postgres://flowd@db/flowbus, not '\(url.prefix(64))'"
            )
        }
        if settings[.stateDir] != nil {
            throw ConfigurationError(
                "\(settings.naming(.store)) and \(settings.naming(.stateDir)) contradict each other: a fleet keeps its sessions in its database; give one"
            )
        }
        let hostName = ProcessInfo.processInfo.hostName.split(separator: ".").first.map(String.init) ?? "localhost"
        let instance = settings.text(.instance) ?? environment["HOSTNAME"].flatMap { $0.isEmpty ? nil : $0 } ?? hostName
        guard !instance.isEmpty, instance.utf8.count <= 255, !instance.contains(" ") else {
            throw ConfigurationError("\(settings.naming(.instance)) must be 1 to 255 bytes without spaces")
        }
        let lease = settings.duration(.lease) ?? FleetConfiguration.defaultLease
        guard lease >= .milliseconds(300) else {
            throw ConfigurationError("\(settings.naming(.lease)) must be at least 300ms (it is renewed every third)")
        }
        let control =
            settings.texts(.advertiseControl) ?? FleetConfiguration.advertised(controlEndpoints, hostName: hostName)
        let events =
            settings.texts(.advertiseEvents) ?? FleetConfiguration.advertised(eventsEndpoints, hostName: hostName)
        // The others are told where to send a session's clients: a port chosen as flowd binds is known to nobody.
        if let unknown = (control + events).first(where: FleetConfiguration.hasPortChosenAtBind) {
            throw ConfigurationError(
                "\(unknown) is where this instance's clients would be sent by the others, but its port is chosen as flowd binds: give the port, or what to advertise with \(settings.naming(.advertiseControl)) and \(settings.naming(.advertiseEvents))"
            )
        }
        guard control.count == events.count else {
            throw ConfigurationError(
                "\(settings.naming(.advertiseControl)) and \(settings.naming(.advertiseEvents)) pair up: give as many of each (\(control.count) and \(events.count))"
            )
        }
        stateDirectory = nil
        fleet = FleetConfiguration(
            storeURL: url,
            instance: instance,
            lease: lease,
            advertisedControl: control,
            advertisedEvents: events
        )
    }
}
