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
 * What the sections of the {@code idempotency} endpoint share, the starter's and each technology's:
 * responses, the audit log, page sizes and keys from the path.
 *
 * @since 0.2.0
 */
public final class SectionResponses {

	static final int STATUS_CONFLICT = 409;

	// Audit lines carry the endpoint's name, whichever section wrote them.
	private static final Log logger = LogFactory.getLog(IdempotencyEndpoint.class);

	private SectionResponses() {
	}

	/**
	 * {@code 200} with a body.
	 * @param body the body
	 * @return the response
	 */
	public static WebEndpointResponse<Object> ok(Object body) {
		return new WebEndpointResponse<>(body, WebEndpointResponse.STATUS_OK);
	}

	/**
	 * {@code 404} with a {@link IdempotencyEndpoint.Problem}.
	 * @param message what was not found
	 * @return the response
	 */
	public static WebEndpointResponse<Object> notFound(String message) {
		return problem(message, WebEndpointResponse.STATUS_NOT_FOUND);
	}

	/**
	 * {@code 400} with a {@link IdempotencyEndpoint.Problem}.
	 * @param message what is wrong with the request
	 * @return the response
	 */
	public static WebEndpointResponse<Object> badRequest(String message) {
		return problem(message, WebEndpointResponse.STATUS_BAD_REQUEST);
	}

	/**
	 * A status with a {@link IdempotencyEndpoint.Problem}.
	 * @param message why the operation did nothing
	 * @param status the status
	 * @return the response
	 */
	public static WebEndpointResponse<Object> problem(String message, int status) {
		return new WebEndpointResponse<>(new IdempotencyEndpoint.Problem(message), status);
	}

	/**
	 * Logs a write at {@code WARN} with its caller.
	 * @param securityContext the caller
	 * @param operation what was written, and its outcome
	 */
	public static void audit(SecurityContext securityContext, String operation) {
		Principal principal = securityContext.getPrincipal();
		logger.warn("Actuator endpoint 'idempotency', " + operation + " (by "
				+ ((principal != null) ? "'" + principal.getName() + "'" : "an unauthenticated caller") + ")");
	}

	/**
	 * A page or list size: {@value IdempotencyEndpoint#DEFAULT_PAGE_SIZE} if none is asked for,
	 * otherwise between 1 and {@value IdempotencyEndpoint#MAX_PAGE_SIZE}.
	 * @param size the size asked for, or {@code null}
	 * @return the size to use
	 */
	public static int bounded(@Nullable Integer size) {
		if (size == null) {
			return IdempotencyEndpoint.DEFAULT_PAGE_SIZE;
		}
		return Math.max(1, Math.min(IdempotencyEndpoint.MAX_PAGE_SIZE, size));
	}

	/**
	 * The key a path names, or {@code null} if the namespace or the key is not a valid one.
	 * @param namespace the namespace from the path
	 * @param key the key from the path
	 * @return the key, or {@code null}
	 */
	public static @Nullable IdempotencyKey key(String namespace, String key) {
		try {
			return new IdempotencyKey(namespace, key);
		}
		catch (InvalidIdempotencyKeyException ex) {
			return null;
		}
	}

}
