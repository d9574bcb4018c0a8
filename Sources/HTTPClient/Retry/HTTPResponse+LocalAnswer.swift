import Foundation
import HTTPCore

extension HTTPFieldName {
    /// `Heron-Local-Answer`: marks a response that a transport of this process made itself as
    /// its final answer (`HTTPResponse.isFinalLocalAnswer`).
    static let localAnswer = try! HTTPFieldName("Heron-Local-Answer")
}

extension HTTPResponse {
    /// The value of `Heron-Local-Answer` in this process: drawn at random when the process
    /// starts, so no origin can forge the mark (a field named by its meaning alone could be
    /// written by any server).
    private static let localAnswerToken = UUID().uuidString

    /// Marks this response as one a transport of this process made itself, as its final
    /// answer: sending the request again cannot change it (such as a `504` made for a request
    /// that allowed no network), so the retry policies leave it alone.
    package mutating func markAsFinalLocalAnswer() {
        headerFields.append(try! HTTPField(name: .localAnswer, value: Self.localAnswerToken))
    }

    /// Whether a transport of this process marked this response as its final answer
    /// (``markAsFinalLocalAnswer()``); an origin's field of the same name never counts.
    package var isFinalLocalAnswer: Bool {
        headerFields[values: .localAnswer].contains(Self.localAnswerToken)
    }
}
