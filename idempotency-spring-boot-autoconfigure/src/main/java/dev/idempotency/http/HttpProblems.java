package dev.idempotency.http;

import dev.idempotency.core.DuplicateMessageException;
import dev.idempotency.core.IdempotencyInProgressException;
import dev.idempotency.core.IdempotencyKeyConflictException;
import dev.idempotency.core.IdempotencyStoreException;
import dev.idempotency.core.InvalidIdempotencyKeyException;
import dev.idempotency.support.StoredResultTooLargeException;
import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;

/**
 * The problem details the HTTP transport answers the engine's refusals with:
 * <ul>
 * <li>a missing, empty, over-long or malformed key: 400;</li>
 * <li>the key of another request (another fingerprint): 422;</li>
 * <li>the key of a request still in progress: 409, with {@code Retry-After};</li>
 * <li>the key of a completed request under {@code onDuplicate = THROW}: 409;</li>
 * <li>a response too large to store: 500 (the invocation was rolled back, the key released);</li>
 * <li>the store unreachable: 503, with {@code Retry-After}.</li>
 * </ul>
 * Anything else is left as it was thrown.
 *
 * @since 0.2.0
 */
final class HttpProblems {

	private HttpProblems() {
	}

	/**
	 * The problem for an exception of an idempotent request.
	 * @param ex what the engine threw
	 * @param refusedHeader the request's key header when the method is keyed by it and it was refused,
	 * else {@code null}
	 * @param settings the header's name and the retry delay
	 * @return the problem, or {@code ex} itself when it is not the transport's
	 */
	static Throwable translate(Throwable ex, @Nullable IdempotencyKeyHeader refusedHeader,
			HttpIdempotencySettings settings) {
		String header = settings.keyHeader();
		if (ex instanceof InvalidIdempotencyKeyException) {
			boolean missing = refusedHeader != null && refusedHeader.missing();
			String detail = (refusedHeader != null && refusedHeader.problem() != null) ? refusedHeader.problem()
					: "The request's idempotency key could not be read from the request";
			return new IdempotencyProblemException(HttpStatus.BAD_REQUEST, missing ? "key-missing" : "key-invalid",
					header + (missing ? " missing" : " invalid"), detail, ex)
				.property("header", header)
				.property("maxLength", settings.maxKeyLength());
		}
		if (ex instanceof IdempotencyKeyConflictException) {
			return new IdempotencyProblemException(HttpStatus.UNPROCESSABLE_CONTENT, "key-reused", header + " reused",
					"This " + header + " was used for another request (another method, path or body); use a new key "
							+ "for a new request",
					ex);
		}
		if (ex instanceof IdempotencyInProgressException) {
			return retryLater(new IdempotencyProblemException(HttpStatus.CONFLICT, "key-in-progress",
					"Request in progress", "A request with this " + header + " is still being processed; retry once "
							+ "it has completed to get its response",
					ex), settings);
		}
		if (ex instanceof DuplicateMessageException) {
			return new IdempotencyProblemException(HttpStatus.CONFLICT, "key-used", header + " already used",
					"A request with this " + header + " was already processed", ex);
		}
		if (ex instanceof StoredResultTooLargeException) {
			return new IdempotencyProblemException(HttpStatus.INTERNAL_SERVER_ERROR, "response-too-large",
					"Response too large to store", "The response is larger than this server stores for replays "
							+ "(idempotency.stored-result.max-size); the request's transaction was rolled back and its "
							+ header + " released",
					ex);
		}
		if (ex instanceof IdempotencyStoreException) {
			return retryLater(new IdempotencyProblemException(HttpStatus.SERVICE_UNAVAILABLE, "store-unavailable",
					"Idempotency store unavailable", "The request's " + header + " could not be checked; nothing was "
							+ "done, retry later",
					ex), settings);
		}
		return ex;
	}

	private static IdempotencyProblemException retryLater(IdempotencyProblemException problem,
			HttpIdempotencySettings settings) {
		long seconds = (settings.retryAfter().toMillis() + 999) / 1000;
		return (seconds > 0) ? problem.header(HttpHeaders.RETRY_AFTER, Long.toString(seconds)) : problem;
	}

}
