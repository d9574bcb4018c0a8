import Foundation
import Testing

@testable import HTTPCore

/// What descriptions and logs show of bodies and of errors that come from Foundation:
/// never a password, a token or a secret-named value.
@Suite("Secrets in bodies and errors")
struct SecretRedactionTests {
    @Test(
        "secret-named JSON members are hidden, whole or cut short, escaped quotes and all",
        arguments: [
            (
                #"{"access_token": "eyJ0.a.b", "token_type":"Bearer"}"#,
                #"{"access_token": "***", "token_type":"Bearer"}"#
            ),
            (#"{"user":{"password":"p\"w"},"id_token":"x"}"#, #"{"user":{"password":"***"},"id_token":"***"}"#),
            (#"{"refresh_token":"abcdefgh"#, #"{"refresh_token":"***"#),
            (#"{"Code_Verifier" : "v", "page": "code"}"#, #"{"Code_Verifier" : "***", "page": "code"}"#),
            (#"["password", "plain"]"#, #"["password", "plain"]"#),
        ])
    func jsonMembers(body: String, shown: String) {
        #expect(URLRedaction.displayBody(Data(body.utf8)) == shown)
    }

    @Test("form bodies hide secret pairs, OAuth's names included; a long body is cut with …")
    func formPairs() {
        let form = "grant_type=authorization_code&code=SplxlOBeZQQYbYS6WxSbIA&code_verifier=abc&client_assertion=eyJ"
        #expect(
            URLRedaction.displayBody(Data(form.utf8))
                == "grant_type=authorization_code&code=***&code_verifier=***&client_assertion=***")
        let long = Data(("session_token=" + String(repeating: "s", count: 300)).utf8)
        #expect(URLRedaction.displayBody(long) == "session_token=***…")
    }

    @Test("every URL in an error's text is redacted; text without one is unchanged")
    func errorsFromFoundation() {
        let url = URL(string: "https://bob:hunter2@api.example.com/me?auth_token=t0k&page=2")!
        let error = NSError(
            domain: NSURLErrorDomain, code: NSURLErrorTimedOut,
            userInfo: ["NSErrorFailingURLStringKey": url.absoluteString, NSURLErrorFailingURLErrorKey: url])
        let shown = URLRedaction.displayError(error)
        #expect(!shown.contains("hunter2") && !shown.contains("t0k"))
        #expect(shown.contains("https://bob:***@api.example.com/me?auth_token=***&page=2"))
        #expect(URLRedaction.redactingURLs(in: "no URL: a://") == "no URL: a://")
        #expect(
            URLRedaction.redactingURLs(in: "at ://x and x-y.z+1://h/?key=1 end")
                == "at ://x and x-y.z+1://h/?key=*** end")
    }
}
