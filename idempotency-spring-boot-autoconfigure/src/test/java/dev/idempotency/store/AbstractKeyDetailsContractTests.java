package dev.idempotency.store;

import java.time.Duration;
import java.util.function.Supplier;

import dev.idempotency.core.ClaimResult;
import dev.idempotency.core.ClaimResult.Status;
import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.core.IdempotencyStore;
import dev.idempotency.core.RecordedKey;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The contract of {@link IdempotencyStore#recordFingerprint}, {@link IdempotencyStore#recordResult}
 * and {@link IdempotencyStore#recorded} that every store with {@code recordsKeyDetails()} passes,
 * driven as the interceptor drives it: a transactional store records in the claim's transaction, a
 * leased one between claim and completion. Whether two fingerprints conflict is the interceptor's
 * business; the store must give back exactly what the first delivery recorded.
 */
public abstract class AbstractKeyDetailsContractTests {

	protected static final Duration LEASE = Duration.ofMinutes(5);

	protected static final Duration RETENTION = Duration.ofDays(7);

	protected static final String FINGERPRINT_A = "a".repeat(64);

	protected static final String FINGERPRINT_B = "0123456789abcdef".repeat(4);

	/** The store under test. */
	protected abstract IdempotencyStore store();

	/** A namespace of this test run's own, so that runs on a shared server do not meet. */
	protected String namespace() {
		return "details";
	}

	/**
	 * Runs a step as the interceptor runs the claim and the method: in a transaction that commits, for
	 * a transactional store.
	 */
	protected <T> T inTransaction(Supplier<T> step) {
		return step.get();
	}

	/** Runs a step in a transaction that then rolls back (transactional stores only). */
	protected void inRolledBackTransaction(Runnable step) {
		throw new UnsupportedOperationException("not a transactional store");
	}

	protected IdempotencyKey key(String value) {
		return new IdempotencyKey(namespace(), value);
	}

	/** A delivery that claims, records what it is given, runs and succeeds. */
	protected ClaimResult process(IdempotencyKey key, @Nullable String fingerprint, @Nullable String result) {
		ClaimResult claim = inTransaction(() -> {
			ClaimResult granted = store().claim(key, LEASE, RETENTION);
			if (granted.isClaimed()) {
				record(key, granted, fingerprint, result);
			}
			return granted;
		});
		if (claim.isClaimed() && !store().isTransactional()) {
			store().complete(key, claim, RETENTION);
		}
		return claim;
	}

	/**
	 * Records as the engine does: a transactional store's claim both at once, before commit; a leased
	 * one's fingerprint and result one by one.
	 */
	private void record(IdempotencyKey key, ClaimResult claim, @Nullable String fingerprint, @Nullable String result) {
		if (store().isTransactional()) {
			store().recordDetails(key, claim, fingerprint, result);
			return;
		}
		if (fingerprint != null) {
			store().recordFingerprint(key, claim, fingerprint);
		}
		if (result != null) {
			store().recordResult(key, claim, result);
		}
	}

	/** A delivery that claims, records its fingerprint, and fails. */
	protected void processAndFail(IdempotencyKey key, String fingerprint) {
		if (store().isTransactional()) {
			inRolledBackTransaction(() -> {
				ClaimResult claim = store().claim(key, LEASE, RETENTION);
				assertThat(claim.isClaimed()).isTrue();
				record(key, claim, fingerprint, null);
			});
		}
		else {
			ClaimResult claim = store().claim(key, LEASE, RETENTION);
			assertThat(claim.isClaimed()).isTrue();
			record(key, claim, fingerprint, null);
			store().release(key, claim);
		}
	}

	/** What a duplicate delivery reads, where it reads it. */
	protected @Nullable RecordedKey recorded(IdempotencyKey key) {
		return inTransaction(() -> store().recorded(key));
	}

	@Test
	void storeRecordsKeyDetails() {
		assertThat(store().recordsKeyDetails()).isTrue();
	}

	@Test
	void samePayloadIsADuplicateThatFindsItsFingerprint() {
		IdempotencyKey key = key("same");
		assertThat(process(key, FINGERPRINT_A, null).status()).isEqualTo(Status.CLAIMED);
		assertThat(process(key, FINGERPRINT_A, null).status()).isEqualTo(Status.DUPLICATE);
		assertThat(recorded(key)).isEqualTo(new RecordedKey(FINGERPRINT_A, null));
	}

	@Test
	void differentPayloadFindsTheFingerprintOfTheFirstAndChangesNothing() {
		IdempotencyKey key = key("different");
		process(key, FINGERPRINT_A, null);
		assertThat(process(key, FINGERPRINT_B, null).status()).isEqualTo(Status.DUPLICATE);
		RecordedKey recorded = recorded(key);
		assertThat(recorded).isNotNull();
		assertThat(recorded.fingerprint()).isEqualTo(FINGERPRINT_A).isNotEqualTo(FINGERPRINT_B);
	}

	@Test
	void recordedResultIsReadBackCharacterForCharacter() {
		// Multi-byte characters, a surrogate pair, quotes, backslashes, line breaks, and nearly 64 KB.
		String result = "{\"reply\":\"Grüße — 注文 🍣 \\\"quoted\\\" \\\\ \\n\\r\\t\",\"pad\":\""
				+ "x".repeat(60_000) + "\"}\n";
		IdempotencyKey key = key("result");
		process(key, FINGERPRINT_A, result);
		RecordedKey recorded = recorded(key);
		assertThat(recorded).isNotNull();
		assertThat(recorded.fingerprint()).isEqualTo(FINGERPRINT_A);
		assertThat(recorded.result()).isEqualTo(result);
	}

	@Test
	void resultIsRecordedWithoutAFingerprint() {
		IdempotencyKey key = key("result-only");
		process(key, null, "[1,2,3]");
		assertThat(recorded(key)).isEqualTo(new RecordedKey(null, "[1,2,3]"));
	}

	@Test
	void keyProcessedWithoutDetailsHasNone() {
		IdempotencyKey key = key("plain");
		process(key, null, null);
		RecordedKey recorded = recorded(key);
		if (recorded != null) {
			assertThat(recorded.fingerprint()).isNull();
			assertThat(recorded.result()).isNull();
		}
	}

	@Test
	void absentKeyHasNoRecord() {
		assertThat(recorded(key("never-seen"))).isNull();
	}

	@Test
	void failedDeliveryLeavesNoDetailsAndTheRetryRecordsItsOwn() {
		IdempotencyKey key = key("failed");
		processAndFail(key, FINGERPRINT_B);
		assertThat(recorded(key)).isNull();
		assertThat(process(key, FINGERPRINT_A, "\"ok\"").status()).isEqualTo(Status.CLAIMED);
		assertThat(recorded(key)).isEqualTo(new RecordedKey(FINGERPRINT_A, "\"ok\""));
	}

	@Test
	void longKeysAreDigestedLikeClaimsAndKeptApart() {
		String common = "k".repeat(250);
		IdempotencyKey first = new IdempotencyKey(namespace() + "-" + "n".repeat(240), common + "-1");
		IdempotencyKey second = new IdempotencyKey(namespace() + "-" + "n".repeat(240), common + "-2");
		assertThat(process(first, FINGERPRINT_A, "1").status()).isEqualTo(Status.CLAIMED);
		assertThat(process(second, FINGERPRINT_B, "2").status()).isEqualTo(Status.CLAIMED);
		assertThat(process(first, FINGERPRINT_A, null).status()).isEqualTo(Status.DUPLICATE);
		assertThat(recorded(first)).isEqualTo(new RecordedKey(FINGERPRINT_A, "1"));
		assertThat(recorded(second)).isEqualTo(new RecordedKey(FINGERPRINT_B, "2"));
	}

}
