import HTTPClient

extension ClientError.Code {
    /// A ``HARReplayTransport`` holds no recorded response for the request; the message
    /// names the request and the nearest recorded one.
    public static let noRecordedResponse = ClientError.Code("noRecordedResponse")
}
