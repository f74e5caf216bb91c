package dev.idempotency.kafka;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.jspecify.annotations.Nullable;

/**
 * An {@code @Idempotent} method that a {@code @KafkaListener} calls, with the topics it reads and how
 * long its keys are kept.
 *
 * @param method {@code SimpleClassName#method}
 * @param retention the dedup retention of the method's keys ({@code @Idempotent(retention)}, else
 * {@code idempotency.retention})
 * @param topics the names of the topics it reads (topic patterns excluded)
 * @param namespace the method's explicit namespace, or {@code null} for the default
 * ({@code <group>:<listener>})
 * @param listener what identifies the listener in its default namespace: its id, else
 * {@code SimpleClassName#method}
 * @param topicsByGroup the topics it reads per consumer group ({@code ""} when the group is unknown)
 * @since 0.2.0
 */
public record IdempotentKafkaListener(String method, Duration retention, List<String> topics,
		@Nullable String namespace, String listener, Map<String, Set<String>> topicsByGroup) {

	public IdempotentKafkaListener {
		topics = List.copyOf(topics);
		topicsByGroup = Map.copyOf(topicsByGroup);
	}

	/**
	 * Creates a listener whose group is unknown.
	 * @param method {@code SimpleClassName#method}
	 * @param retention the dedup retention of the method's keys
	 * @param topics the topics it reads
	 * @deprecated since 0.2.0, for removal in 0.3.0: use {@link #IdempotentKafkaListener(String, Duration, List,
	 * String, String, Map)} with a {@code null} group
	 */
	@Deprecated(since = "0.2.0", forRemoval = true)
	public IdempotentKafkaListener(String method, Duration retention, List<String> topics) {
		this(method, retention, topics, null, method, Map.of("", Set.copyOf(topics)));
	}

	/**
	 * The namespace the method's keys are claimed in when it consumes from {@code group}.
	 * @param group the consumer group, possibly {@code ""}
	 * @return the explicit namespace, else {@code <group>:<listener>}
	 */
	public String namespaceIn(String group) {
		if (this.namespace != null) {
			return this.namespace;
		}
		return group.isEmpty() ? this.listener : group + ":" + this.listener;
	}

}
