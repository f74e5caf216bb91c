package dev.idempotency.http;

import org.springframework.http.ResponseEntity;

/**
 * Thrown inside the idempotent invocation for a returned response that is not stored (a 5xx, or a 4xx
 * when client errors are not stored), so that the invocation rolls back and releases its key; the
 * response is then returned to the client as it was.
 *
 * @since 0.2.0
 */
@SuppressWarnings("serial")
public class ResponseNotStoredException extends RuntimeException {

	private final transient ResponseEntity<?> response;

	ResponseNotStoredException(ResponseEntity<?> response) {
		super("The handler returned " + response.getStatusCode() + ", which is not stored: the key is released",
				null, false, false);
		this.response = response;
	}

	/**
	 * The response the handler returned.
	 * @return the response
	 */
	public ResponseEntity<?> getResponse() {
		return this.response;
	}

}
