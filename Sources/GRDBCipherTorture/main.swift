// grdbcipher-torture: the library under faults (docs/Reliability.md).
//   kill-trials [--trials N] [--seed S] [--dir D] [--keep-failures yes]
//   soak [--seconds N] [--writers 3] [--readers 3] [--dir D]
// The subcommands writer, soak-writer and soak-reader are the children they start.
import Foundation

let arguments = CommandLine.arguments.dropFirst()
guard let command = arguments.first else {
    fail("usage: grdbcipher-torture kill-trials|soak [options]")
}
let options = Options(arguments.dropFirst())
do {
    switch command {
    case "kill-trials": try runKillTrials(options)
    case "writer": try runWriter(options)
    case "soak": try runSoak(options)
    case "soak-writer": try runSoakWriter(options)
    case "soak-reader": try runSoakReader(options)
    default: fail("unknown command \(command)")
    }
} catch {
    fail("\(error)")
}
