package dev.idempotency.support;

import java.time.Duration;
import java.util.List;

import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.core.ParkedKey;
import dev.idempotency.core.ParkedKeys;
import org.jspecify.annotations.Nullable;

/**
 * {@link ParkedKeys} of a store, as a bean of that type only: registering the store itself would
 * make it a second {@code IdempotencyStore} bean, and methods that name no store would no longer
 * find a unique one.
 *
 * @since 0.2.0
 */
public final class ParkedKeysView implements ParkedKeys {

	private final ParkedKeys store;

	public ParkedKeysView(ParkedKeys store) {
		this.store = store;
	}

	@Override
	public List<ParkedKey> parked(@Nullable String namespace, int limit) {
		return this.store.parked(namespace, limit);
	}

	@Override
	public boolean markCompleted(IdempotencyKey key, Duration retention) {
		return this.store.markCompleted(key, retention);
	}

	@Override
	public boolean release(IdempotencyKey key) {
		return this.store.release(key);
	}

}
