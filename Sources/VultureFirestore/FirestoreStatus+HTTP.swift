extension FirestoreStatus {
    /// The status an HTTP code stands for where Firestore's answer names none (google.rpc.Code's
    /// HTTP mapping): 400 INVALID_ARGUMENT, 404 NOT_FOUND, 409 ABORTED, other 5xx INTERNAL, …
    init(httpStatus http: Int) {
        self =
            switch http {
            case 400: .invalidArgument
            case 401: .unauthenticated
            case 403: .permissionDenied
            case 404: .notFound
            case 409: .aborted
            case 412: .failedPrecondition
            case 429: .resourceExhausted
            case 499: .cancelled
            case 501: .unimplemented
            case 503: .unavailable
            case 504: .deadlineExceeded
            default: http >= 500 ? .internal : .unknown
            }
    }
}
