/// The commands of one navigation in order, each for a presenter.
///
/// While they are all for one presenter — nearly always — they are kept as the very list a batch sends, so that
/// sending them makes no list again; each command's presenter is written down only once they differ.
struct PresenterCommands {
    /// The commands, in order.
    private var commands: [NavigationCommand] = []
    /// The presenter of every command, while they share one (`nil` while there is none, or once they differ).
    private var sharedPresenter: PresenterID?
    /// Each command's presenter, once they differ; empty before.
    private var presenters: [PresenterID] = []

    mutating func append(_ command: NavigationCommand, for presenter: PresenterID) {
        if presenters.isEmpty {
            if commands.isEmpty || sharedPresenter == presenter {
                sharedPresenter = presenter
                commands.append(command)
                return
            }
            if let shared = sharedPresenter {
                presenters = Array(repeating: shared, count: commands.count)
            }
            sharedPresenter = nil
        }
        presenters.append(presenter)
        commands.append(command)
    }

    /// Calls `body` with each presenter and its commands in order, presenters in the order of their first command.
    func forEachPresenter(_ body: (PresenterID, [NavigationCommand]) -> Void) {
        if let sharedPresenter {
            body(sharedPresenter, commands)
            return
        }
        var order: [PresenterID] = []
        var grouped: [PresenterID: [NavigationCommand]] = [:]
        for (presenter, command) in zip(presenters, commands) {
            if grouped[presenter] == nil {
                order.append(presenter)
            }
            grouped[presenter, default: []].append(command)
        }
        for presenter in order {
            body(presenter, grouped[presenter] ?? [])
        }
    }
}
