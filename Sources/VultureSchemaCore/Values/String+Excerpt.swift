extension String {
    /// The most Unicode scalars of an argument, path or value a one-line message shows whole.
    package static let shownScalars = 100

    /// The text as a message shows a user's argument, path or value: ``excerpt(scalars:)`` of
    /// ``shownScalars``, so that a path of 100,000 characters is not echoed whole; an empty one as
    /// `"" (empty)`, so that the message does not end in nothing.
    package var shownArgument: String { isEmpty ? "\"\" (empty)" : excerpt(scalars: String.shownScalars) }

    /// The text as a one-line message shows it: whole up to `limit` Unicode scalars, else its first
    /// `limit` and its length (`abc… (10012 characters)`), so that a long value does not fill the
    /// terminal. Counted in scalars, not Characters: one Character can hold thousands of marks.
    package func excerpt(scalars limit: Int) -> String {
        let count = unicodeScalars.count
        guard count > limit else { return self }
        return String(String.UnicodeScalarView(unicodeScalars.prefix(limit))) + "… (\(count) characters)"
    }
}
