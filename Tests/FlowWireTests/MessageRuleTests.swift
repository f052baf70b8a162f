import FlowBusTesting
import FlowWire
import Foundation
import Testing

/// FlowWire's table of message rules against the specification's own tables: the control connection's messages
/// each way, the events socket's, and the roles that may send each message with a grant (the Security table).
@Suite struct MessageRuleTests {
    private static let specification: String = {
        let url = repositoryRoot.appendingPathComponent("Sources/FlowWire/FlowWire.docc/Specification.md")
        return (try? String(contentsOf: url, encoding: .utf8)) ?? ""
    }()

    /// The message types named (as whole words) in `text`.
    private static func types(in text: Substring) -> Set<MessageType> {
        let words = text.split { !($0.isLetter || $0 == "_") }.map(String.init)
        return Set(words.compactMap(MessageType.init(rawValue:)))
    }

    /// The row of the specification's table that starts with `start`.
    private static func row(_ start: String) -> Substring? {
        specification.split(separator: "\n").first { $0.hasPrefix(start) }
    }

    @Test func everyTypeIsSentBySomeoneAndPublishedOnlyByTheDaemon() {
        for type in MessageType.allCases {
            let rule = type.rule
            #expect(rule.receivedByDaemon || rule.sentByDaemon, "\(type.rawValue) is sent by no one")
            if rule.published {
                #expect(rule.sentByDaemon && !rule.receivedByDaemon, "\(type.rawValue)")
            }
        }
    }

    @Test func theControlConnectionCarriesWhatTheSpecificationSays() throws {
        let row = try #require(Self.row("| control |"))
        let parts = row.components(separatedBy: "and the daemon's")
        try #require(parts.count == 2)
        let toDaemon = Self.types(in: Substring(parts[0]))
        let fromDaemon = Self.types(in: Substring(parts[1]))
        #expect(toDaemon == Set(MessageType.allCases.filter { $0.rule.receivedByDaemon }))
        #expect(fromDaemon == Set(MessageType.allCases.filter { $0.rule.sentByDaemon && !$0.rule.published }))
        let events = try #require(Self.row("| events |"))
        #expect(Self.types(in: events) == Set(MessageType.allCases.filter { $0.rule.published }))
    }

    @Test func theRolesThatMaySendEachMessageAreTheSecurityTables() throws {
        // Every role says HELLO, BYE and HEARTBEAT; the table names what else each may send (an inspector's
        // `control` grant adds acting to its reading).
        let everyone: Set<MessageType> = [.hello, .bye, .heartbeat]
        var named: [Role: Set<MessageType>] = [:]
        for role in Role.allCases {
            let row = try #require(Self.row("| `\(role.rawValue)` |"), "no row for \(role.rawValue)")
            named[role] = Self.types(in: row).union(everyone)
        }
        named[.inspector, default: []].formUnion(Self.types(in: try #require(Self.row("| `control` |"))))
        for role in Role.allCases {
            let table = Set(MessageType.allCases.filter { $0.rule.senders.contains(role) })
            #expect(table == named[role], "\(role.rawValue)")
        }
    }
}
