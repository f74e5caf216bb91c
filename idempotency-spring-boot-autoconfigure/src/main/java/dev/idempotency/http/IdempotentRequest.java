package dev.idempotency.http;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

import org.jspecify.annotations.Nullable;

/**
 * What identifies one HTTP request for its fingerprint: the method, the path and query, and the body
 * its {@code @RequestBody} (or {@code HttpEntity}) argument was read from. Bound as the SpEL variable
 * {@code #idempotentRequest} for the key and fingerprint expressions of an {@code @Idempotent}
 * handler method.
 *
 * @param method the HTTP method, such as {@code POST}
 * @param path the request URI's path, without the context path's removal
 * @param query the query string, or {@code null}
 * @param body the body as it arrived, empty when no argument read one
 * @since 0.2.0
 */
public record IdempotentRequest(String method, String path, @Nullable String query, byte[] body) {

	/** The SpEL variable the request is bound as. */
	public static final String VARIABLE = "idempotentRequest";

	/**
	 * The bytes the default fingerprint hashes: {@code METHOD path[?query]}, a line feed, the body.
	 * @return the bytes
	 */
	public byte[] fingerprintPayload() {
		String line = this.method + " " + this.path + ((this.query != null) ? "?" + this.query : "") + "\n";
		ByteArrayOutputStream out = new ByteArrayOutputStream(line.length() + this.body.length);
		out.writeBytes(line.getBytes(StandardCharsets.UTF_8));
		out.writeBytes(this.body);
		return out.toByteArray();
	}

}
