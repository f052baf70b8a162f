import FlowCore
import FlowWire

extension Coordinator {
    /// A presenter's visibility report, about its own screens only.
    mutating func visibility(_ report: VisibilityReport, from peer: Peer, header: Header) {
        guard peer.role == .presenter else {
            reply(to: peer.id, correlation: header.id, error: .notAPresenter, "only presenters report visibility")
            return
        }
        guard let session = session(of: peer, header: header) else { return }
        // Published with its outcome, after the engine took or refused it: a recording keeps what was taken.
        var fields: JSONObject = [
            "presenter": .string(peer.name), "visibility": .string(report.visibility.rawValue),
            "presentables": .array(report.presentables.map { .int(Int($0.rawValue)) }),
        ]
        do {
            let effects = try engine.report(
                report.visibility,
                of: report.presentables,
                by: PresenterID(peer.name),
                session: session
            )
            record(
                .visibility(
                    presenter: PresenterID(peer.name),
                    visibility: report.visibility,
                    presentables: report.presentables
                ),
                session: session
            )
            inspect(.visibilityReported, session: session, fields)
            apply(effects)
        } catch {
            fields["refused"] = .string(error.message)
            inspect(.visibilityReported, session: session, fields)
            reply(to: peer.id, correlation: header.id, error: ErrorCode(error.code.rawValue), error.message)
        }
    }

    /// Everything a presenter must show, as the commands that build it, valid at its current sequence.
    mutating func snapshot(_ request: SnapshotRequest, for peer: Peer, header: Header) {
        guard let session = session(of: peer, header: header) else { return }
        guard let screens = engine.screens(of: session) else {
            reply(to: peer.id, correlation: header.id, error: .unknownSession, "the session does not exist")
            return
        }
        let presenter = PresenterID(request.presenter ?? peer.name)
        let message = SnapshotMessage(
            presenter: presenter.rawValue,
            sequence: ledger.commandSequence(of: session, to: presenter),
            epoch: setup.epoch,
            commands: screens.rebuildCommands(for: presenter)
        )
        send(.snapshot(message), to: peer.id, session: session, correlation: header.id)
    }
}
