package dev.idempotency.http;

import jakarta.servlet.http.HttpServletRequest;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import org.springframework.http.ResponseEntity;

/**
 * Runs inside the idempotent invocation, around the handler method itself: marks the request as
 * executed (not replayed), remembers an exception the handler threw (which is the application's, not
 * the transport's to translate), and fails the invocation for a returned response that is not stored
 * (a 5xx by default), so that it rolls back and releases the key.
 *
 * @since 0.2.0
 */
public final class HandlerResponseInterceptor implements MethodInterceptor {

	private final HttpIdempotencySettings settings;

	/**
	 * Creates the interceptor.
	 * @param settings which responses are stored
	 */
	public HandlerResponseInterceptor(HttpIdempotencySettings settings) {
		this.settings = settings;
	}

	@Override
	public @Nullable Object invoke(MethodInvocation call) throws Throwable {
		HttpServletRequest request = IdempotentRequestInterceptor.boundRequest();
		if (request == null) {
			return call.proceed();
		}
		request.setAttribute(IdempotentRequestInterceptor.EXECUTED, Boolean.TRUE);
		Object result;
		try {
			result = call.proceed();
		}
		catch (Throwable ex) {
			request.setAttribute(IdempotentRequestInterceptor.HANDLER_FAILURE, ex);
			throw ex;
		}
		if (result instanceof ResponseEntity<?> response && !this.settings.stores(response.getStatusCode())) {
			throw new ResponseNotStoredException(response);
		}
		return result;
	}

}
