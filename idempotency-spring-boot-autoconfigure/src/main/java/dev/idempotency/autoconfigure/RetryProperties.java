package dev.idempotency.autoconfigure;

import java.time.Duration;

/**
 * Attempts with exponential back-off: the shape shared by {@code idempotency.kafka.retry},
 * {@code idempotency.rabbit.retry} and {@code idempotency.outbox.retry}. Each feature extends it
 * with a no-argument constructor that passes its own defaults, so the property names are the same
 * and the defaults stay per feature.
 * Shared by several features, it lives here rather than in one of their sub-packages.
 * <p>
 * The annotation processor reads descriptions from these fields and defaults from field initialisers
 * only, so each feature's description and default of these four properties is declared in
 * {@code META-INF/additional-spring-configuration-metadata.json}; {@code RetryPropertiesTests} checks
 * that those defaults are the ones the constructors set.
 *
 * @since 0.1.0
 */
public abstract class RetryProperties {

	/**
	 * Attempts, the first included, before the message is given up.
	 */
	private int maxAttempts;

	/**
	 * Back-off before the second attempt.
	 */
	private Duration initialInterval;

	/**
	 * Factor by which the back-off grows after each failed attempt.
	 */
	private double multiplier;

	/**
	 * Longest back-off between two attempts.
	 */
	private Duration maxInterval;

	/**
	 * Creates the properties with a feature's defaults.
	 * @param maxAttempts attempts, the first included
	 * @param initialInterval back-off before the second attempt
	 * @param multiplier growth of the back-off after each failed attempt
	 * @param maxInterval longest back-off
	 */
	protected RetryProperties(int maxAttempts, Duration initialInterval, double multiplier, Duration maxInterval) {
		this.maxAttempts = maxAttempts;
		this.initialInterval = initialInterval;
		this.multiplier = multiplier;
		this.maxInterval = maxInterval;
	}

	public int getMaxAttempts() {
		return this.maxAttempts;
	}

	public void setMaxAttempts(int maxAttempts) {
		this.maxAttempts = maxAttempts;
	}

	public Duration getInitialInterval() {
		return this.initialInterval;
	}

	public void setInitialInterval(Duration initialInterval) {
		this.initialInterval = initialInterval;
	}

	public double getMultiplier() {
		return this.multiplier;
	}

	public void setMultiplier(double multiplier) {
		this.multiplier = multiplier;
	}

	public Duration getMaxInterval() {
		return this.maxInterval;
	}

	public void setMaxInterval(Duration maxInterval) {
		this.maxInterval = maxInterval;
	}

}
