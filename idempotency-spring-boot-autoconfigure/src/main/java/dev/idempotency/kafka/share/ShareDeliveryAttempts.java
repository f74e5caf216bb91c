package dev.idempotency.kafka.share;

import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.config.ConfigResource;
import org.jspecify.annotations.Nullable;

/**
 * The number of deliveries a share-group record gets before the adapter dead-letters it: the
 * broker's {@value #BROKER_LIMIT} (read once, at start-up, with {@code Admin#describeConfigs}), or
 * a lower {@code max-attempts} of the application's. The broker archives a record whose delivery
 * count reaches its limit when it is released or its lock expires, without telling anyone; the
 * adapter's last attempt must therefore come no later than the broker's. A {@code max-attempts}
 * above the broker's limit fails start-up. A broker that does not answer leaves the configured
 * value, else Kafka's default of {@value #KAFKA_DEFAULT}, with a warning.
 *
 * @since 0.2.0
 */
public final class ShareDeliveryAttempts {

	/** The broker's limit of delivery attempts of a share-group record (Kafka 4.2). */
	public static final String BROKER_LIMIT = "group.share.delivery.count.limit";

	/** Kafka's default of {@value #BROKER_LIMIT}. */
	public static final int KAFKA_DEFAULT = 5;

	private static final Log logger = LogFactory.getLog(ShareDeliveryAttempts.class);

	private final Supplier<Map<String, Object>> adminConfiguration;

	private final @Nullable Integer configured;

	private final Duration timeout;

	private volatile int limit;

	/**
	 * Creates the limit, unresolved.
	 * @param adminConfiguration the configuration of an {@code Admin} client of the cluster
	 * @param configured the application's {@code max-attempts}, or {@code null} for the broker's
	 * @param timeout longest wait for the broker
	 */
	public ShareDeliveryAttempts(Supplier<Map<String, Object>> adminConfiguration, @Nullable Integer configured,
			Duration timeout) {
		this.adminConfiguration = adminConfiguration;
		this.configured = configured;
		this.timeout = timeout;
		this.limit = (configured != null) ? configured : KAFKA_DEFAULT;
	}

	/**
	 * Reads the broker's limit and checks the configured one against it.
	 * @throws IllegalStateException if the configured limit is above the broker's
	 */
	public void resolve() {
		Integer broker = brokerLimit();
		if (broker == null) {
			logger.warn("Could not read " + BROKER_LIMIT + " from the broker; share-group records are dead-lettered"
					+ " at delivery " + this.limit + ". Set idempotency.kafka.share.max-attempts to the broker's value");
			return;
		}
		if (this.configured != null && this.configured > broker) {
			throw new IllegalStateException("idempotency.kafka.share.max-attempts=" + this.configured
					+ " is above the broker's " + BROKER_LIMIT + "=" + broker + ": the broker would archive a failing"
					+ " record after its delivery " + broker + " without dead-lettering it. Set"
					+ " idempotency.kafka.share.max-attempts to at most " + broker + ", or remove it");
		}
		this.limit = (this.configured != null) ? this.configured : broker;
	}

	/**
	 * The deliveries a record gets, the first included; its last one dead-letters it.
	 * @return the limit
	 */
	public int limit() {
		return this.limit;
	}

	private @Nullable Integer brokerLimit() {
		long millis = this.timeout.toMillis();
		// The client's own timeouts too: its calls otherwise retry for default.api.timeout.ms (60 s) after
		// the futures below gave up, and closing it waited for them
		Map<String, Object> config = new HashMap<>(this.adminConfiguration.get());
		int timeoutMs = (int) Math.max(1, Math.min(Integer.MAX_VALUE, millis));
		config.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, timeoutMs);
		config.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, timeoutMs);
		Admin admin = Admin.create(config);
		try {
			Collection<Node> nodes = admin.describeCluster().nodes().get(millis, TimeUnit.MILLISECONDS);
			if (nodes.isEmpty()) {
				return null;
			}
			ConfigResource broker = new ConfigResource(ConfigResource.Type.BROKER, nodes.iterator().next().idString());
			Map<ConfigResource, Config> configs = admin.describeConfigs(List.of(broker))
				.all()
				.get(millis, TimeUnit.MILLISECONDS);
			ConfigEntry entry = configs.get(broker).get(BROKER_LIMIT);
			return (entry != null && entry.value() != null) ? Integer.valueOf(entry.value()) : null;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return null;
		}
		catch (Exception ex) {
			logger.debug("Could not read " + BROKER_LIMIT, ex);
			return null;
		}
		finally {
			// Without waiting for calls still pending: their answer is no longer wanted
			admin.close(Duration.ZERO);
		}
	}

}
