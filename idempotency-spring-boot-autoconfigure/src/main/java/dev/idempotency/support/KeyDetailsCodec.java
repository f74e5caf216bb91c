package dev.idempotency.support;

/**
 * What the interceptor needs to record details with a key: fingerprints of payloads and the
 * serialization of stored results. Both need Jackson, an optional dependency: without it there is no
 * codec, and methods that ask for fingerprints or stored results fail start-up.
 *
 * @param fingerprints computes payload fingerprints
 * @param results serializes and reads back stored results
 * @since 0.2.0
 */
public record KeyDetailsCodec(PayloadFingerprints fingerprints, StoredResults results) {
}
