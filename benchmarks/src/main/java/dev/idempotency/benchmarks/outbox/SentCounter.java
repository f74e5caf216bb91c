package dev.idempotency.benchmarks.outbox;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import dev.idempotency.core.IdempotencyEvent;
import dev.idempotency.core.IdempotencyListener;

/** Counts rows the relay marked sent (the relay tells its listeners after marking). */
class SentCounter implements IdempotencyListener {

	private final AtomicLong sent = new AtomicLong();

	AtomicLong sent() {
		return this.sent;
	}

	@Override
	public void onOutcome(IdempotencyEvent event) {
	}

	@Override
	public void onOutboxSent(String destination, Duration latency) {
		this.sent.incrementAndGet();
	}

}
