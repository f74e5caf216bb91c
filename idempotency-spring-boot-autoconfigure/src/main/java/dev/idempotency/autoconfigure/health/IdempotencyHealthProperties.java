package dev.idempotency.autoconfigure.health;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Thresholds of the starter's Actuator health indicators. Whether each indicator exists at all is
 * Actuator's {@code management.health.<name>.enabled}.
 *
 * @since 0.2.0
 */
@ConfigurationProperties("idempotency.health")
public class IdempotencyHealthProperties {

	private final Store store = new Store();

	private final Listeners listeners = new Listeners();

	private final Streams streams = new Streams();

	private final Outbox outbox = new Outbox();

	public Store getStore() {
		return this.store;
	}

	public Listeners getListeners() {
		return this.listeners;
	}

	public Streams getStreams() {
		return this.streams;
	}

	public Outbox getOutbox() {
		return this.outbox;
	}

	/**
	 * The dedup store indicator ({@code idempotencyStore}).
	 */
	public static class Store {

		/**
		 * Longest time a store's probe may take before the store is reported DOWN. The probe runs on
		 * a thread of its own; a probe still running is waited for again, not started twice.
		 */
		private Duration timeout = Duration.ofSeconds(5);

		public Duration getTimeout() {
			return this.timeout;
		}

		public void setTimeout(Duration timeout) {
			this.timeout = timeout;
		}

	}

	/**
	 * The fail-closed listeners indicator ({@code idempotencyListeners}).
	 */
	public static class Listeners {

		/**
		 * How long a listener may stay paused by fail-closed before it is reported DOWN. A shorter
		 * pause is the starter riding out an outage as designed: UP, with the paused listeners in
		 * the details.
		 */
		private Duration pausedThreshold = Duration.ofMinutes(1);

		public Duration getPausedThreshold() {
			return this.pausedThreshold;
		}

		public void setPausedThreshold(Duration pausedThreshold) {
			this.pausedThreshold = pausedThreshold;
		}

	}

	/**
	 * The Redis Stream subscriptions indicator ({@code idempotencyStreams}).
	 */
	public static class Streams {

		/**
		 * How long a running stream listener may have fewer reading subscriptions than consumers
		 * before it is reported DOWN. Also how long all its subscriptions must read again before the
		 * outage counts as over.
		 */
		private Duration inactiveThreshold = Duration.ofSeconds(30);

		public Duration getInactiveThreshold() {
			return this.inactiveThreshold;
		}

		public void setInactiveThreshold(Duration inactiveThreshold) {
			this.inactiveThreshold = inactiveThreshold;
		}

	}

	/**
	 * The outbox indicator ({@code idempotencyOutbox}).
	 */
	public static class Outbox {

		/**
		 * Age of the oldest unsent row above which the outbox is reported DOWN.
		 */
		private Duration maxOldestAge = Duration.ofMinutes(5);

		/**
		 * Number of unsent rows above which the outbox is reported DOWN.
		 */
		private long maxBacklog = 10000;

		/**
		 * Whether DEAD rows (rows that used up their attempts and wait to be re-driven) make the
		 * outbox DOWN. When off, their number is reported in the details only.
		 */
		private boolean deadRowsDown = false;

		/**
		 * Longest time reading the outbox table may take before the outbox is reported DOWN.
		 */
		private Duration timeout = Duration.ofSeconds(5);

		public Duration getMaxOldestAge() {
			return this.maxOldestAge;
		}

		public void setMaxOldestAge(Duration maxOldestAge) {
			this.maxOldestAge = maxOldestAge;
		}

		public long getMaxBacklog() {
			return this.maxBacklog;
		}

		public void setMaxBacklog(long maxBacklog) {
			this.maxBacklog = maxBacklog;
		}

		public boolean isDeadRowsDown() {
			return this.deadRowsDown;
		}

		public void setDeadRowsDown(boolean deadRowsDown) {
			this.deadRowsDown = deadRowsDown;
		}

		public Duration getTimeout() {
			return this.timeout;
		}

		public void setTimeout(Duration timeout) {
			this.timeout = timeout;
		}

	}

}
