package dev.idempotency.kafka;

import java.lang.reflect.AnnotatedElement;
import java.lang.reflect.Method;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;

import dev.idempotency.annotation.Idempotent;
import org.apache.kafka.clients.consumer.ConsumerRecords;

import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.kafka.annotation.KafkaListenerAnnotationBeanPostProcessor.AnnotationEnhancer;
import org.springframework.kafka.support.Acknowledgment;

/**
 * Switches record-style {@code @Idempotent} Kafka listeners to transaction batching
 * ({@code idempotency.kafka.transaction-batching.enabled}): their {@code @KafkaListener} is read
 * as {@code batch = "true"} with the {@link TransactionBatchingContainers} as its container
 * post-processor, so that the container hands over each poll and the {@link TransactionBatchingAdapter}
 * calls the method once per record in one transaction.
 * <p>
 * A listener is switched when its method is {@code @Idempotent}, returns {@code void} (a reply per
 * record cannot be given from one transaction) and takes one message: no {@code List},
 * {@code Collection} or {@code ConsumerRecords} parameter, no {@code Acknowledgment}. A listener
 * whose {@code @KafkaListener} sets {@code batch} (so {@code batch = "false"} opts one out) or its
 * own {@code containerPostProcessor} is left as it is, and so are class-level listeners.
 *
 * @since 0.2.0
 */
public class TransactionBatchingListeners implements AnnotationEnhancer {

	@Override
	public Map<String, Object> apply(Map<String, Object> attributes, AnnotatedElement element) {
		if (!(element instanceof Method method) || !switches(method, attributes)) {
			return attributes;
		}
		Map<String, Object> switched = new LinkedHashMap<>(attributes);
		switched.put("batch", "true");
		switched.put("containerPostProcessor", TransactionBatchingContainers.BEAN_NAME);
		return switched;
	}

	/**
	 * Whether a listener method is switched to transaction batching.
	 * @param method the {@code @KafkaListener} method
	 * @param attributes its {@code @KafkaListener} attributes
	 * @return whether it is switched
	 */
	static boolean switches(Method method, Map<String, Object> attributes) {
		if (!AnnotatedElementUtils.hasAnnotation(method, Idempotent.class) || method.getReturnType() != void.class
				|| isSet(attributes.get("batch")) || isSet(attributes.get("containerPostProcessor"))) {
			return false;
		}
		for (Class<?> type : method.getParameterTypes()) {
			if (Collection.class.isAssignableFrom(type) || ConsumerRecords.class.isAssignableFrom(type)
					|| Acknowledgment.class.isAssignableFrom(type)) {
				return false;
			}
		}
		return true;
	}

	private static boolean isSet(Object value) {
		return value instanceof String text && !text.isBlank();
	}

}
