package dev.idempotency.http;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

import org.springframework.http.HttpStatusCode;
import org.springframework.util.Assert;

/**
 * How the HTTP transport reads keys and which responses it stores and replays.
 *
 * @param keyHeader the request header that carries the key
 * @param maxKeyLength the longest key accepted
 * @param maxBodySize the largest request body fingerprinted, in bytes; a larger one is refused (413)
 * @param replayedHeader the response header that marks a replayed response
 * @param storedHeaders the response headers stored and replayed with a response (of a returned
 * {@code ResponseEntity}), compared ignoring case
 * @param storeClientErrors whether a returned 4xx response is stored (else the key is released)
 * @param storeServerErrors whether a returned 5xx response is stored (else the key is released)
 * @param retryAfter the {@code Retry-After} of a 409 for a key in progress; zero for none
 * @since 0.2.0
 */
public record HttpIdempotencySettings(String keyHeader, int maxKeyLength, long maxBodySize, String replayedHeader,
		List<String> storedHeaders, boolean storeClientErrors, boolean storeServerErrors, Duration retryAfter) {

	public HttpIdempotencySettings {
		Assert.hasText(keyHeader, "keyHeader must not be empty");
		Assert.isTrue(maxKeyLength > 0, "maxKeyLength must be positive");
		Assert.isTrue(maxBodySize >= 0, "maxBodySize must not be negative");
		Assert.hasText(replayedHeader, "replayedHeader must not be empty");
		storedHeaders = List.copyOf(storedHeaders);
	}

	/**
	 * Whether a response of this status is stored.
	 * @param status the status
	 * @return {@code false} for an error the settings do not store
	 */
	public boolean stores(HttpStatusCode status) {
		if (status.is5xxServerError()) {
			return this.storeServerErrors;
		}
		return !status.is4xxClientError() || this.storeClientErrors;
	}

	/**
	 * The stored headers' names in lower case.
	 * @return the names
	 */
	Set<String> storedHeaderNames() {
		return this.storedHeaders.stream().map((name) -> name.toLowerCase(Locale.ROOT)).collect(Collectors.toSet());
	}

}
