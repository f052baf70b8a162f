extension Dictionary {
    /// Reads or changes the value at `index` where it is kept. Reading through `values[index]` copies the value
    /// whole (every reference it holds retained, then released) and the optional subscript moves it out and back:
    /// for a session's records, read on every step, both cost more than the reading.
    mutating func inPlace<Result>(at index: Index, _ body: (inout Value) -> Result) -> Result {
        body(&values[index])
    }
}
