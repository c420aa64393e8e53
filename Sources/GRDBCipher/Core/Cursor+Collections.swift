// Cursors into collections: the initializers and methods of the standard library's collections
// that take a cursor, and the cursor consumers that return arrays. They all go through the
// cursor's `forEach`, which a cursor may implement faster than a loop on `next()`.

extension Cursor {
    /// The elements of the cursor but the last one, in an array. Consumes the cursor.
    ///
    /// ```swift
    /// let names = try String.fetchCursor(db, sql: "SELECT name FROM player ORDER BY score")
    /// let allButBest = try names.dropLast()
    /// ```
    public func dropLast() throws -> [Element] {
        try dropLast(1)
    }

    /// The elements of the cursor but the last `n` ones, in an array. Consumes the cursor.
    ///
    /// ```swift
    /// let scores = try Int.fetchCursor(db, sql: "SELECT score FROM player ORDER BY score")
    /// let allButTopThree = try scores.dropLast(3)
    /// ```
    ///
    /// - precondition: `n` is not negative.
    public func dropLast(_ n: Int) throws -> [Element] {
        precondition(n >= 0, "Can't drop a negative number of elements from a cursor")
        let elements = try [Element](self)
        return Array(elements.dropLast(n))
    }

    /// The last `maxLength` elements of the cursor (or all of them if there are fewer), in an
    /// array. Consumes the cursor, and keeps at most `maxLength` elements in memory.
    ///
    /// ```swift
    /// let scores = try Int.fetchCursor(db, sql: "SELECT score FROM player ORDER BY score")
    /// let topThree = try scores.suffix(3)
    /// ```
    ///
    /// - precondition: `maxLength` is not negative.
    public func suffix(_ maxLength: Int) throws -> [Element] {
        precondition(maxLength >= 0, "Can't take a suffix of negative length from a cursor")
        var ring: [Element] = []
        ring.reserveCapacity(Swift.min(maxLength, 1024))
        var start = 0 // the oldest element, once the ring is full
        try forEach { element in
            if ring.count < maxLength {
                ring.append(element)
            } else if maxLength > 0 {
                ring[start] = element
                start = (start + 1) % maxLength
            }
        }
        return Array(ring[start...] + ring[..<start])
    }
}

/// Creates collections from the elements of a cursor.
extension RangeReplaceableCollection {
    /// Creates a collection with the remaining elements of `cursor`.
    ///
    /// ```swift
    /// let names = try Array(String.fetchCursor(db, sql: "SELECT name FROM player"))
    /// ```
    public init(_ cursor: some Cursor<Element>) throws {
        self.init()
        try append(contentsOf: cursor)
    }

    /// Creates a collection with the remaining elements of `cursor`, with room for at least
    /// `minimumCapacity` elements.
    ///
    /// ```swift
    /// let count = try Player.fetchCount(db)
    /// let players = try Array(Player.fetchCursor(db), minimumCapacity: count)
    /// ```
    public init(_ cursor: some Cursor<Element>, minimumCapacity: Int) throws {
        self.init()
        reserveCapacity(minimumCapacity)
        try append(contentsOf: cursor)
    }

    /// Appends the remaining elements of `newElements`.
    ///
    /// ```swift
    /// var names = ["Arthur"]
    /// try names.append(contentsOf: String.fetchCursor(db, sql: "SELECT name FROM player"))
    /// ```
    public mutating func append(contentsOf newElements: some Cursor<Element>) throws {
        try newElements.forEach { append($0) }
    }
}

/// Creates sets from the elements of a cursor.
extension Set {
    /// Creates a set with the remaining elements of `cursor`.
    ///
    /// ```swift
    /// let countries = try Set(String.fetchCursor(db, sql: "SELECT country FROM player"))
    /// ```
    public init(_ cursor: some Cursor<Element>) throws {
        self.init()
        try formUnion(cursor)
    }

    /// Creates a set with the remaining elements of `cursor`, with room for at least
    /// `minimumCapacity` elements.
    ///
    /// ```swift
    /// let ids = try Set(Int64.fetchCursor(db, sql: "SELECT id FROM player"), minimumCapacity: 100)
    /// ```
    public init(_ cursor: some Cursor<Element>, minimumCapacity: Int) throws {
        self.init(minimumCapacity: minimumCapacity)
        try formUnion(cursor)
    }

    /// A set with the elements of this set and the remaining elements of `cursor`.
    ///
    /// ```swift
    /// let known: Set = ["FR", "US"]
    /// let all = try known.union(String.fetchCursor(db, sql: "SELECT country FROM player"))
    /// ```
    public func union(_ cursor: some Cursor<Element>) throws -> Set<Element> {
        var result = self
        try result.formUnion(cursor)
        return result
    }

    /// A set with the elements of this set that the remaining elements of `cursor` contain.
    ///
    /// ```swift
    /// let wanted: Set = ["FR", "US"]
    /// let present = try wanted.intersection(String.fetchCursor(db, sql: "SELECT country FROM player"))
    /// ```
    public func intersection(_ cursor: some Cursor<Element>) throws -> Set<Element> {
        var result = self
        try result.formIntersection(cursor)
        return result
    }

    /// Inserts the remaining elements of `cursor`.
    ///
    /// ```swift
    /// var countries: Set<String> = []
    /// try countries.formUnion(String.fetchCursor(db, sql: "SELECT country FROM player"))
    /// ```
    public mutating func formUnion(_ cursor: some Cursor<Element>) throws {
        try cursor.forEach { insert($0) }
    }

    /// Removes the elements that the remaining elements of `cursor` do not contain.
    ///
    /// ```swift
    /// var countries: Set = ["FR", "US", "JP"]
    /// try countries.formIntersection(String.fetchCursor(db, sql: "SELECT country FROM player"))
    /// ```
    public mutating func formIntersection(_ cursor: some Cursor<Element>) throws {
        let other = try Set(cursor)
        formIntersection(other)
    }
}

/// Creates dictionaries from the elements of a cursor.
extension Dictionary {
    /// Creates a dictionary grouping the remaining elements of `cursor` by `keyForValue`.
    ///
    /// ```swift
    /// let playersByTeam = try Dictionary(grouping: Player.fetchCursor(db), by: { $0.teamID })
    /// ```
    public init<C: Cursor>(grouping cursor: C, by keyForValue: (C.Element) throws -> Key) throws
    where Value == [C.Element]
    {
        try self.init(minimumCapacity: 0, grouping: cursor, by: keyForValue)
    }

    /// Creates a dictionary grouping the remaining elements of `cursor` by `keyForValue`, with
    /// room for at least `minimumCapacity` keys.
    ///
    /// ```swift
    /// let playersByTeam = try Dictionary(minimumCapacity: 10, grouping: Player.fetchCursor(db), by: { $0.teamID })
    /// ```
    public init<C: Cursor>(minimumCapacity: Int, grouping cursor: C, by keyForValue: (C.Element) throws -> Key) throws
    where Value == [C.Element]
    {
        self.init(minimumCapacity: minimumCapacity)
        try cursor.forEach { element in
            try self[keyForValue(element), default: []].append(element)
        }
    }

    /// Creates a dictionary from the remaining (key, value) pairs of `keysAndValues`. Two equal
    /// keys are a programmer error, as with the standard library's initializer.
    ///
    /// ```swift
    /// let scores = try Dictionary(uniqueKeysWithValues: Row.fetchCursor(db, sql: "SELECT name, score FROM player")
    ///     .map { ($0["name"] as String, $0["score"] as Int) })
    /// ```
    public init(uniqueKeysWithValues keysAndValues: some Cursor<(Key, Value)>) throws {
        try self.init(minimumCapacity: 0, uniqueKeysWithValues: keysAndValues)
    }

    /// Creates a dictionary from the remaining (key, value) pairs of `keysAndValues`, with room
    /// for at least `minimumCapacity` keys. Two equal keys are a programmer error.
    ///
    /// ```swift
    /// let names = try Dictionary(minimumCapacity: 100, uniqueKeysWithValues: Row.fetchCursor(db, sql: "SELECT id, name FROM player")
    ///     .map { ($0["id"] as Int64, $0["name"] as String) })
    /// ```
    public init(minimumCapacity: Int, uniqueKeysWithValues keysAndValues: some Cursor<(Key, Value)>) throws {
        self.init(minimumCapacity: minimumCapacity)
        try keysAndValues.forEach { key, value in
            precondition(updateValue(value, forKey: key) == nil, "Duplicate key: \(key)")
        }
    }
}

extension Sequence {
    /// A cursor of the concatenated cursors that `transform` produces from the elements of the
    /// sequence.
    ///
    /// ```swift
    /// let teamIDs: [Int64] = [1, 2]
    /// let names = teamIDs.flatMap { id in
    ///     try String.fetchCursor(db, sql: "SELECT name FROM player WHERE teamID = ?", arguments: [id])
    /// }
    /// let allNames = try Array(names)
    /// ```
    public func flatMap<SegmentOfResult>(
        _ transform: @escaping (Iterator.Element) throws -> SegmentOfResult)
    -> FlattenCursor<MapCursor<AnyCursor<Iterator.Element>, SegmentOfResult>>
    where SegmentOfResult: Cursor
    {
        FlattenCursor(MapCursor(AnyCursor(self), transform))
    }
}
