/// A coding key made up by the JSON encoder and decoder: an array index, or `super`.
struct CodingPathKey: CodingKey {
    var stringValue: String
    var intValue: Int?

    init(stringValue: String) {
        self.stringValue = stringValue
    }

    init(intValue: Int) {
        self.stringValue = String(intValue)
        self.intValue = intValue
    }

    static let superKey = CodingPathKey(stringValue: "super")
}
