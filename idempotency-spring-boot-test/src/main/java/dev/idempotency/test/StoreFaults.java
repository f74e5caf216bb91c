package dev.idempotency.test;

import java.net.ConnectException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import dev.idempotency.core.ClaimResult;
import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.core.IdempotencyStore;
import dev.idempotency.core.IdempotencyStoreException;

/**
 * Faults of the application's {@link IdempotencyStore} beans, which the test kit wraps: an outage
 * that lasts until {@link #recover()}, and the expiry of the leases held by claims in progress.
 * Obtained from {@link IdempotencyTester#store()}; reset before each test by the
 * {@link IdempotencyExtension}.
 *
 * @since 0.2.0
 */
public final class StoreFaults {

	/** How long an expired lease has left: the shortest lease every store accepts. */
	private static final Duration EXPIRING_LEASE = Duration.ofMillis(1);

	private volatile boolean failing;

	private final Map<IdempotencyKey, HeldClaim> held = new ConcurrentHashMap<>();

	StoreFaults() {
	}

	/**
	 * Cuts the stores off: from now on every call that reads or writes keys throws an
	 * {@link IdempotencyStoreException} caused by a {@link ConnectException}, as an unreachable
	 * database or Redis would, and so does the store's {@code probe()}. Fail-closed pauses the
	 * listeners; nothing is acknowledged and nothing is lost.
	 */
	public void fail() {
		this.failing = true;
	}

	/** Ends the outage begun by {@link #fail()}: paused listeners resume at their next probe. */
	public void recover() {
		this.failing = false;
	}

	/**
	 * Whether the stores are cut off.
	 * @return {@code true} between {@link #fail()} and {@link #recover()}
	 */
	public boolean isFailing() {
		return this.failing;
	}

	/**
	 * Ends the lease of every claim in progress (leased mode), as if its worker had died and its lease
	 * run out: the lease is renewed through the store to one millisecond from now, and this method
	 * returns once that has passed. The next delivery of such a key takes it over (or, with a
	 * reconciler, leaves it to the reconciler). Claims of transactional stores hold no lease.
	 * @return how many leases ended
	 */
	public int expireLeases() {
		int expired = 0;
		for (Map.Entry<IdempotencyKey, HeldClaim> entry : List.copyOf(this.held.entrySet())) {
			HeldClaim claim = entry.getValue();
			if (claim.store().renew(entry.getKey(), claim.claim(), EXPIRING_LEASE)) {
				expired++;
			}
			this.held.remove(entry.getKey(), claim);
		}
		// Not a pause for another thread: the deadline just written must lie in the past for the
		// next claim, and it is a millisecond away on the store's clock.
		LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(EXPIRING_LEASE.toMillis() + 1));
		return expired;
	}

	/**
	 * The keys whose claims are in progress under a lease, as this kit saw them granted and not yet
	 * completed or released.
	 * @return the keys, in no particular order
	 */
	public List<IdempotencyKey> leasedKeys() {
		return List.copyOf(this.held.keySet());
	}

	void reset() {
		this.failing = false;
		this.held.clear();
	}

	void claimed(IdempotencyStore store, IdempotencyKey key, ClaimResult claim) {
		if (claim.isClaimed()) {
			this.held.put(key, new HeldClaim(store, claim));
		}
	}

	void ended(IdempotencyKey key) {
		this.held.remove(key);
	}

	IdempotencyStoreException outage(String operation) {
		return new IdempotencyStoreException("Simulated store outage (StoreFaults.fail()): " + operation,
				new ConnectException("Connection refused (simulated by the idempotency test kit)"));
	}

	private record HeldClaim(IdempotencyStore store, ClaimResult claim) {
	}

}
