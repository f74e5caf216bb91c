package dev.idempotency.http.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.idempotency.http.HttpIdempotencySettings;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.unit.DataSize;

/**
 * Configuration of the HTTP transport: {@code @Idempotent} on Spring MVC handler methods.
 *
 * @since 0.2.0
 */
@ConfigurationProperties("idempotency.http")
public class IdempotencyHttpProperties {

	/**
	 * Whether @Idempotent handler methods read their key from the request header, fingerprint the
	 * request and replay the stored response. When off, they run as plain @Idempotent methods.
	 */
	private boolean enabled = true;

	/**
	 * Request header that carries the idempotency key.
	 */
	private String keyHeader = "Idempotency-Key";

	/**
	 * Longest key accepted, in characters; a longer one is refused with 400.
	 */
	private int maxKeyLength = 255;

	/**
	 * Largest request body that is read to fingerprint it; a larger one is refused with 413 before the
	 * handler runs.
	 */
	private DataSize maxBodySize = DataSize.ofMegabytes(1);

	/**
	 * Response header, set to "true", that marks a response replayed from the store.
	 */
	private String replayedHeader = "Idempotent-Replayed";

	/**
	 * Headers of a returned ResponseEntity that are stored and replayed with its status and body.
	 */
	private List<String> storedHeaders = new ArrayList<>(
			List.of("Location", "Content-Type", "Content-Location", "ETag", "Last-Modified"));

	/**
	 * Whether a returned 4xx response is stored and replayed; when off, the key is released and a
	 * retry runs the handler again.
	 */
	private boolean storeClientErrors = true;

	/**
	 * Whether a returned 5xx response is stored and replayed; when off, the invocation is rolled back,
	 * the key released, and a retry runs the handler again.
	 */
	private boolean storeServerErrors = false;

	/**
	 * Retry-After of the 409 answered while the key's first request is still in progress (and of the
	 * 503 answered when the store is unreachable), rounded up to seconds; 0 for none.
	 */
	private Duration retryAfter = Duration.ofSeconds(1);

	/**
	 * The transport's settings.
	 * @return the settings
	 */
	public HttpIdempotencySettings toSettings() {
		return new HttpIdempotencySettings(this.keyHeader, this.maxKeyLength, this.maxBodySize.toBytes(),
				this.replayedHeader, this.storedHeaders, this.storeClientErrors, this.storeServerErrors,
				this.retryAfter);
	}

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public String getKeyHeader() {
		return this.keyHeader;
	}

	public void setKeyHeader(String keyHeader) {
		this.keyHeader = keyHeader;
	}

	public int getMaxKeyLength() {
		return this.maxKeyLength;
	}

	public void setMaxKeyLength(int maxKeyLength) {
		this.maxKeyLength = maxKeyLength;
	}

	public DataSize getMaxBodySize() {
		return this.maxBodySize;
	}

	public void setMaxBodySize(DataSize maxBodySize) {
		this.maxBodySize = maxBodySize;
	}

	public String getReplayedHeader() {
		return this.replayedHeader;
	}

	public void setReplayedHeader(String replayedHeader) {
		this.replayedHeader = replayedHeader;
	}

	public List<String> getStoredHeaders() {
		return this.storedHeaders;
	}

	public void setStoredHeaders(List<String> storedHeaders) {
		this.storedHeaders = storedHeaders;
	}

	public boolean isStoreClientErrors() {
		return this.storeClientErrors;
	}

	public void setStoreClientErrors(boolean storeClientErrors) {
		this.storeClientErrors = storeClientErrors;
	}

	public boolean isStoreServerErrors() {
		return this.storeServerErrors;
	}

	public void setStoreServerErrors(boolean storeServerErrors) {
		this.storeServerErrors = storeServerErrors;
	}

	public Duration getRetryAfter() {
		return this.retryAfter;
	}

	public void setRetryAfter(Duration retryAfter) {
		this.retryAfter = retryAfter;
	}

}
