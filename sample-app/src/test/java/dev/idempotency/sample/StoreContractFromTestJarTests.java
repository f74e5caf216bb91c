package dev.idempotency.sample;

import java.time.Duration;

import dev.idempotency.core.ClaimResult;
import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.core.IdempotencyStore;
import dev.idempotency.store.AbstractIdempotencyStoreContractTests;
import dev.idempotency.support.InMemoryIdempotencyStore;

/**
 * The store contract suite as an application with a store of its own runs it: from the
 * autoconfigure module's test-jar ({@code <type>test-jar</type>}), here on the in-memory store. A
 * store of your own would replace {@link #store()} and the three drive methods.
 */
class StoreContractFromTestJarTests extends AbstractIdempotencyStoreContractTests {

	private final InMemoryIdempotencyStore store = new InMemoryIdempotencyStore(this.clock);

	@Override
	protected IdempotencyStore store() {
		return this.store;
	}

	@Override
	protected ClaimResult claimAndSucceed(IdempotencyKey key, Duration retention) {
		ClaimResult claim = this.store.claim(key, LEASE, retention);
		if (claim.isClaimed()) {
			this.store.complete(key, claim, retention);
		}
		return claim;
	}

	@Override
	protected ClaimResult claimAndFail(IdempotencyKey key) {
		ClaimResult claim = this.store.claim(key, LEASE, RETENTION);
		if (claim.isClaimed()) {
			this.store.release(key, claim);
		}
		return claim;
	}

	@Override
	protected int purgeExpired() {
		return this.store.purgeExpired();
	}

}
