// W9 and W10: authors and their books, read through associations. One definition of the data
// and of its checksums for every implementation.

extension WorkloadData {
    /// W9: authors, each with `booksPerAuthor` books. W10 reads the same books.
    public static let authorCount = 2_000
    public static let booksPerAuthor = 10
    public static var bookCount: Int { authorCount * booksPerAuthor }

    public static let associationCreateSQL = """
        CREATE TABLE author(id INTEGER PRIMARY KEY, name TEXT NOT NULL, country TEXT NOT NULL);
        CREATE TABLE book(
          id INTEGER PRIMARY KEY,
          authorId INTEGER NOT NULL REFERENCES author(id),
          title TEXT NOT NULL,
          year INTEGER NOT NULL);
        CREATE INDEX book_on_authorId ON book(authorId);
        """
    public static let authorInsertSQL = "INSERT INTO author(id, name, country) VALUES (?, ?, ?)"
    public static let bookInsertSQL = "INSERT INTO book(id, authorId, title, year) VALUES (?, ?, ?, ?)"

    private static let countries = ["FR", "DE", "JP", "BR", "NG", "CA", "IN"]

    /// Author `id` (1...authorCount).
    public static func authorName(_ id: Int) -> String { "Author number \(id)" }
    public static func authorCountry(_ id: Int) -> String { countries[id % countries.count] }

    /// Book `id` (1...bookCount): the books of an author are spread over the table, as books
    /// added over time are.
    public static func bookAuthorId(_ id: Int) -> Int { (id - 1) % authorCount + 1 }
    public static func bookTitle(_ id: Int) -> String { "The book number \(id)" }
    public static func bookYear(_ id: Int) -> Int { 1900 + id % 125 }

    /// What a fetch of the whole graph must add up to, computed without SQLite.
    public struct AssociationChecksum: Equatable, Sendable, CustomStringConvertible {
        /// Authors fetched (W9), or books fetched (W10).
        public var count = 0
        /// Books fetched, counted through their authors (W9), or authors through their books (W10).
        public var related = 0
        /// Sum of the book ids, years and title lengths, and of the author ids and name and
        /// country lengths, over every (author, book) pair.
        public var sum = 0

        public init() {}

        /// Adds one (author, book) pair.
        @inline(__always)
        public mutating func add(authorId: Int, name: String, country: String, bookId: Int, title: String, year: Int) {
            sum &+= authorId &+ name.utf8.count &+ country.utf8.count &+ bookId &+ title.utf8.count &+ year
        }

        public var description: String { "count \(count), related \(related), sum \(sum)" }
    }

    /// W9: 2,000 authors, 20,000 books, each pair once.
    public static let authorsWithBooksExpected: AssociationChecksum = {
        var checksum = AssociationChecksum()
        checksum.count = authorCount
        checksum.related = bookCount
        for bookId in 1...bookCount {
            let authorId = bookAuthorId(bookId)
            checksum.add(authorId: authorId, name: authorName(authorId), country: authorCountry(authorId),
                         bookId: bookId, title: bookTitle(bookId), year: bookYear(bookId))
        }
        return checksum
    }()

    /// W10: 20,000 books, each with its author.
    public static let booksWithAuthorExpected: AssociationChecksum = {
        var checksum = authorsWithBooksExpected
        checksum.count = bookCount
        checksum.related = bookCount
        return checksum
    }()
}
