package dev.idempotency.outbox;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;

/**
 * An {@link OutboxRepository} that forwards every call and runs a hook before rows are marked sent,
 * that is after the broker acknowledged them, and one after each claim. A hook that throws before
 * the mark leaves the rows leased, as a relay that died at that moment would.
 */
class InterceptingOutboxRepository implements OutboxRepository {

	private final OutboxRepository delegate;

	private volatile Consumer<List<OutboxMessage>> beforeMarkSent = (sent) -> {
	};

	private volatile Consumer<List<OutboxMessage>> afterClaim = (claimed) -> {
	};

	InterceptingOutboxRepository(OutboxRepository delegate) {
		this.delegate = delegate;
	}

	void setBeforeMarkSent(Consumer<List<OutboxMessage>> beforeMarkSent) {
		this.beforeMarkSent = beforeMarkSent;
	}

	void setAfterClaim(Consumer<List<OutboxMessage>> afterClaim) {
		this.afterClaim = afterClaim;
	}

	@Override
	public List<OutboxMessage> claim(int batchSize, Duration lease, boolean orderedPerKey) {
		List<OutboxMessage> claimed = this.delegate.claim(batchSize, lease, orderedPerKey);
		this.afterClaim.accept(List.copyOf(claimed));
		return claimed;
	}

	@Override
	public int markSent(List<OutboxMessage> rows) {
		this.beforeMarkSent.accept(List.copyOf(rows));
		return this.delegate.markSent(rows);
	}

	@Override
	public boolean markFailed(OutboxMessage row, OutboxStatus status, Instant nextAttemptAt, String error) {
		return this.delegate.markFailed(row, status, nextAttemptAt, error);
	}

	@Override
	public boolean reschedule(OutboxMessage row, Instant nextAttemptAt, String error) {
		return this.delegate.reschedule(row, nextAttemptAt, error);
	}

	@Override
	public List<OutboxMessage> findDead(int limit) {
		return this.delegate.findDead(limit);
	}

	@Override
	public @Nullable OutboxMessage find(String messageId) {
		return this.delegate.find(messageId);
	}

	@Override
	public int redriveDead() {
		return this.delegate.redriveDead();
	}

	@Override
	public boolean redrive(String messageId) {
		return this.delegate.redrive(messageId);
	}

	@Override
	public int purgeSent(Duration retention, int batchSize, int maxBatches) {
		return this.delegate.purgeSent(retention, batchSize, maxBatches);
	}

	@Override
	public Snapshot snapshot() {
		return this.delegate.snapshot();
	}

}
