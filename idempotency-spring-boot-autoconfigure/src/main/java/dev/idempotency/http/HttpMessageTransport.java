package dev.idempotency.http;

import java.lang.annotation.Annotation;
import java.util.List;

import dev.idempotency.core.MessageTransport;

import org.springframework.web.bind.annotation.RequestMapping;

/**
 * Spring MVC as a {@link MessageTransport}: a handler method ({@code @RequestMapping},
 * {@code @PostMapping}, ...) is its listener, the mapping's {@code name} its id. Its listeners
 * fingerprint the request (method, path and query, body) and answer a duplicate with the first
 * response, unless their {@code @Idempotent} says otherwise.
 *
 * @since 0.2.0
 */
public final class HttpMessageTransport implements MessageTransport {

	/** The transport's name, also the namespace its requests are delivered in. */
	public static final String NAME = "http";

	/**
	 * The default fingerprint: the request's method, path, query and body ({@link IdempotentRequest});
	 * {@code null}, and so refused, for a call that is not a request.
	 */
	public static final String DEFAULT_FINGERPRINT = "#" + IdempotentRequest.VARIABLE + "?.fingerprintPayload()";

	@Override
	public String name() {
		return NAME;
	}

	@Override
	public List<Class<? extends Annotation>> listenerAnnotationTypes() {
		return List.of(RequestMapping.class);
	}

	@Override
	public String listenerId(Annotation listener) {
		return ((RequestMapping) listener).name();
	}

	@Override
	public String defaultFingerprint(Annotation listener) {
		return DEFAULT_FINGERPRINT;
	}

	@Override
	public boolean returnsPreviousResult(Annotation listener) {
		return true;
	}

}
