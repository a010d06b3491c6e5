import Foundation
import VultureSchemaCore
import VultureSyncSchema

/// An unsigned Firebase ID token (`"alg": "none"`) as the Firestore emulator accepts it in
/// `Authorization: Bearer …`: security rules see `request.auth.uid` and
/// `request.auth.token.revenueCatEntitlements` (schema §6). Never accepted by a real project.
public enum EmulatorIdToken {
    /// The token of user `uid` whose `revenueCatEntitlements` claim lists `entitlements` (`["all"]`:
    /// Pro), for project `projectId`. The times are fixed (issued at the epoch, expiring in 2100):
    /// the emulator does not check them, and a token stays the same from run to run.
    public static func unsigned(uid: String, entitlements: [String], projectId: String) -> String {
        let header: FirestoreValue = .map(["alg": .string("none"), "typ": .string("JWT")])
        let payload: FirestoreValue = .map([
            "iss": .string("https://securetoken.google.com/\(projectId)"), "aud": .string(projectId),
            "sub": .string(uid), "user_id": .string(uid), "iat": .integer(0), "auth_time": .integer(0),
            "exp": .integer(4_102_444_800),
            "firebase": .map(["sign_in_provider": .string("custom"), "identities": .map([:])]),
            SchemaConstants.proClaim: .array(entitlements.map { .string($0) }),
        ])
        return base64URL(CanonicalJSON.compactString(header)) + "." + base64URL(CanonicalJSON.compactString(payload))
            + "."
    }

    static func base64URL(_ text: String) -> String {
        Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
}
