package dev.idempotency.http;

import java.net.URI;

import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpStatusCode;
import org.springframework.http.ProblemDetail;
import org.springframework.web.ErrorResponseException;

/**
 * An idempotent request refused by the HTTP transport, answered with an RFC 9457 problem detail
 * ({@code application/problem+json}) by {@link IdempotencyProblemHandler}.
 *
 * @since 0.2.0
 */
@SuppressWarnings("serial")
public class IdempotencyProblemException extends ErrorResponseException {

	/** The problem types' common prefix; the rest names the problem ({@code ...#key-missing}). */
	public static final String TYPE_PREFIX = "https://idempotency.dev/problems#";

	IdempotencyProblemException(HttpStatusCode status, String type, String title, String detail,
			@Nullable Throwable cause) {
		super(status, problem(status, type, title, detail), cause);
	}

	IdempotencyProblemException header(String name, String value) {
		getHeaders().set(name, value);
		return this;
	}

	IdempotencyProblemException property(String name, Object value) {
		getBody().setProperty(name, value);
		return this;
	}

	private static ProblemDetail problem(HttpStatusCode status, String type, String title, String detail) {
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, detail);
		problem.setType(URI.create(TYPE_PREFIX + type));
		problem.setTitle(title);
		return problem;
	}

}
