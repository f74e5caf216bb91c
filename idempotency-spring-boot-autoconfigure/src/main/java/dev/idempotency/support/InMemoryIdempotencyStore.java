package dev.idempotency.support;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.idempotency.core.ClaimResult;
import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.core.IdempotencyStore;

/**
 * A store in this JVM's memory, for tests and demos: it forgets everything on restart and knows
 * nothing of other instances, so it never protects a production consumer. Leased: a claim holds a
 * key as in progress until completed, released or expired.
 *
 * @since 0.1.0
 */
public class InMemoryIdempotencyStore implements IdempotencyStore {

	private final Map<IdempotencyKey, Entry> entries = new ConcurrentHashMap<>();

	private final Clock clock;

	public InMemoryIdempotencyStore() {
		this(Clock.systemUTC());
	}

	private final ClaimTokens tokens = new ClaimTokens();

	public InMemoryIdempotencyStore(Clock clock) {
		this.clock = clock;
	}

	@Override
	public ClaimResult claim(IdempotencyKey key, Duration lease, Duration retention) {
		Instant now = this.clock.instant();
		String token = this.tokens.get();
		Entry mine = new Entry(token, false, now.plus(lease));
		Entry current = this.entries.compute(key, (k, existing) -> (existing == null || existing.isExpired(now)) ? mine
				: existing);
		if (current == mine) {
			return ClaimResult.claimed(token);
		}
		return current.completed() ? ClaimResult.duplicate() : ClaimResult.inProgress();
	}

	@Override
	public void complete(IdempotencyKey key, ClaimResult claim, Duration retention) {
		Instant expires = this.clock.instant().plus(retention);
		this.entries.computeIfPresent(key,
				(k, existing) -> existing.token().equals(claim.token()) ? new Entry(existing.token(), true, expires)
						: existing);
	}

	@Override
	public void release(IdempotencyKey key, ClaimResult claim) {
		this.entries.computeIfPresent(key,
				(k, existing) -> (!existing.completed() && existing.token().equals(claim.token())) ? null : existing);
	}

	@Override
	public boolean renew(IdempotencyKey key, ClaimResult claim, Duration lease) {
		Instant until = this.clock.instant().plus(lease);
		Entry renewed = this.entries.computeIfPresent(key,
				(k, existing) -> (!existing.completed() && existing.token().equals(claim.token()))
						? new Entry(existing.token(), false, until) : existing);
		return renewed != null && !renewed.completed() && renewed.token().equals(claim.token());
	}

	@Override
	public boolean isTransactional() {
		return false;
	}

	@Override
	public String name() {
		return "in_memory";
	}

	/**
	 * Removes expired entries.
	 * @return how many were removed
	 */
	public int purgeExpired() {
		Instant now = this.clock.instant();
		int before = this.entries.size();
		this.entries.values().removeIf((entry) -> entry.isExpired(now));
		return before - this.entries.size();
	}

	private record Entry(String token, boolean completed, Instant expiresAt) {

		boolean isExpired(Instant now) {
			return !now.isBefore(this.expiresAt);
		}

	}

}
