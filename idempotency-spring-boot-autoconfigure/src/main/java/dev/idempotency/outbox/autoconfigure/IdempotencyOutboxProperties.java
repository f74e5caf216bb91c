package dev.idempotency.outbox.autoconfigure;

import java.time.Duration;

import dev.idempotency.autoconfigure.IdempotencyPurgeProperties;
import dev.idempotency.autoconfigure.RetryProperties;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.NestedConfigurationProperty;
import org.springframework.boot.jdbc.init.DatabaseInitializationProperties;

/**
 * Configuration of the transactional outbox. Inherits {@code schema}, {@code platform},
 * {@code initialize-schema} and {@code continue-on-error} from Spring Boot's database
 * initialization support.
 *
 * @since 0.1.0
 */
@ConfigurationProperties("idempotency.outbox")
public class IdempotencyOutboxProperties extends DatabaseInitializationProperties {

	/** Location of the schema scripts shipped in the jar, one per database platform. */
	public static final String DEFAULT_SCHEMA_LOCATION = "classpath:dev/idempotency/outbox/schema-@@platform@@.sql";

	/**
	 * Whether the outbox (the Outbox bean, its relay and purge) is set up. Off unless chosen: it needs
	 * the outbox table and polls it.
	 */
	private boolean enabled = false;

	/**
	 * Name of the outbox table. The shipped schema scripts create "idempotency_outbox"; with another
	 * name, create the table yourself or point "schema" at your own script.
	 */
	private String tableName = "idempotency_outbox";

	/**
	 * Whether a message waits until every earlier message with the same key was sent. A message that
	 * keeps failing (or is dead) then holds back the later messages of its key, and only those.
	 */
	private boolean orderedPerKey = false;

	/**
	 * How long sent rows stay in the table before the purge deletes them.
	 */
	private Duration retention = Duration.ofDays(1);

	private final Relay relay = new Relay();

	private final Retry retry = new Retry();

	private final Rabbit rabbit = new Rabbit();

	@NestedConfigurationProperty
	private final IdempotencyPurgeProperties purge = new IdempotencyPurgeProperties();

	public IdempotencyOutboxProperties() {
		// An outbox table that failed to be created must stop start-up, not every later publish.
		setContinueOnError(false);
	}

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public String getTableName() {
		return this.tableName;
	}

	public void setTableName(String tableName) {
		this.tableName = tableName;
	}

	public boolean isOrderedPerKey() {
		return this.orderedPerKey;
	}

	public void setOrderedPerKey(boolean orderedPerKey) {
		this.orderedPerKey = orderedPerKey;
	}

	public Duration getRetention() {
		return this.retention;
	}

	public void setRetention(Duration retention) {
		this.retention = retention;
	}

	public Relay getRelay() {
		return this.relay;
	}

	public Retry getRetry() {
		return this.retry;
	}

	public Rabbit getRabbit() {
		return this.rabbit;
	}

	public IdempotencyPurgeProperties getPurge() {
		return this.purge;
	}

	@Override
	public String getDefaultSchemaLocation() {
		return DEFAULT_SCHEMA_LOCATION;
	}

	/**
	 * The relay that sends committed rows to the brokers.
	 */
	public static class Relay {

		/**
		 * Whether this instance runs a relay. Turn it off on write-only instances; any number of
		 * instances may run one.
		 */
		private boolean enabled = true;

		/**
		 * Delay between rounds when there is nothing (more) to send; full batches follow each other at
		 * once.
		 */
		private Duration pollInterval = Duration.ofMillis(500);

		/**
		 * Whether a commit that published on this instance starts a relay round at once, instead of
		 * waiting for the next poll, and, while a round is under way, has it claim the new rows at
		 * once, beside its batches in flight, instead of after their acknowledgements. Rows
		 * committed on instances without a relay still wait for the poll.
		 */
		private boolean wakeOnCommit = true;

		/**
		 * Rows claimed and sent per round. Each batch costs one short transaction (its mark runs with
		 * the next claim) whatever its size; up to "max-in-flight-batches" batches, with their
		 * payloads, are held in memory at once.
		 */
		private int batchSize = 500;

		/**
		 * How many batches a relay keeps on their way at once: while the acknowledgements of one
		 * batch are awaited, the next is already claimed and sent. 1 claims the next batch only once
		 * the previous one was acknowledged and marked. Each batch is answered within the send
		 * timeout of its own claim.
		 */
		private int maxInFlightBatches = 3;

		/**
		 * How long a relay holds the rows it claimed; afterwards another relay may send them again.
		 * Must be longer than the send timeout.
		 */
		private Duration lease = Duration.ofMinutes(1);

		/**
		 * Longest wait for the broker's acknowledgements of one batch, counted from its claim;
		 * unacknowledged rows are retried after the back-off without counting an attempt (a timeout
		 * is never the message's fault).
		 */
		private Duration sendTimeout = Duration.ofSeconds(10);

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public Duration getPollInterval() {
			return this.pollInterval;
		}

		public void setPollInterval(Duration pollInterval) {
			this.pollInterval = pollInterval;
		}

		public boolean isWakeOnCommit() {
			return this.wakeOnCommit;
		}

		public void setWakeOnCommit(boolean wakeOnCommit) {
			this.wakeOnCommit = wakeOnCommit;
		}

		public int getBatchSize() {
			return this.batchSize;
		}

		public void setBatchSize(int batchSize) {
			this.batchSize = batchSize;
		}

		public int getMaxInFlightBatches() {
			return this.maxInFlightBatches;
		}

		public void setMaxInFlightBatches(int maxInFlightBatches) {
			this.maxInFlightBatches = maxInFlightBatches;
		}

		public Duration getLease() {
			return this.lease;
		}

		public void setLease(Duration lease) {
			this.lease = lease;
		}

		public Duration getSendTimeout() {
			return this.sendTimeout;
		}

		public void setSendTimeout(Duration sendTimeout) {
			this.sendTimeout = sendTimeout;
		}

	}

	/**
	 * Attempts of a message the broker did not acknowledge: 10 attempts, the first included, with a
	 * back-off from 1s doubling up to 5m, spread by a jitter.
	 */
	public static class Retry extends RetryProperties {

		/**
		 * Random spread added to or subtracted from each back-off (scaled with it), so that messages
		 * that failed together are not retried together.
		 */
		private Duration jitter = Duration.ofMillis(500);

		public Retry() {
			super(10, Duration.ofSeconds(1), 2.0, Duration.ofMinutes(5));
		}

		public Duration getJitter() {
			return this.jitter;
		}

		public void setJitter(Duration jitter) {
			this.jitter = jitter;
		}

	}

	/**
	 * The RabbitMQ sender (destinations "rabbit:exchange", "rabbit:exchange/routing-key" or
	 * "rabbit:/queue"), set up when there is a single RabbitMQ ConnectionFactory.
	 */
	public static class Rabbit {

		/**
		 * Whether the relay gets a RabbitMQ sender. It needs
		 * spring.rabbitmq.publisher-confirm-type=correlated and spring.rabbitmq.publisher-returns=true
		 * (start-up fails without them); turn it off when the outbox sends nothing to RabbitMQ.
		 */
		private boolean enabled = true;

		/**
		 * Content type of the messages sent to RabbitMQ. Payloads are JSON unless a String was
		 * published; "text/plain" lets Spring AMQP's SimpleMessageConverter hand a String to a listener.
		 */
		private String contentType = "application/json";

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public String getContentType() {
			return this.contentType;
		}

		public void setContentType(String contentType) {
			this.contentType = contentType;
		}

	}

}
