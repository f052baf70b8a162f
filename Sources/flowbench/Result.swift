/// One measured figure.
struct Result: Codable {
    let name: String
    let value: Double
    let unit: String
    let detail: String
}
