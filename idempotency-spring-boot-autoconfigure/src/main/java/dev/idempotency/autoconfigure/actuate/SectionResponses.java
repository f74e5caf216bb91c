package dev.idempotency.autoconfigure.actuate;

import java.security.Principal;

import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.core.InvalidIdempotencyKeyException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;

/**
 * What the sections of the {@code idempotency} endpoint share: responses, the audit log, page
 * sizes and keys from the path.
 */
final class SectionResponses {

	static final int STATUS_CONFLICT = 409;

	// Audit lines carry the endpoint's name, whichever section wrote them.
	private static final Log logger = LogFactory.getLog(IdempotencyEndpoint.class);

	private SectionResponses() {
	}

	static WebEndpointResponse<Object> ok(Object body) {
		return new WebEndpointResponse<>(body, WebEndpointResponse.STATUS_OK);
	}

	static WebEndpointResponse<Object> notFound(String message) {
		return problem(message, WebEndpointResponse.STATUS_NOT_FOUND);
	}

	static WebEndpointResponse<Object> badRequest(String message) {
		return problem(message, WebEndpointResponse.STATUS_BAD_REQUEST);
	}

	static WebEndpointResponse<Object> problem(String message, int status) {
		return new WebEndpointResponse<>(new IdempotencyEndpoint.Problem(message), status);
	}

	/**
	 * Logs a write at {@code WARN} with its caller.
	 */
	static void audit(SecurityContext securityContext, String operation) {
		Principal principal = securityContext.getPrincipal();
		logger.warn("Actuator endpoint 'idempotency', " + operation + " (by "
				+ ((principal != null) ? "'" + principal.getName() + "'" : "an unauthenticated caller") + ")");
	}

	/**
	 * A page or list size: {@value IdempotencyEndpoint#DEFAULT_PAGE_SIZE} if none is asked for,
	 * otherwise between 1 and {@value IdempotencyEndpoint#MAX_PAGE_SIZE}.
	 */
	static int bounded(@Nullable Integer size) {
		if (size == null) {
			return IdempotencyEndpoint.DEFAULT_PAGE_SIZE;
		}
		return Math.max(1, Math.min(IdempotencyEndpoint.MAX_PAGE_SIZE, size));
	}

	/**
	 * The key a path names, or {@code null} if the namespace or the key is not a valid one.
	 */
	static @Nullable IdempotencyKey key(String namespace, String key) {
		try {
			return new IdempotencyKey(namespace, key);
		}
		catch (InvalidIdempotencyKeyException ex) {
			return null;
		}
	}

}
