import FlowCore
import FlowSpec
import Testing

/// A deep link goes to every flow (RxFlow's rule), unless a flow says which of its steps deep links may bring
/// (`deepLinks: all | none | [steps]`): one `movieIsPicked` then opens one detail, not one in every tab.
@Suite struct DeepLinkTargetTests {
    private func yaml(watched: String, wishlist: String = "") -> String {
        """
        version: 1
        session: { root: Dashboard, stepper: { one: start } }
        steps:
          start: {}
          movieIsPicked: { withId: int }
        flows:
          Dashboard:
            root: { tabs: dashboard }
            on:
              start:
                - tabs:
                    - start: Wishlist
                    - start: Watched
          Wishlist:
            root: { stack: wishlist }
            \(wishlist)
            on:
              movieIsPicked:
                - show: WishlistDetail
                  params: { id: $withId }
          Watched:
            root: { stack: watched }
            \(watched)
            on:
              movieIsPicked:
                - show: WatchedDetail
                  params: { id: $withId }
        """
    }

    /// The detail screens a deep link `movieIsPicked` opened.
    private func details(_ yaml: String) throws -> (screens: [String], fate: StepFate?) {
        let spec = try specification(yaml)
        var engine = FlowEngine()
        _ = try spec.startSession("s", in: &engine)
        let linked = engine.deepLink([Step("movieIsPicked", ["withId": 5])], session: "s")
        let screens = (engine.screens(of: "s")?.nodes.values.map(\.description.name) ?? [])
            .filter { $0.hasSuffix("Detail") }.sorted()
        return (screens, linked.effects.fate(of: linked.token))
    }

    @Test func aDeepLinkReachesOnlyTheFlowsThatTakeIt() throws {
        // RxFlow's rule: both tabs push a detail.
        #expect(try details(yaml(watched: "")).screens == ["WatchedDetail", "WishlistDetail"])
        // The watched tab takes no deep link, or only another step: the wishlist alone opens it.
        for watched in ["deepLinks: none", "deepLinks: [start]"] {
            let (screens, fate) = try details(yaml(watched: watched))
            #expect(screens == ["WishlistDetail"], "\(watched)")
            #expect(fate?.isAccepted == true)
        }
        #expect(try details(yaml(watched: "deepLinks: all")).screens == ["WatchedDetail", "WishlistDetail"])
        // No flow takes it: unhandled.
        let nowhere = try details(yaml(watched: "deepLinks: none", wishlist: "deepLinks: none"))
        #expect(nowhere.screens.isEmpty)
        #expect(nowhere.fate == .dropped(.unhandled(step: "movieIsPicked")))
    }

    /// Tried: a word that is neither all nor none, a step nobody declared.
    @Test func badDeepLinksAreReported() {
        #expect(
            problems(yaml(watched: "deepLinks: some")).contains { $0.message.contains("must be all, none, or a list") }
        )
        #expect(problems(yaml(watched: "deepLinks: [moviesArePicked]")).contains { $0.kind == .unknownStep })
    }
}
