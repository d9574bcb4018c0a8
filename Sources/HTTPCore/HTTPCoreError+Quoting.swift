extension HTTPCoreError {
    /// Quotes a value for an error message the way HTTPCore's own messages do.
    ///
    /// The value goes in double quotes; CR, LF, quotes, backslashes and other control
    /// characters are escaped so they stay visible, and it is cut after 200 characters.
    /// Other modules' error types use it so every Heron message shows values alike: `a"b`
    /// and a line feed come out as `"a\"b\n"`.
    /// - Parameter value: The offending value, as given.
    /// - Returns: The value quoted and escaped for a one-line message.
    public static func quotedForMessage(_ value: String) -> String { quoted(value) }
}
