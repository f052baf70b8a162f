import FlowBus
import Foundation

@main
struct ParentalGuard {
    static func main() async {
        do {
            let parental = try await GuardClient.connect(name: "parental") { question in
                question.subject != "adult"
            }
            print("guard \(parental.name) is answering")
            while true {
                try await Task.sleep(for: .seconds(3600))
            }
        } catch {
            FileHandle.standardError.write(Data("parental guard: \(error)\n".utf8))
            exit(1)
        }
    }
}
