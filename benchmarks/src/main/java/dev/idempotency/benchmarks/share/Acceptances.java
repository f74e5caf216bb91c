package dev.idempotency.benchmarks.share;

import java.util.concurrent.atomic.AtomicLong;

import dev.idempotency.kafka.share.ShareConsumerListener;

/**
 * The records a variant's listener accepted in the current round, counted on the listener side: the
 * hand-written listener calls {@link #accepted()} after its {@code ShareAcknowledgment#acknowledge()};
 * the starter's share adapter tells this {@link ShareConsumerListener} of every record it settles, of
 * which the {@code accept} ones count. A round is complete when every produced record was accepted:
 * the share group's start offset that {@code Admin#listShareGroupOffsets} reports does not follow the
 * acknowledgements to the end of the topic, so it cannot tell.
 */
final class Acceptances implements ShareConsumerListener {

	private final AtomicLong accepted = new AtomicLong();

	/** One more record accepted. */
	void accepted() {
		this.accepted.incrementAndGet();
	}

	@Override
	public void onShareAcknowledged(String group, String type, String reason) {
		if (type.equals("accept")) {
			this.accepted.incrementAndGet();
		}
	}

	/** The records accepted since the last {@link #reset()}. */
	long count() {
		return this.accepted.get();
	}

	/** Starts counting a new round from zero; called while the container is stopped. */
	void reset() {
		this.accepted.set(0);
	}

}
