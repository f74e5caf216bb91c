package dev.idempotency.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;

/**
 * Fails start-up when two {@code @Idempotent} listener methods consume one topic in one consumer
 * group under different namespaces. They are one logical consumer: a rebalance can move a partition
 * from one to the other, and the second would not see the first's keys, so records already
 * processed would run again. The default namespace ({@code <group>:<Class>#<method>}) differs per
 * method, so such methods must name one namespace.
 *
 * @since 0.2.0
 */
public class SharedTopicNamespaceVerifier implements SmartInitializingSingleton {

	private final ConfigurableListableBeanFactory beanFactory;

	public SharedTopicNamespaceVerifier(ConfigurableListableBeanFactory beanFactory) {
		this.beanFactory = beanFactory;
	}

	@Override
	public void afterSingletonsInstantiated() {
		List<String> conflicts = conflicts(IdempotentKafkaListeners.find(this.beanFactory, Duration.ZERO));
		if (!conflicts.isEmpty()) {
			throw new IllegalStateException(String.join("; ", conflicts));
		}
	}

	/**
	 * The (group, topic) pairs that several methods consume under different namespaces.
	 * @param listeners the {@code @Idempotent} Kafka listener methods
	 * @return one message per such pair, empty if there is none
	 */
	static List<String> conflicts(List<IdempotentKafkaListener> listeners) {
		Map<String, Map<String, Set<String>>> namespacesByGroupTopic = new LinkedHashMap<>();
		for (IdempotentKafkaListener listener : listeners) {
			listener.topicsByGroup().forEach((group, topics) -> {
				// Without a group (manual assignment), each method reads every record: not one consumer.
				if (!group.isEmpty()) {
					topics.forEach((topic) -> namespacesByGroupTopic
						.computeIfAbsent(group + "\u0000" + topic, (key) -> new LinkedHashMap<>())
						.computeIfAbsent(listener.namespaceIn(group), (key) -> new LinkedHashSet<>())
						.add(listener.method()));
				}
			});
		}
		List<String> conflicts = new ArrayList<>();
		namespacesByGroupTopic.forEach((groupTopic, namespaces) -> {
			if (namespaces.size() > 1) {
				String[] parts = groupTopic.split("\u0000", 2);
				conflicts.add("@Idempotent methods " + namespaces.values() + " consume topic '" + parts[1]
						+ "' in consumer group '" + parts[0] + "' under different namespaces " + namespaces.keySet()
						+ ": a rebalance that moves a partition from one to another would process its records "
						+ "again. Give them one @Idempotent(namespace = \"...\")");
			}
		});
		return conflicts;
	}

}
