package dev.idempotency.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;

/**
 * Compares the dedup retention of every {@code @Idempotent} Kafka listener with the
 * {@code retention.ms} of the topics it reads: a record stays in its topic, and can be replayed
 * (an offset reset, a new consumer group, a seek), for at least {@code retention.ms} after it was
 * produced, while its key is forgotten the dedup retention after it was consumed. A dedup retention
 * shorter than the topic's retention plus a margin lets a replay apply a record twice.
 * <p>
 * The check is best effort and bounded: the topics' configurations are read with one
 * {@code describeConfigs} call whose timeouts are the given one, and a broker that does not answer
 * in time, a topic that does not exist yet, a topic pattern or an expression that cannot be
 * evaluated is logged and skipped, never an error. Topics without a time limit
 * ({@code retention.ms=-1}) or compacted ones cannot be covered by any retention; they are logged
 * at INFO, once per topic.
 *
 * @since 0.1.0
 */
public final class KafkaRetentionCheck {

	private static final Log logger = LogFactory.getLog(KafkaRetentionCheck.class);

	private static final String CLIENT_ID = "idempotency-retention-check";

	private final Duration defaultRetention;

	private final Duration margin;

	private final Duration timeout;

	/**
	 * Creates the check.
	 * @param defaultRetention the dedup retention of methods that do not set one
	 * ({@code idempotency.retention})
	 * @param margin how much longer than the topic's retention the dedup retention must be
	 * @param timeout the longest the check waits for the broker, in total
	 */
	public KafkaRetentionCheck(Duration defaultRetention, Duration margin, Duration timeout) {
		this.defaultRetention = defaultRetention;
		this.margin = margin;
		this.timeout = timeout;
	}

	/**
	 * Runs the check on the {@code @Idempotent} Kafka listeners of {@code beanFactory}.
	 * @param beanFactory the application's bean factory
	 * @param adminConfig the admin client configuration (a {@code KafkaAdmin}'s), or {@code null}
	 * when there is no single {@code KafkaAdmin}; its timeouts are replaced by this check's
	 * @return the methods whose dedup retention is too short ({@link RetentionFinding.Kind#TOO_SHORT}),
	 * empty when the check could not run; never throws for the broker's sake
	 */
	public List<RetentionFinding> run(ConfigurableListableBeanFactory beanFactory,
			@Nullable Map<String, Object> adminConfig) {
		List<IdempotentKafkaListener> listeners = IdempotentKafkaListeners.find(beanFactory, this.defaultRetention);
		if (listeners.isEmpty()) {
			return List.of();
		}
		Set<String> topics = new LinkedHashSet<>();
		listeners.forEach((listener) -> topics.addAll(listener.topics()));
		if (adminConfig == null) {
			logger.info("Retention check: no single KafkaAdmin bean, so the retention of topics " + topics
					+ " read by @Idempotent listeners is not checked");
			return List.of();
		}
		long start = System.nanoTime();
		Map<String, TopicRetention> retentions;
		try {
			retentions = describe(adminConfig, topics, this.timeout);
		}
		catch (Exception ex) {
			if (ex instanceof InterruptedException) {
				Thread.currentThread().interrupt();
			}
			logger.warn("Retention check could not run: the retention of topics " + topics + " was not read within "
					+ RetentionFinding.format(this.timeout) + " (" + describe(ex)
					+ "). Start-up goes on; the dedup retention is not compared with the topics' retention.ms");
			return List.of();
		}
		List<RetentionFinding> findings = compare(listeners, retentions, this.margin);
		List<RetentionFinding> tooShort = new ArrayList<>();
		for (RetentionFinding finding : findings) {
			if (finding.kind() == RetentionFinding.Kind.UNBOUNDED) {
				logger.info(finding.message());
			}
			else {
				tooShort.add(finding);
			}
		}
		if (logger.isDebugEnabled()) {
			logger.debug("Retention check of " + topics + " took "
					+ TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) + " ms");
		}
		return tooShort;
	}

	/**
	 * Compares each listener's dedup retention with the retention of each topic it reads.
	 * @param listeners the {@code @Idempotent} Kafka listeners
	 * @param topics the retention of the topics, by name; a topic missing here is not checked
	 * @param margin how much longer than a topic's retention a dedup retention must be
	 * @return one {@link RetentionFinding.Kind#TOO_SHORT} finding per method and topic whose dedup
	 * retention is shorter than the topic's retention plus the margin, then one
	 * {@link RetentionFinding.Kind#UNBOUNDED} finding per topic without a time limit or compacted
	 */
	public static List<RetentionFinding> compare(List<IdempotentKafkaListener> listeners,
			Map<String, TopicRetention> topics, Duration margin) {
		List<RetentionFinding> findings = new ArrayList<>();
		Map<String, Set<String>> unbounded = new LinkedHashMap<>();
		for (IdempotentKafkaListener listener : listeners) {
			for (String topic : listener.topics()) {
				TopicRetention retention = topics.get(topic);
				if (retention == null) {
					continue;
				}
				if (!retention.isBounded()) {
					// Sorted: the order of a class's methods is not defined by reflection.
					unbounded.computeIfAbsent(topic, (name) -> new TreeSet<>()).add(listener.method());
				}
				else if (listener.retention().compareTo(retention.retention().plus(margin)) < 0) {
					findings.add(new RetentionFinding(RetentionFinding.Kind.TOO_SHORT, retention,
							List.of(listener.method()), listener.retention(), margin));
				}
			}
		}
		unbounded.forEach((topic, methods) -> findings.add(new RetentionFinding(RetentionFinding.Kind.UNBOUNDED,
				topics.get(topic), List.copyOf(methods), null, margin)));
		return findings;
	}

	/**
	 * Reads {@code retention.ms} and {@code cleanup.policy} of the topics, waiting at most
	 * {@code timeout} in total.
	 * @param adminConfig the admin client configuration
	 * @param topics the topics
	 * @param timeout the longest the call may take
	 * @return the retention of every topic that exists; a topic that does not is logged at INFO
	 * @throws Exception if the broker does not answer in time or refuses the request
	 */
	static Map<String, TopicRetention> describe(Map<String, Object> adminConfig, Collection<String> topics,
			Duration timeout) throws Exception {
		long deadline = System.nanoTime() + timeout.toNanos();
		Map<String, Object> config = new HashMap<>(adminConfig);
		int timeoutMs = (int) Math.max(1, Math.min(Integer.MAX_VALUE, timeout.toMillis()));
		config.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, timeoutMs);
		config.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, timeoutMs);
		config.put(AdminClientConfig.CLIENT_ID_CONFIG, CLIENT_ID);
		Map<String, TopicRetention> retentions = new LinkedHashMap<>();
		Admin admin = Admin.create(config);
		try {
			List<ConfigResource> resources = topics.stream()
				.map((topic) -> new ConfigResource(ConfigResource.Type.TOPIC, topic))
				.toList();
			Map<ConfigResource, KafkaFuture<Config>> results = admin.describeConfigs(resources).values();
			for (ConfigResource resource : resources) {
				long remaining = Math.max(0, deadline - System.nanoTime());
				Config topicConfig;
				try {
					topicConfig = results.get(resource).get(remaining, TimeUnit.NANOSECONDS);
				}
				catch (ExecutionException ex) {
					if (ex.getCause() instanceof UnknownTopicOrPartitionException) {
						logger.info("Retention check: topic '" + resource.name() + "' does not exist (yet), so its "
								+ "retention is not checked");
						continue;
					}
					throw ex;
				}
				String retentionMs = value(topicConfig, TopicConfig.RETENTION_MS_CONFIG);
				if (retentionMs == null) {
					logger.info("Retention check: the broker reports no retention.ms for topic '" + resource.name()
							+ "', so its retention is not checked");
					continue;
				}
				String cleanupPolicy = value(topicConfig, TopicConfig.CLEANUP_POLICY_CONFIG);
				retentions.put(resource.name(), new TopicRetention(resource.name(), Long.parseLong(retentionMs),
						(cleanupPolicy != null) ? cleanupPolicy : TopicConfig.CLEANUP_POLICY_DELETE));
			}
		}
		finally {
			admin.close(Duration.ZERO);
		}
		return retentions;
	}

	private static @Nullable String value(Config config, String name) {
		ConfigEntry entry = config.get(name);
		return (entry != null) ? entry.value() : null;
	}

	private static String describe(Throwable ex) {
		Throwable cause = (ex instanceof ExecutionException && ex.getCause() != null) ? ex.getCause() : ex;
		return cause.getClass().getSimpleName() + ((cause.getMessage() != null) ? ": " + cause.getMessage() : "");
	}

}
