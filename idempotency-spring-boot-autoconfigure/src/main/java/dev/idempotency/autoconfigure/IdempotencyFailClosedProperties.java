package dev.idempotency.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Fail-closed: what a listener does when the infrastructure (the dedup store, the business
 * database, Redis, the broker) fails rather than the message.
 *
 * @since 0.2.0
 */
@ConfigurationProperties("idempotency.fail-closed")
public class IdempotencyFailClosedProperties {

	/**
	 * Whether an infrastructure failure pauses the listener, which keeps the delivery in hand and
	 * retries it, without counting an attempt, until the store answers again. When off, every
	 * failure counts towards the dead-letter attempts, as before 0.2.
	 */
	private boolean enabled = true;

	/**
	 * Time between two probes of the dedup store while a listener is paused; after a probe that
	 * answers, the delivery in hand is retried.
	 */
	private Duration probeInterval = Duration.ofSeconds(2);

	/**
	 * Longest time a paused consumer thread waits before it returns to its transport: a Kafka
	 * consumer then polls again (keeping its partitions), well within max.poll.interval.ms.
	 */
	private Duration maxWait = Duration.ofSeconds(30);

	/**
	 * Further exception types that are the infrastructure's fault wherever they sit in the cause
	 * chain, added to the defaults (connection, pool and query timeouts, transient data access
	 * failures, Redis connection and command timeouts).
	 */
	private List<Class<? extends Throwable>> infrastructureExceptions = new ArrayList<>();

	/**
	 * Exception types that are the message's fault wherever they sit in the cause chain, even when a
	 * cause is an infrastructure type; checked first.
	 */
	private List<Class<? extends Throwable>> messageExceptions = new ArrayList<>();

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public Duration getProbeInterval() {
		return this.probeInterval;
	}

	public void setProbeInterval(Duration probeInterval) {
		this.probeInterval = probeInterval;
	}

	public Duration getMaxWait() {
		return this.maxWait;
	}

	public void setMaxWait(Duration maxWait) {
		this.maxWait = maxWait;
	}

	public List<Class<? extends Throwable>> getInfrastructureExceptions() {
		return this.infrastructureExceptions;
	}

	public void setInfrastructureExceptions(List<Class<? extends Throwable>> infrastructureExceptions) {
		this.infrastructureExceptions = infrastructureExceptions;
	}

	public List<Class<? extends Throwable>> getMessageExceptions() {
		return this.messageExceptions;
	}

	public void setMessageExceptions(List<Class<? extends Throwable>> messageExceptions) {
		this.messageExceptions = messageExceptions;
	}

}
