import FlowCore
import Foundation

extension FlowSpecification {
    /// Reads and checks a flow file.
    /// - Throws: ``FlowSpecError`` with every problem found (``Diagnostic``s in file order), or when the file
    ///   cannot be read.
    public static func load(contentsOf path: String) throws(FlowSpecError) -> FlowSpecification {
        let data: Data
        do {
            data = try FileReading.data(path)
        } catch {
            throw FlowSpecError(.unreadableFile, error.description)
        }
        guard let text = String(data: data, encoding: .utf8) else {
            let location = SourceLocation(file: path, line: 1, column: 1)
            let diagnostic = Diagnostic(.malformedYAML, at: location, "the file is not UTF-8 text")
            throw FlowSpecError(.invalidSpecification, "\(path) is not a valid flow file", diagnostics: [diagnostic])
        }
        return try parse(text, file: path)
    }

    /// Reads and checks a flow file's text; `file` names it in diagnostics.
    public static func parse(_ text: String, file: String = "<flows>") throws(FlowSpecError) -> FlowSpecification {
        var parser = SpecParser(file: file)
        let spec = parser.parse(text)
        var diagnostics = parser.diagnostics
        if let spec {
            var validator = SpecValidator(spec)
            validator.validate()
            diagnostics += validator.diagnostics
        }
        guard var spec, diagnostics.isEmpty else {
            let sorted = diagnostics.sorted { $0.location < $1.location }
            let count = sorted.count == 1 ? "1 problem" : "\(sorted.count) problems"
            throw FlowSpecError(.invalidSpecification, "\(file) has \(count)", diagnostics: sorted)
        }
        spec.source = text
        return spec
    }
}
