package dev.idempotency.kafka;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

import dev.idempotency.core.MessageTransport;
import dev.idempotency.support.IdempotentBeanMethods;
import dev.idempotency.support.IdempotentBeanMethods.BeanMethod;
import dev.idempotency.support.IdempotentMethod;
import dev.idempotency.support.MessageTransports;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.config.BeanExpressionContext;
import org.springframework.beans.factory.config.BeanExpressionResolver;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.kafka.annotation.KafkaHandler;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.annotation.TopicPartition;
import org.springframework.kafka.core.ConsumerFactory;

/**
 * Finds the {@code @Idempotent} methods that {@code @KafkaListener}s call and the topics they read,
 * as spring-kafka resolves them: {@code ${...}} placeholders, then {@code #{...}} expressions, in
 * {@code topics} and {@code topicPartitions}. A method-level {@code @KafkaListener} counts, and so
 * does a class-level one for its {@code @KafkaHandler} methods. Topic patterns cannot be checked and
 * expressions that need the listener bean ({@code __listener}) cannot be evaluated outside
 * spring-kafka; both are logged at INFO and skipped.
 */
final class IdempotentKafkaListeners {

	private static final Log logger = LogFactory.getLog(IdempotentKafkaListeners.class);

	private IdempotentKafkaListeners() {
	}

	/**
	 * The {@code @Idempotent} Kafka listener methods of the bean factory's beans.
	 * @param beanFactory the bean factory
	 * @param defaultRetention the retention of methods that do not set one
	 * @return the methods that read at least one named topic
	 */
	static List<IdempotentKafkaListener> find(ConfigurableListableBeanFactory beanFactory, Duration defaultRetention) {
		List<IdempotentKafkaListener> found = new ArrayList<>();
		// The registered transports, as the interceptor asks them: the namespaces checked are the ones used
		MessageTransports transports = MessageTransports.from(beanFactory.getBeanProvider(MessageTransport.class));
		for (BeanMethod method : IdempotentBeanMethods.find(beanFactory)) {
			IdempotentKafkaListener listener = listener(beanFactory, transports, method.userType(), method.method(),
					defaultRetention);
			if (listener != null) {
				found.add(listener);
			}
		}
		return found;
	}

	private static @Nullable IdempotentKafkaListener listener(ConfigurableListableBeanFactory beanFactory,
			MessageTransports transports, Class<?> userType, Method method, Duration defaultRetention) {
		Set<KafkaListener> annotations = AnnotatedElementUtils.findMergedRepeatableAnnotations(method,
				KafkaListener.class);
		if (annotations.isEmpty() && AnnotatedElementUtils.hasAnnotation(method, KafkaHandler.class)) {
			annotations = AnnotatedElementUtils.findMergedRepeatableAnnotations(userType, KafkaListener.class);
		}
		if (annotations.isEmpty()) {
			return null;
		}
		String name = userType.getSimpleName() + "#" + method.getName();
		Duration retention;
		String namespace;
		String identity;
		try {
			IdempotentMethod metadata = IdempotentMethod.of(method, userType, transports,
					beanFactory::resolveEmbeddedValue);
			retention = (metadata.retention() != null) ? metadata.retention() : defaultRetention;
			namespace = metadata.namespace();
			identity = metadata.listener();
		}
		catch (RuntimeException ex) {
			// A malformed annotation fails start-up in the methods verifier, with its own message.
			return null;
		}
		Set<String> topics = new LinkedHashSet<>();
		Map<String, Set<String>> topicsByGroup = new LinkedHashMap<>();
		for (KafkaListener annotation : annotations) {
			try {
				Set<String> own = new LinkedHashSet<>();
				for (String topic : annotation.topics()) {
					addTopics(resolve(beanFactory, topic), own, name);
				}
				for (TopicPartition partitions : annotation.topicPartitions()) {
					addTopics(resolve(beanFactory, partitions.topic()), own, name);
				}
				topics.addAll(own);
				topicsByGroup.computeIfAbsent(group(beanFactory, annotation), (group) -> new LinkedHashSet<>())
					.addAll(own);
			}
			catch (RuntimeException ex) {
				logger.info("Retention check: cannot resolve the topics of the @KafkaListener of @Idempotent " + name
						+ " outside spring-kafka (" + ex.getMessage() + "); its topics are not checked");
				return null;
			}
			if (!annotation.topicPattern().isEmpty()) {
				logger.info("Retention check: @Idempotent " + name + " reads topic pattern '" + annotation.topicPattern()
						+ "'; topics matched by a pattern are not checked");
			}
		}
		return topics.isEmpty() ? null
				: new IdempotentKafkaListener(name, retention, List.copyOf(topics), namespace, identity,
						topicsByGroup);
	}

	/**
	 * The consumer group of a listener as spring-kafka chooses it: {@code groupId}, else the
	 * {@code id} when it is the group, else the consumer factory's {@code group.id}; {@code ""} when
	 * none is known.
	 */
	private static String group(ConfigurableListableBeanFactory beanFactory, KafkaListener annotation) {
		String group = resolvedString(beanFactory, annotation.groupId());
		if (group.isEmpty() && annotation.idIsGroup()) {
			group = resolvedString(beanFactory, annotation.id());
		}
		if (group.isEmpty()) {
			ConsumerFactory<?, ?> consumers = beanFactory.getBeanProvider(ConsumerFactory.class).getIfUnique();
			Object configured = (consumers != null)
					? consumers.getConfigurationProperties().get(ConsumerConfig.GROUP_ID_CONFIG) : null;
			group = (configured != null) ? configured.toString().trim() : "";
		}
		return group;
	}

	private static String resolvedString(ConfigurableListableBeanFactory beanFactory, String value) {
		Object resolved = value.isEmpty() ? null : resolve(beanFactory, value);
		return (resolved != null) ? resolved.toString().trim() : "";
	}

	private static @Nullable Object resolve(ConfigurableListableBeanFactory beanFactory, String value) {
		String resolved = beanFactory.resolveEmbeddedValue(value);
		BeanExpressionResolver expressions = beanFactory.getBeanExpressionResolver();
		if (resolved == null || expressions == null) {
			return resolved;
		}
		return expressions.evaluate(resolved, new BeanExpressionContext(beanFactory, null));
	}

	private static void addTopics(@Nullable Object value, Set<String> topics, String method) {
		if (value instanceof String[] array) {
			for (String element : array) {
				addTopics(element, topics, method);
			}
		}
		else if (value instanceof Iterable<?> iterable) {
			for (Object element : iterable) {
				addTopics(element, topics, method);
			}
		}
		else if (value instanceof Pattern pattern) {
			logger.info("Retention check: @Idempotent " + method + " reads topic pattern '" + pattern.pattern()
					+ "'; topics matched by a pattern are not checked");
		}
		else if (value instanceof String topic && !topic.isBlank()) {
			topics.add(topic.trim());
		}
		else if (value != null && !(value instanceof String)) {
			throw new IllegalArgumentException("a topic resolved to a " + value.getClass().getName());
		}
	}

}
