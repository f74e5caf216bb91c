package dev.idempotency.http;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.idempotency.annotation.Idempotent;
import jakarta.servlet.http.HttpServletRequest;

import org.springframework.core.MethodParameter;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpInputMessage;
import org.springframework.http.HttpStatus;
import org.springframework.http.converter.HttpMessageConverter;
import org.springframework.web.bind.annotation.ControllerAdvice;
import org.springframework.web.context.request.RequestAttributes;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.servlet.mvc.method.annotation.RequestBodyAdviceAdapter;

/**
 * Keeps the body of a request to an {@code @Idempotent} handler method as it arrived, for its
 * fingerprint: Spring MVC reads it for the {@code @RequestBody} (or {@code HttpEntity}) argument
 * through this advice, which reads it whole first, up to the configured limit. A larger body is
 * refused with 413 before the handler is called, and nothing is stored. Other handlers' bodies are
 * not touched.
 *
 * @since 0.2.0
 */
@ControllerAdvice
@Order(Ordered.HIGHEST_PRECEDENCE)
public class RequestBodyCapture extends RequestBodyAdviceAdapter {

	private static final String BODY = RequestBodyCapture.class.getName() + ".BODY";

	private static final byte[] NONE = new byte[0];

	private final HttpIdempotencySettings settings;

	private final Map<Method, Boolean> idempotent = new ConcurrentHashMap<>();

	/**
	 * Creates the advice.
	 * @param settings the largest body fingerprinted
	 */
	public RequestBodyCapture(HttpIdempotencySettings settings) {
		this.settings = settings;
	}

	@Override
	public boolean supports(MethodParameter parameter, Type targetType,
			Class<? extends HttpMessageConverter<?>> converterType) {
		Method method = parameter.getMethod();
		return method != null && this.idempotent.computeIfAbsent(method,
				(candidate) -> AnnotatedElementUtils.hasAnnotation(candidate, Idempotent.class));
	}

	@Override
	public HttpInputMessage beforeBodyRead(HttpInputMessage message, MethodParameter parameter, Type targetType,
			Class<? extends HttpMessageConverter<?>> converterType) throws IOException {
		long limit = this.settings.maxBodySize();
		byte[] body = message.getBody().readNBytes((int) Math.min(limit + 1, Integer.MAX_VALUE - 8));
		if (body.length > limit) {
			throw new IdempotencyProblemException(HttpStatus.CONTENT_TOO_LARGE, "body-too-large",
					"Request body too large", "The request body is larger than the " + limit + " bytes this server "
							+ "fingerprints for an idempotent request; nothing was done",
					null)
				.property("maxBodySize", limit);
		}
		RequestAttributes attributes = RequestContextHolder.getRequestAttributes();
		if (attributes != null) {
			attributes.setAttribute(BODY, body, RequestAttributes.SCOPE_REQUEST);
		}
		return new CapturedBody(message.getHeaders(), body);
	}

	/**
	 * The body captured for a request, as it arrived.
	 * @param request the request
	 * @return the body, empty when no argument read one
	 */
	static byte[] capturedBody(HttpServletRequest request) {
		return (request.getAttribute(BODY) instanceof byte[] body) ? body : NONE;
	}

	private record CapturedBody(HttpHeaders headers, byte[] bytes) implements HttpInputMessage {

		@Override
		public InputStream getBody() {
			return new ByteArrayInputStream(this.bytes);
		}

		@Override
		public HttpHeaders getHeaders() {
			return this.headers;
		}

	}

}
