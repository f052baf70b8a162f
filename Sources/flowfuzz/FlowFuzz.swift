import Foundation

#if FUZZING
/// libFuzzer's driver (from `libclang_rt.fuzzer_no_main`, which scripts/fuzz links): it runs the callback on
/// inputs it makes, reads its own command-line options (`-max_total_time=60`, corpus directories...).
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
) -> Int32
#endif

/// flowfuzz: the JSON parser and the wire codec under libFuzzer (`scripts/fuzz` builds it with coverage, the
/// address sanitizer and the fuzzer's runtime). Built plainly (as `swift build` does), it replays inputs:
/// `flowfuzz PATH...` runs every file (of every directory) given through the same checks and exits 0 when all pass,
/// and `flowfuzz --write-corpus DIR` writes the seed corpus.
@main struct FlowFuzz {
    static func main() throws {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.first == "--write-corpus", arguments.count == 2 {
            try Corpus.write(to: arguments[1])
            return
        }
        #if FUZZING
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(
            LLVMFuzzerRunDriver(&argc, &argv) { data, count in
                FuzzTargets.run(data.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? [])
                return 0
            }
        )
        #else
        var replayed = 0
        for path in arguments {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                FileHandle.standardError.write(Data("flowfuzz: no file \(path)\n".utf8))
                exit(66)
            }
            let files =
                isDirectory.boolValue
                ? try FileManager.default.contentsOfDirectory(atPath: path).sorted().map { path + "/" + $0 } : [path]
            for file in files {
                FuzzTargets.run(Array(try Data(contentsOf: URL(fileURLWithPath: file))))
                replayed += 1
            }
        }
        print("flowfuzz: \(replayed) inputs replayed, every check held")
        #endif
    }
}
