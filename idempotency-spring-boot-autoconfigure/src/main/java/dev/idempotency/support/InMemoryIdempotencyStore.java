package dev.idempotency.support;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.idempotency.core.ClaimResult;
import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.core.IdempotencyKeyInspector;
import dev.idempotency.core.IdempotencyStore;
import dev.idempotency.core.KeyRecord;
import dev.idempotency.core.KeyRelease;
import dev.idempotency.core.RecordedKey;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * A store in this JVM's memory, for tests and demos: it forgets everything on restart and knows
 * nothing of other instances, so it never protects a production consumer. Leased: a claim holds a
 * key as in progress until completed, released or expired. Fingerprints and results are kept with
 * the entry, and go with it.
 *
 * @since 0.1.0
 */
public class InMemoryIdempotencyStore implements IdempotencyStore, IdempotencyKeyInspector {

	private static final Log logger = LogFactory.getLog(InMemoryIdempotencyStore.class);

	private final Map<IdempotencyKey, Entry> entries = new ConcurrentHashMap<>();

	/** Per-key duplicate accounting, beside the entries; dropped with them by the purge. */
	private final Map<IdempotencyKey, Duplicates> duplicates = new ConcurrentHashMap<>();

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
		Entry mine = new Entry(token, false, now.plus(lease), null, null);
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
				(k, existing) -> existing.token().equals(claim.token()) ? existing.completedUntil(expires) : existing);
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
						? existing.leasedUntil(until) : existing);
		return renewed != null && !renewed.completed() && renewed.token().equals(claim.token());
	}

	@Override
	public boolean recordsKeyDetails() {
		return true;
	}

	/**
	 * Records the fingerprint if {@code claim} still holds the key, in progress.
	 */
	@Override
	public void recordFingerprint(IdempotencyKey key, ClaimResult claim, String fingerprint) {
		this.entries.computeIfPresent(key, (k, existing) -> existing.heldBy(claim)
				? new Entry(existing.token(), false, existing.expiresAt(), fingerprint, existing.result()) : existing);
	}

	/**
	 * Records the result if {@code claim} still holds the key, in progress.
	 */
	@Override
	public void recordResult(IdempotencyKey key, ClaimResult claim, String result) {
		this.entries.computeIfPresent(key, (k, existing) -> existing.heldBy(claim)
				? new Entry(existing.token(), false, existing.expiresAt(), existing.fingerprint(), result) : existing);
	}

	@Override
	public @Nullable RecordedKey recorded(IdempotencyKey key) {
		Entry entry = this.entries.get(key);
		return (entry != null && !entry.isExpired(this.clock.instant()))
				? new RecordedKey(entry.fingerprint(), entry.result()) : null;
	}

	@Override
	public void recordDuplicate(IdempotencyKey key) {
		Instant now = this.clock.instant();
		if (this.entries.containsKey(key)) {
			this.duplicates.merge(key, new Duplicates(1, now), (counted, one) -> new Duplicates(counted.count() + 1, now));
		}
	}

	@Override
	public @Nullable KeyRecord inspect(IdempotencyKey key) {
		Entry entry = this.entries.get(key);
		if (entry == null || entry.isExpired(this.clock.instant())) {
			return null;
		}
		Duplicates counted = this.duplicates.getOrDefault(key, new Duplicates(0, null));
		return new KeyRecord(key, entry.completed() ? KeyRecord.Status.COMPLETED : KeyRecord.Status.PROCESSING, null,
				entry.completed() ? entry.expiresAt() : null, !entry.completed(),
				entry.completed() ? null : entry.expiresAt(), null, entry.fingerprint() != null, entry.result() != null,
				counted.count(), counted.lastSeen());
	}

	@Override
	public KeyRelease release(IdempotencyKey key, boolean force) {
		Instant now = this.clock.instant();
		KeyRelease[] outcome = { KeyRelease.NOT_FOUND };
		this.entries.computeIfPresent(key, (k, existing) -> {
			if (existing.isExpired(now)) {
				return null;
			}
			if (!existing.completed() && !force) {
				outcome[0] = KeyRelease.REFUSED_IN_PROGRESS;
				return existing;
			}
			outcome[0] = KeyRelease.RELEASED;
			this.duplicates.remove(k);
			return null;
		});
		logger.warn("Release of " + key + " in store '" + name() + "'" + (force ? " (forced)" : "") + ": " + outcome[0]);
		return outcome[0];
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
		this.duplicates.keySet().retainAll(this.entries.keySet());
		return before - this.entries.size();
	}

	private record Duplicates(int count, @Nullable Instant lastSeen) {
	}

	private record Entry(String token, boolean completed, Instant expiresAt, @Nullable String fingerprint,
			@Nullable String result) {

		boolean isExpired(Instant now) {
			return !now.isBefore(this.expiresAt);
		}

		boolean heldBy(ClaimResult claim) {
			return !this.completed && this.token.equals(claim.token());
		}

		Entry completedUntil(Instant expires) {
			return new Entry(this.token, true, expires, this.fingerprint, this.result);
		}

		Entry leasedUntil(Instant until) {
			return new Entry(this.token, false, until, this.fingerprint, this.result);
		}

	}

}
