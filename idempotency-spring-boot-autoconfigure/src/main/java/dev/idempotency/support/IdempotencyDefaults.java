package dev.idempotency.support;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * Values the interceptor uses when an annotation does not set them.
 *
 * @param retention how long processed keys are remembered
 * @param lease how long a leased store's in-progress claim holds a key
 * @param transactionTimeout timeout of the transactions the interceptor opens; zero means the
 * transaction manager's default
 * @param renewLeases whether leased claims are renewed every third of their lease while the method
 * runs
 * @param fingerprint the fingerprint expression of methods whose annotation sets none, or
 * {@code null} for none
 * @param countDuplicates whether a duplicate delivery is counted on its key's record (per-key
 * duplicate accounting, an extra write on the duplicate path)
 * @since 0.1.0
 */
public record IdempotencyDefaults(Duration retention, Duration lease, Duration transactionTimeout,
		boolean renewLeases, @Nullable String fingerprint, boolean countDuplicates) {

	public IdempotencyDefaults {
		Assert.isTrue(!retention.isNegative() && !retention.isZero(), "retention must be positive");
		Assert.isTrue(!lease.isNegative() && !lease.isZero(), "lease must be positive");
		Assert.isTrue(!transactionTimeout.isNegative(), "transactionTimeout must not be negative");
	}

	/**
	 * These defaults with per-key duplicate accounting on or off.
	 * @param countDuplicates whether duplicates are counted on their key's record
	 * @return the defaults
	 */
	public IdempotencyDefaults withCountDuplicates(boolean countDuplicates) {
		return new IdempotencyDefaults(this.retention, this.lease, this.transactionTimeout, this.renewLeases,
				this.fingerprint, countDuplicates);
	}

	/**
	 * Defaults that renew leases while a method runs, without a default fingerprint expression and
	 * without per-key duplicate accounting.
	 * @param retention how long processed keys are remembered
	 * @param lease how long a leased store's in-progress claim holds a key
	 * @param transactionTimeout timeout of the transactions the interceptor opens
	 * @deprecated since 0.2.0, for removal in 0.3.0: use {@link #IdempotencyDefaults(Duration, Duration, Duration,
	 * boolean, String, boolean)} with {@code true, null, false}
	 */
	@Deprecated(since = "0.2.0", forRemoval = true)
	public IdempotencyDefaults(Duration retention, Duration lease, Duration transactionTimeout) {
		this(retention, lease, transactionTimeout, true, null, false);
	}

}
