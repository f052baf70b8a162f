import FlowCore
import FlowDemo
import Testing

@Suite struct ScreenRendererTests {
    private func screen(_ id: UInt32, _ name: String, _ parameters: JSONObject = [:]) -> PresentableDescription {
        PresentableDescription(id: PresentableID(id), style: .screen, name: name, parameters: parameters, flow: nil)
    }

    private func container(
        _ id: UInt32,
        _ style: PresentableStyle,
        _ name: String,
        title: String? = nil
    )
        -> PresentableDescription
    {
        PresentableDescription(
            id: PresentableID(id),
            style: style,
            name: name,
            parameters: title.map { ["title": .string($0)] } ?? [:],
            flow: nil
        )
    }

    @Test func theWindowIsDrawnAsItsUserSeesIt() throws {
        var tree = ScreenTree()
        let commands: [NavigationCommand] = [
            .setWindowRoot(container(1, .stack, "app")),
            .push(container(2, .tabs, "dashboard"), onto: PresentableID(1)),
            .setTabs(
                PresentableID(2),
                [
                    container(3, .stack, "wishlist", title: "Wishlist"),
                    container(4, .stack, "watched", title: "Watched"),
                ],
                selected: 0
            ),
            .push(screen(5, "WishlistTable"), onto: PresentableID(3)),
            .push(screen(6, "MovieDetail", ["movieId": 7]), onto: PresentableID(3)),
            .present(container(7, .split, "settings"), over: PresentableID(2)),
            .setMaster(PresentableID(7), screen(8, "SettingsList")),
            .setDetail(PresentableID(7), screen(9, "About")),
        ]
        for command in commands {
            try tree.apply(command, for: "main")
        }
        let lines = ScreenRenderer().render(tree)
        #expect(
            lines == [
                "╭─ window main",
                "│ ▤ app: dashboard",
                "│   ▦ dashboard: [Wishlist]  Watched ",
                "│     ▤ wishlist: WishlistTable › MovieDetail(movieId: 7)",
                "│       ○ MovieDetail(movieId: 7)  ‹ back",
                "│   ┏━ presented over dashboard",
                "│   ┃ ◫ settings",
                "│   ┃   master ● SettingsList",
                "│   ┃   detail ● About",
                "│   ┗━",
                "╰─",
            ]
        )
        #expect(ScreenRenderer(presenter: "side").render(tree) == ["╭─ side ─ (empty window)", "╰─"])
    }
}

@Suite struct PresenterInputTests {
    @Test func tapsDismissalsAndQuitAreRead() throws {
        #expect(
            try PresenterInput(parsing: "tap WishlistTable movieIsPicked withId=7 title=Up flag=true")
                == .tap(
                    screen: "WishlistTable",
                    step: Step("movieIsPicked", ["withId": 7, "title": "Up", "flag": true])
                )
        )
        #expect(try PresenterInput(parsing: "  dismiss   MovieDetail ") == .dismiss(screen: "MovieDetail"))
        #expect(try PresenterInput(parsing: "quit") == .quit)
    }

    // Tried: an unknown command, a tap without a step, a parameter without '=', an empty key, dismiss without a
    // screen, an empty line.
    @Test(arguments: ["jump", "tap WishlistTable", "tap A b withId", "tap A b =3", "dismiss", ""])
    func badLinesSayWhatALineMustLookLike(line: String) {
        #expect(throws: PresenterInputError.self) { try PresenterInput(parsing: line) }
    }
}
