// One executable's benchmarks (see Registration.swift), served to BenchmarkDriver.
import BenchmarkSupport

let suite = BenchmarkSuite()
register(suite, directory: scratchDirectory())
suite.main()
