extension Array where Element == Double {
    /// The middle value once sorted (the upper one of an even count); 0 for none. Rounds measured in turn are
    /// reported by their median: one round disturbed by the machine's other work does not move it.
    var median: Double {
        let sorted = self.sorted()
        return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
    }
}
