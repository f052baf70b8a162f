import FlowCore
import Foundation
import Testing

private func screen(_ id: UInt32, _ name: String = "Screen") -> PresentableDescription {
    PresentableDescription(id: PresentableID(id), style: .screen, name: name, flow: nil)
}

private func container(_ id: UInt32, _ style: PresentableStyle) -> PresentableDescription {
    PresentableDescription(id: PresentableID(id), style: style, name: "\(style)", flow: nil)
}

private func p(_ id: UInt32) -> PresentableID { PresentableID(id) }

@Suite struct ScreenTreeTests {
    @Test func stacksPushAndPopAndReportWhatWasRemoved() throws {
        var tree = ScreenTree()
        try tree.apply(.setWindowRoot(container(1, .stack)), for: .main)
        try tree.apply(.push(screen(2), onto: p(1)), for: .main)
        try tree.apply(.push(screen(3), onto: p(1)), for: .main)
        try tree.apply(.push(screen(4), onto: p(1)), for: .main)
        #expect(tree[p(1)]?.items == [p(2), p(3), p(4)])
        #expect(tree.visiblePresentables(of: .main) == [p(1), p(4)])

        let change = try tree.apply(.pop(stack: p(1), to: p(2)), for: .main)
        #expect(change.removed == [p(4), p(3)])
        #expect(tree[p(1)]?.items == [p(2)])
        #expect(tree[p(3)] == nil)
    }

    @Test func modalsTabsAndSplitsNestAndDismissTakesTheSubtree() throws {
        var tree = ScreenTree()
        try tree.apply(.setWindowRoot(container(1, .tabs)), for: .main)
        try tree.apply(.setTabs(p(1), [container(2, .stack), container(3, .stack)], selected: 1), for: .main)
        try tree.apply(.push(screen(4, "Watched"), onto: p(3)), for: .main)
        #expect(tree.visiblePresentables(of: .main) == [p(1), p(3), p(4)])

        try tree.apply(.present(container(5, .split), over: p(4)), for: .main)
        try tree.apply(.setMaster(p(5), screen(6, "SettingsList")), for: .main)
        try tree.apply(.setDetail(p(5), screen(7, "Login")), for: .main)
        #expect(tree.visiblePresentables(of: .main) == [p(5), p(6), p(7)])
        let replaced = try tree.apply(.setDetail(p(5), screen(8, "About")), for: .main)
        #expect(replaced.removed == [p(7)])

        let dismissed = try tree.apply(.dismiss(p(5)), for: .main)
        #expect(dismissed.removed == [p(5), p(6), p(8)])
        #expect(tree[p(4)]?.presented == nil)
        try tree.apply(.selectTab(p(1), index: 0), for: .main)
        #expect(tree.visiblePresentables(of: .main) == [p(1), p(2)])
    }

    @Test func dismissingAStackItemPopsTheItemsAboveIt() throws {
        var tree = ScreenTree()
        try tree.apply(.setWindowRoot(container(1, .stack)), for: .main)
        for id in 2...5 {
            try tree.apply(.push(screen(UInt32(id)), onto: p(1)), for: .main)
        }
        let change = try tree.apply(.dismiss(p(3)), for: .main)
        #expect(Set(change.removed) == [p(3), p(4), p(5)])
        #expect(tree[p(1)]?.items == [p(2)])
    }

    @Test func commandsThatDoNotFitAreErrorsAndChangeNothing() throws {
        var tree = ScreenTree()
        try tree.apply(.setWindowRoot(container(1, .tabs)), for: .main)
        try tree.apply(.setTabs(p(1), [screen(2)], selected: 0), for: .main)
        let before = tree
        // Tried: a push onto tabs, a push onto an unknown container, a presentable placed twice, a pop to an
        // item that is not in the stack, a tab out of range, presenting twice over the same host.
        let cases: [(NavigationCommand, FlowCoreError.Code)] = [
            (.push(screen(3), onto: p(1)), .wrongContainer),
            (.push(screen(3), onto: p(99)), .unknownPresentable),
            (.setTabs(p(1), [screen(2)], selected: 0), .alreadyPlaced),
            (.pop(stack: p(1), to: p(2)), .wrongContainer),
            (.selectTab(p(1), index: 5), .outOfRange),
            (.setTabs(p(1), [screen(3), screen(4)], selected: 2), .outOfRange),
            (.dismiss(p(42)), .unknownPresentable),
        ]
        for (command, code) in cases {
            let error = #expect(throws: FlowCoreError.self) { try tree.apply(command, for: .main) }
            #expect(error?.code == code, "\(command.operation)")
            #expect(tree == before)
        }
        try tree.apply(.present(screen(10), over: p(2)), for: .main)
        let twice = #expect(throws: FlowCoreError.self) { try tree.apply(.present(screen(11), over: p(2)), for: .main) }
        #expect(twice?.code == .alreadyPresenting)
    }

    @Test func rebuildCommandsRecreateTheSameTreeFromNothing() throws {
        var tree = ScreenTree()
        try tree.apply(.setWindowRoot(container(1, .tabs)), for: .main)
        try tree.apply(.setTabs(p(1), [container(2, .stack), container(3, .stack)], selected: 1), for: .main)
        try tree.apply(.push(screen(4), onto: p(2)), for: .main)
        try tree.apply(.push(screen(5), onto: p(2)), for: .main)
        try tree.apply(.present(container(6, .split), over: p(5)), for: .main)
        try tree.apply(.setMaster(p(6), screen(7)), for: .main)
        try tree.apply(.present(screen(8, "Alert"), over: p(7)), for: .main)
        try tree.apply(.setWindowRoot(screen(20, "Cluster")), for: "cluster")

        var rebuilt = ScreenTree()
        for presenter in [PresenterID.main, "cluster"] {
            for command in tree.rebuildCommands(for: presenter) {
                try rebuilt.apply(command, for: presenter)
            }
        }
        #expect(rebuilt == tree)
        #expect(tree.presentables(of: "cluster") == [p(20)])
    }

    /// A tree is coded under the names its nodes always had (the selected tab as `selectedTab`, a node's optional
    /// members left out when empty), and read back the same; a tab index that does not fit is refused, not cut.
    @Test func aTreeIsCodedUnderItsMembersNamesAndReadBack() throws {
        var tree = ScreenTree()
        try tree.apply(.setWindowRoot(container(1, .tabs)), for: .main)
        try tree.apply(.setTabs(p(1), [container(2, .stack), container(3, .split)], selected: 1), for: .main)
        try tree.apply(.setMaster(p(3), screen(4)), for: .main)
        try tree.apply(.present(screen(5), over: p(2)), for: .main)
        let data = try JSONEncoder().encode(tree)
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let nodes = try #require(json["nodes"] as? [String: [String: Any]])
        #expect(nodes["1"]?["selectedTab"] as? Int == 1)
        #expect(
            Set(nodes["1"]?.keys.map { $0 } ?? []) == ["description", "presenter", "placement", "items", "selectedTab"]
        )
        #expect(
            Set(nodes["2"]?.keys.map { $0 } ?? []) == [
                "description", "presenter", "parent", "placement", "items", "presented",
            ]
        )
        #expect(nodes["3"]?["master"] as? Int == 4)
        let read = try JSONDecoder().decode(ScreenTree.self, from: data)
        #expect(read == tree)
        #expect(read[p(1)]?.selectedTab == 1 && read[p(2)]?.selectedTab == nil)

        let tooFar = String(decoding: data, as: UTF8.self).replacingOccurrences(
            of: #""selectedTab":1"#,
            with: #""selectedTab":4294967296"#
        )
        #expect(tooFar.contains("4294967296"))
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(ScreenTree.self, from: Data(tooFar.utf8)) }
    }

    @Test func commandsEncodeAsFlatJSONAndDecodeBack() throws {
        let commands: [NavigationCommand] = [
            .setWindowRoot(container(1, .stack)), .push(screen(2), onto: p(1)), .pop(stack: p(1), to: p(2)),
            .present(screen(3), over: p(2)), .dismiss(p(3)), .setTabs(p(4), [screen(5)], selected: 0),
            .selectTab(p(4), index: 0), .setMaster(p(6), screen(7)), .setDetail(p(6), screen(8)),
        ]
        let data = try JSONEncoder().encode(commands)
        #expect(try JSONDecoder().decode([NavigationCommand].self, from: data) == commands)
        let push = String(decoding: try JSONEncoder().encode(commands[1]), as: UTF8.self)
        #expect(push.contains(#""op":"push""#) && push.contains(#""container":1"#))
        // An unknown operation is a decoding error, not a crash.
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(NavigationCommand.self, from: Data(#"{"op":"teleport"}"#.utf8))
        }
    }
}
