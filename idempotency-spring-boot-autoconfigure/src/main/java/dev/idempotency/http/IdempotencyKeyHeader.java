package dev.idempotency.http;

import org.jspecify.annotations.Nullable;

/**
 * Reads an {@code Idempotency-Key} header value. The IETF draft
 * (draft-ietf-httpapi-idempotency-key-header) makes it a Structured Field string, quoted
 * ({@code "8e03978e-40d5"}); most clients send it bare ({@code 8e03978e-40d5}), so both are accepted.
 * A key is one to {@code maxLength} printable ASCII characters (space to {@code ~}); a quoted key may
 * escape {@code "} and {@code \} with a backslash.
 *
 * @param key the key, or {@code null} when the value is refused
 * @param problem why it is refused, or {@code null} when it is not
 * @param missing whether it is refused because the request has no such header
 * @since 0.2.0
 */
record IdempotencyKeyHeader(@Nullable String key, @Nullable String problem, boolean missing) {

	/**
	 * Reads a header value.
	 * @param headerName the header's name, for the problem's text
	 * @param value the value, or {@code null} when the request has none
	 * @param maxLength the longest key accepted
	 * @return the key, or why it is refused
	 */
	static IdempotencyKeyHeader read(String headerName, @Nullable String value, int maxLength) {
		if (value == null) {
			return new IdempotencyKeyHeader(null, "The request has no " + headerName + " header; this operation "
					+ "requires one: a unique value (such as a UUID) per operation, sent again with each retry", true);
		}
		String trimmed = value.strip();
		String key = trimmed;
		if (trimmed.startsWith("\"")) {
			key = unquote(trimmed);
			if (key == null) {
				return refused("The " + headerName + " header is a malformed quoted string: it must end with a "
						+ "quote and escape only \" and \\ with a backslash");
			}
		}
		if (key.isEmpty()) {
			return refused("The " + headerName + " header is empty; a key has 1 to " + maxLength + " characters");
		}
		if (key.length() > maxLength) {
			return refused("The " + headerName + " header is " + key.length() + " characters long, more than the "
					+ maxLength + " allowed");
		}
		for (int i = 0; i < key.length(); i++) {
			char c = key.charAt(i);
			if (c < 0x20 || c > 0x7e) {
				return refused("The " + headerName + " header has a character outside printable ASCII at position "
						+ (i + 1) + "; a key has 1 to " + maxLength + " printable ASCII characters");
			}
		}
		return new IdempotencyKeyHeader(key, null, false);
	}

	/** Whether the key was accepted. */
	boolean accepted() {
		return this.key != null;
	}

	private static IdempotencyKeyHeader refused(String problem) {
		return new IdempotencyKeyHeader(null, problem, false);
	}

	private static @Nullable String unquote(String quoted) {
		if (quoted.length() < 2 || !quoted.endsWith("\"")) {
			return null;
		}
		StringBuilder key = new StringBuilder(quoted.length() - 2);
		for (int i = 1; i < quoted.length() - 1; i++) {
			char c = quoted.charAt(i);
			if (c == '\\') {
				if (i + 1 >= quoted.length() - 1) {
					return null;
				}
				char escaped = quoted.charAt(++i);
				if (escaped != '"' && escaped != '\\') {
					return null;
				}
				key.append(escaped);
			}
			else if (c == '"') {
				return null;
			}
			else {
				key.append(c);
			}
		}
		return key.toString();
	}

}
