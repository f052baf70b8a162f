import Foundation
import Testing

@testable import FlowStore

/// Whether a store answers, as its callers tell it: an outage starts at the first failure, lasts while any caller
/// that failed has not succeeded since, and ends retries after the window or at once when abandoned.
@Suite struct StoreAvailabilityTests {
    @Test func anOutageStartsAtTheFirstFailureAndEndsWithTheNextSuccess() {
        let availability = StoreAvailability(retryWindow: .seconds(60))
        #expect(availability.outage == nil)
        availability.failed("the database system is shutting down")
        let first = availability.outage
        #expect(first != nil)
        availability.failed("connection refused")
        #expect(availability.outage?.since == first?.since)
        #expect(availability.outage?.reason == "connection refused")
        #expect(availability.shouldRetry)
        availability.answered()
        #expect(availability.outage == nil)
    }

    @Test func aLeaseRenewedDoesNotEndAnOutageTheJournalStillSeesAndAWriteEndsAnyOutage() {
        let availability = StoreAvailability(retryWindow: .seconds(60))
        availability.failed("journal: disk full", by: .journal)
        let since = availability.outage?.since
        availability.failed("lease: connection refused", by: .lease)
        availability.answered(by: .lease)
        #expect(availability.outage?.since == since, "the window must not start again")
        availability.answered(by: .journal)
        #expect(availability.outage == nil)
        // What the journal writes ends what the lease saw too: the store answers.
        availability.failed("lease: connection refused", by: .lease)
        availability.answered(by: .journal)
        #expect(availability.outage == nil)
        // An idle instance sees outages through its lease alone, and their end.
        availability.failed("lease: connection refused", by: .lease)
        #expect(availability.outage != nil)
        availability.answered(by: .lease)
        #expect(availability.outage == nil)
    }

    @Test func retriesEndAfterTheWindowOrWhenAbandoned() throws {
        let short = StoreAvailability(retryWindow: .milliseconds(50))
        short.failed("down")
        let deadline = ContinuousClock.now + .seconds(5)
        while short.shouldRetry && ContinuousClock.now < deadline {
            Thread.sleep(forTimeInterval: 0.01)
        }
        #expect(!short.shouldRetry)
        let error = short.gaveUp(StoreError(.unavailable, "down"))
        #expect(error.message == "down; still unavailable after 50 ms of retries")
        // Said once, however many layers give up on it.
        #expect(short.gaveUp(error).message == error.message)

        let stopping = StoreAvailability(retryWindow: .seconds(60))
        stopping.failed("down")
        stopping.abandon()
        #expect(!stopping.shouldRetry)
        #expect(stopping.isAbandoned)
        #expect(stopping.gaveUp(StoreError(.unavailable, "down")).message.hasSuffix("flowd is stopping"))
    }
}
