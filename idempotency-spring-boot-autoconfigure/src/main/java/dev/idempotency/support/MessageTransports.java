package dev.idempotency.support;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;

import dev.idempotency.core.MessageTransport;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.core.annotation.MergedAnnotation;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.core.annotation.MergedAnnotations.SearchStrategy;
import org.springframework.core.annotation.RepeatableContainers;
import org.springframework.util.StringValueResolver;

/**
 * The registered {@link MessageTransport}s, in bean order, and the questions the engine asks of a
 * method's listener annotations through them. Immutable and thread-safe.
 *
 * @since 0.2.0
 */
public final class MessageTransports {

	private static final MessageTransports NONE = new MessageTransports(List.of());

	private final List<MessageTransport> transports;

	private MessageTransports(List<MessageTransport> transports) {
		this.transports = transports;
	}

	/**
	 * The given transports, asked in this order.
	 * @param transports the transports
	 * @return the registry
	 * @throws IllegalStateException if two transports share a name or one declares no listener
	 * annotation
	 */
	public static MessageTransports of(List<? extends MessageTransport> transports) {
		Map<String, MessageTransport> byName = new LinkedHashMap<>();
		for (MessageTransport transport : transports) {
			MessageTransport other = byName.putIfAbsent(transport.name(), transport);
			if (other != null) {
				throw new IllegalStateException("Message transports " + other.getClass().getName() + " and "
						+ transport.getClass().getName() + " are both named '" + transport.name()
						+ "'; register one MessageTransport bean per transport");
			}
			if (transport.listenerAnnotationTypes().isEmpty()) {
				throw new IllegalStateException("Message transport '" + transport.name() + "' ("
						+ transport.getClass().getName() + ") declares no listener annotation type");
			}
		}
		return new MessageTransports(List.copyOf(transports));
	}

	/**
	 * The transport beans of an application context, in bean order.
	 * @param transports the {@code MessageTransport} beans
	 * @return the registry
	 * @throws IllegalStateException as {@link #of(List)}
	 */
	public static MessageTransports from(ObjectProvider<MessageTransport> transports) {
		return of(transports.orderedStream().toList());
	}

	/**
	 * No transport: no annotation names a listener, default namespaces use
	 * {@code SimpleClassName#method}.
	 * @return the empty registry
	 */
	public static MessageTransports none() {
		return NONE;
	}

	/**
	 * The transports, in the order they are asked.
	 * @return the transports
	 */
	public List<MessageTransport> all() {
		return this.transports;
	}

	/**
	 * The id, as written, of the first listener annotation found on the method (through its type
	 * hierarchy and repeatable containers), else on the target class (a class-level listener whose
	 * handler methods it calls), transport by transport.
	 * @param method the method
	 * @param targetClass the class the method is invoked on
	 * @return the id ({@code ""} when the found annotation names none), or {@code null} when no
	 * transport's annotation is found
	 */
	public @Nullable String listenerId(Method method, Class<?> targetClass) {
		return ask(method, targetClass, MessageTransport::listenerId);
	}

	/**
	 * The default fingerprint expression the transport of the method's listener annotation gives it
	 * (found as for {@link #listenerId}).
	 * @param method the method
	 * @param targetClass the class the method is invoked on
	 * @return the expression, or {@code null} when no transport's annotation is found or it gives none
	 * @since 0.2.0
	 */
	public @Nullable String defaultFingerprint(Method method, Class<?> targetClass) {
		String expression = ask(method, targetClass, MessageTransport::defaultFingerprint);
		return (expression != null && !expression.isBlank()) ? expression : null;
	}

	/**
	 * Whether the transport of the method's listener annotation (found as for {@link #listenerId})
	 * answers duplicates with the first call's stored result.
	 * @param method the method
	 * @param targetClass the class the method is invoked on
	 * @return {@code true} if it does; {@code false} when no transport's annotation is found
	 * @since 0.2.0
	 */
	public boolean returnsPreviousResult(Method method, Class<?> targetClass) {
		return Boolean.TRUE.equals(ask(method, targetClass, MessageTransport::returnsPreviousResult));
	}

	private <T> @Nullable T ask(Method method, Class<?> targetClass,
			BiFunction<MessageTransport, Annotation, T> question) {
		for (MessageTransport transport : this.transports) {
			for (Class<? extends Annotation> type : transport.listenerAnnotationTypes()) {
				MergedAnnotation<? extends Annotation> listener = MergedAnnotations
					.from(method, SearchStrategy.TYPE_HIERARCHY, RepeatableContainers.standardRepeatables())
					.get(type);
				if (!listener.isPresent()) {
					listener = MergedAnnotations.from(targetClass, SearchStrategy.TYPE_HIERARCHY).get(type);
				}
				if (listener.isPresent()) {
					return question.apply(transport, listener.synthesize());
				}
			}
		}
		return null;
	}

	/**
	 * Whether a listener annotation on the method itself (not its class) declares a batch listener.
	 * @param method the method
	 * @param placeholders resolves {@code ${...}} in the annotation's strings
	 * @return {@code true} if a transport calls the method a batch listener
	 */
	public boolean isBatchListener(Method method, StringValueResolver placeholders) {
		for (MessageTransport transport : this.transports) {
			for (Class<? extends Annotation> type : transport.listenerAnnotationTypes()) {
				MergedAnnotation<? extends Annotation> listener = MergedAnnotations
					.from(method, SearchStrategy.TYPE_HIERARCHY)
					.get(type);
				if (listener.isPresent() && transport.isBatchListener(listener.synthesize(), (value) -> {
					String resolved = placeholders.resolveStringValue(value);
					return (resolved != null) ? resolved : "";
				})) {
					return true;
				}
			}
		}
		return false;
	}

	@Override
	public String toString() {
		return this.transports.stream().map(MessageTransport::name).toList().toString();
	}

}
