package dev.idempotency.benchmarks.outbox;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import dev.idempotency.outbox.OutboxListener;

/** Counts rows the relay marked sent (the relay tells its listeners after marking). */
class SentCounter implements OutboxListener {

	private final AtomicLong sent = new AtomicLong();

	AtomicLong sent() {
		return this.sent;
	}

	@Override
	public void onOutboxSent(String destination, Duration latency) {
		this.sent.incrementAndGet();
	}

}
