package dev.idempotency.kafka.share;

import java.util.Arrays;
import java.util.Locale;

import org.apache.kafka.clients.consumer.AcknowledgeType;

/**
 * What becomes of one record of a share group: the acknowledgement the broker gets, and why.
 *
 * @param type the acknowledgement
 * @param reason why
 * @since 0.2.0
 */
public record ShareDecision(AcknowledgeType type, Reason reason) {

	/** The types' tag values, by ordinal: named once, not per record. */
	private static final String[] TYPE_NAMES = Arrays.stream(AcknowledgeType.values())
		.map((type) -> type.name().toLowerCase(Locale.ROOT))
		.toArray(String[]::new);

	/**
	 * The acknowledgement's name, as in the meters' {@code type} tag.
	 * @return {@code accept}, {@code release}, {@code reject} or {@code renew}
	 */
	public String typeName() {
		return TYPE_NAMES[this.type.ordinal()];
	}

	/**
	 * Why a record was settled so.
	 */
	public enum Reason {

		/** ACCEPT: the method ran and its transaction committed, or the record was a duplicate. */
		PROCESSED,

		/** RELEASE: the method failed; the delivery count is below the limit, so it is retried. */
		FAILED,

		/** RELEASE: the infrastructure failed (the store is down); fetching pauses. */
		OUTAGE,

		/** RELEASE: fetching is paused by an outage; the record was not handed to the method. */
		PAUSED,

		/** RELEASE: the key is in progress elsewhere (leased mode). */
		IN_PROGRESS,

		/** RELEASE: publishing to the dead-letter topic failed; the record is retried instead of lost. */
		DEAD_LETTER_FAILED,

		/** REJECT: the record cannot be read or has no usable key. */
		BAD_INPUT,

		/** REJECT: the failure is one a retry cannot fix ({@code NonRetryableIdempotencyException}, ...). */
		NOT_RETRYABLE,

		/** REJECT: the last delivery attempt the broker allows failed. */
		ATTEMPTS_EXHAUSTED,

		/** RENEW: the method runs longer than a part of the acquisition lock. */
		LONG_RUNNING,

		/** RENEW: the record is held while the listener waits for the store (its last attempt). */
		OUTAGE_WAIT;

		private final String tagValue = name().toLowerCase(Locale.ROOT).replace('_', '-');

		/**
		 * The reason's name, as in the meters' {@code reason} tag.
		 * @return the name in lower case, with dashes
		 */
		public String tagValue() {
			return this.tagValue;
		}

	}

}
