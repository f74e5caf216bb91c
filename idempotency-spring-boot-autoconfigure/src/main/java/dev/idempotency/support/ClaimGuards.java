package dev.idempotency.support;

import java.time.Duration;
import java.util.List;

import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.core.IdempotencyLock;
import org.jspecify.annotations.Nullable;

/**
 * What stands in front of the store's claim: the {@link DuplicateFilterChain} asked before any
 * transaction opens, and the {@link IdempotencyLock} held around the transaction when one is
 * configured.
 *
 * @param filters the duplicate filters; {@link DuplicateFilterChain#none()} for none
 * @param lock the lock of lock-then-double-check mode, or {@code null} for none
 * @since 0.2.0
 */
public record ClaimGuards(DuplicateFilterChain filters, @Nullable IdempotencyLock lock) {

	private static final ClaimGuards NONE = new ClaimGuards(DuplicateFilterChain.none(), null);

	private static final IdempotencyLock.Held NOT_LOCKED = () -> {
	};

	/**
	 * No filters, no lock: every delivery goes straight to the store, as in 0.1.
	 * @return the guards that guard nothing
	 */
	public static ClaimGuards none() {
		return NONE;
	}

	IdempotencyLock.Held lock(List<IdempotencyKey> keys, Duration lease) {
		return (this.lock != null) ? this.lock.acquire(keys, lease) : NOT_LOCKED;
	}

}
