// The `GRDB` module of GRDBCipher: all of GRDBCipher under GRDB's module name, so that a
// package built on GRDB (`import GRDB`, `GRDB.DatabaseQueue`) builds on GRDBCipher when SwiftPM
// mirrors https://github.com/groue/GRDB.swift to this repository. See README.md, "Use
// libraries built on GRDB".
@_exported import GRDBCipher
