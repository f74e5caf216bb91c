package dev.idempotency.observation.autoconfigure;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Tracing of {@code @Idempotent} calls and of outbox messages ({@code idempotency.observation}).
 *
 * @since 0.2.0
 */
@ConfigurationProperties("idempotency.observation")
public class IdempotencyObservationProperties {

	/**
	 * Whether each @Idempotent call is observed as an 'idempotency.invocation' observation (a span
	 * with a tracer) and the outbox stores the publisher's trace context. Needs an
	 * ObservationRegistry, and Micrometer Tracing for the outbox's trace context.
	 */
	private boolean enabled = true;

	/**
	 * Whether the key of a single message is the high-cardinality tag 'idempotency.key' of the
	 * observation (span attribute). Switch it off when keys carry data that must not reach the
	 * tracing backend.
	 */
	private boolean keyTag = true;

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public boolean isKeyTag() {
		return this.keyTag;
	}

	public void setKeyTag(boolean keyTag) {
		this.keyTag = keyTag;
	}

}
