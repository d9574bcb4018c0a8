import HTTPClient

extension ClientError.Code {
    /// A ``CacheStorage`` could not read or write an entry (a full disk, a file it cannot
    /// create, a body past its capacity). The cache then goes to the network as for a miss;
    /// the error reaches a caller only from the storage's own methods.
    public static let cacheStorageFailed = ClientError.Code("cacheStorageFailed")
}
