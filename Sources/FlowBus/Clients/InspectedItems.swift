/// The items of an ``InspectionStream`` one at a time: its ``InspectionStream/batches`` flattened.
public struct InspectedItems: AsyncSequence, Sendable {
    public typealias Element = Inspected
    public typealias Failure = Never

    let batches: AsyncStream<[Inspected]>

    public func makeAsyncIterator() -> Iterator {
        Iterator(batches: batches.makeAsyncIterator())
    }

    /// Hands out the current batch's items, then waits for the next batch.
    public struct Iterator: AsyncIteratorProtocol {
        var batches: AsyncStream<[Inspected]>.Iterator
        var current: [Inspected] = []
        var index = 0

        public mutating func next() async -> Inspected? {
            await next(isolation: nil)
        }

        public mutating func next(isolation actor: isolated (any Actor)?) async -> Inspected? {
            while index == current.count {
                guard let batch = await batches.next(isolation: actor) else { return nil }
                current = batch
                index = 0
            }
            defer { index += 1 }
            return current[index]
        }
    }
}
