import ArgumentParser

/// flowdemo: the processes of the demo application (RxFlow's movies app on FlowBus).
@main
struct FlowDemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "flowdemo",
        abstract: "The processes of the FlowBus demo: RxFlow's movies app, one process per part.",
        subcommands: [Run.self, Web.self, Presenter.self, App.self, Auth.self, Settings.self, GenericStepper.self]
    )
}
