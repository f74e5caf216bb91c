package dev.idempotency.http;

import java.lang.reflect.Method;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.idempotency.annotation.Idempotent;
import dev.idempotency.core.DeliveryContext;
import dev.idempotency.core.DeliveryContextHolder;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.http.server.ServletServerHttpRequest;
import org.springframework.web.context.request.RequestAttributes;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.context.request.ServletRequestAttributes;

/**
 * Runs just outside the engine's interceptor, around an {@code @Idempotent} handler method called by
 * Spring MVC: reads the {@code Idempotency-Key} header, binds the request as the delivery (message id
 * {@code <scope>:<key>}, namespace {@code http}, SpEL variables {@code #httpRequest}, {@code #headers},
 * {@code #idempotentRequest}), marks a replayed response with the replay header, and answers the
 * engine's refusals with problem details ({@link HttpProblems}). A call outside a request, or from
 * inside another idempotent request's handler, runs as the engine alone would run it.
 *
 * @since 0.2.0
 */
public final class IdempotentRequestInterceptor implements MethodInterceptor {

	static final String BOUND = IdempotentRequestInterceptor.class.getName() + ".BOUND";

	static final String EXECUTED = IdempotentRequestInterceptor.class.getName() + ".EXECUTED";

	static final String HANDLER_FAILURE = IdempotentRequestInterceptor.class.getName() + ".HANDLER_FAILURE";

	private final HttpIdempotencySettings settings;

	private final HttpIdempotencyScope scope;

	private final Map<Method, Boolean> keyedByHeader = new ConcurrentHashMap<>();

	/**
	 * Creates the interceptor.
	 * @param settings the header and replay settings
	 * @param scope the scope of each request's keys
	 */
	public IdempotentRequestInterceptor(HttpIdempotencySettings settings, HttpIdempotencyScope scope) {
		this.settings = settings;
		this.scope = scope;
	}

	@Override
	public @Nullable Object invoke(MethodInvocation call) throws Throwable {
		RequestAttributes attributes = RequestContextHolder.getRequestAttributes();
		if (!(attributes instanceof ServletRequestAttributes servlet)
				|| servlet.getRequest().getAttribute(BOUND) != null) {
			return call.proceed();
		}
		HttpServletRequest request = servlet.getRequest();
		IdempotencyKeyHeader header = IdempotencyKeyHeader.read(this.settings.keyHeader(),
				request.getHeader(this.settings.keyHeader()), this.settings.maxKeyLength());
		DeliveryContext previous = DeliveryContextHolder.current();
		request.setAttribute(BOUND, Boolean.TRUE);
		DeliveryContextHolder.set(deliveryOf(request, header));
		try {
			Object result = call.proceed();
			HttpServletResponse response = servlet.getResponse();
			if (request.getAttribute(EXECUTED) == null && response != null) {
				response.setHeader(this.settings.replayedHeader(), "true");
			}
			return result;
		}
		catch (ResponseNotStoredException ex) {
			return ex.getResponse();
		}
		catch (Throwable ex) {
			if (ex == request.getAttribute(HANDLER_FAILURE)) {
				throw ex;
			}
			throw HttpProblems.translate(ex,
					(!header.accepted() && keyedByHeader(call.getMethod())) ? header : null, this.settings);
		}
		finally {
			if (previous != null) {
				DeliveryContextHolder.set(previous);
			}
			else {
				DeliveryContextHolder.clear();
			}
			request.removeAttribute(BOUND);
			request.removeAttribute(EXECUTED);
			request.removeAttribute(HANDLER_FAILURE);
		}
	}

	/** The request of the idempotent call in progress on this thread, or {@code null}. */
	static @Nullable HttpServletRequest boundRequest() {
		RequestAttributes attributes = RequestContextHolder.getRequestAttributes();
		if (attributes instanceof ServletRequestAttributes servlet
				&& servlet.getRequest().getAttribute(BOUND) != null) {
			return servlet.getRequest();
		}
		return null;
	}

	private DeliveryContext deliveryOf(HttpServletRequest request, IdempotencyKeyHeader header) {
		String messageId = (header.key() != null)
				? HttpIdempotencyScope.scopedKey(emptyToNull(this.scope.scopeOf(request)), header.key()) : null;
		Map<String, Object> variables = new HashMap<>(4);
		variables.put("httpRequest", request);
		variables.put("headers", new ServletServerHttpRequest(request).getHeaders());
		variables.put(IdempotentRequest.VARIABLE, new IdempotentRequest(request.getMethod(), request.getRequestURI(),
				request.getQueryString(), RequestBodyCapture.capturedBody(request)));
		if (header.key() != null) {
			variables.put("idempotencyKey", header.key());
		}
		return new DeliveryContext(messageId, HttpMessageTransport.NAME, variables, null, List.of());
	}

	/** Whether the method's key is the header's (its {@code @Idempotent} sets no key expression). */
	private boolean keyedByHeader(Method method) {
		return this.keyedByHeader.computeIfAbsent(method, (candidate) -> {
			Idempotent idempotent = AnnotatedElementUtils.findMergedAnnotation(candidate, Idempotent.class);
			return idempotent == null || idempotent.key().isBlank();
		});
	}

	private static @Nullable String emptyToNull(@Nullable String value) {
		return (value == null || value.isEmpty()) ? null : value;
	}

}
