package dev.idempotency.support;

import dev.idempotency.core.IdempotencyStore;
import dev.idempotency.store.AbstractKeyDetailsContractTests;

/**
 * The key details contract for {@link InMemoryIdempotencyStore}.
 */
class InMemoryKeyDetailsTests extends AbstractKeyDetailsContractTests {

	private final InMemoryIdempotencyStore store = new InMemoryIdempotencyStore();

	@Override
	protected IdempotencyStore store() {
		return this.store;
	}

}
