package dev.idempotency.store;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.idempotency.core.ClaimResult;
import dev.idempotency.core.ClaimResult.Status;
import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.core.IdempotencyStore;
import dev.idempotency.testsupport.MutableClock;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The contract every {@link IdempotencyStore} passes, whatever its backend. Subclasses say how the
 * interceptor would drive the store (inside a transaction, or claim/complete/release) and add the
 * tests of their mode. The tests that move {@link #clock} past a retention are protected: a store
 * that expires entries on its server's clock (Redis) overrides them with short real durations.
 */
public abstract class AbstractIdempotencyStoreContractTests {

	protected static final Duration LEASE = Duration.ofMinutes(5);

	protected static final Duration RETENTION = Duration.ofDays(7);

	protected final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));

	/** The store under test, on {@link #clock}. */
	protected abstract IdempotencyStore store();

	/** Claims a key and, if granted, makes it processed, as a successful invocation would. */
	protected abstract ClaimResult claimAndSucceed(IdempotencyKey key, Duration retention);

	/** Claims a key and, if granted, gives it up, as a failed invocation would. */
	protected abstract ClaimResult claimAndFail(IdempotencyKey key);

	/** Deletes expired records. */
	protected abstract int purgeExpired();

	protected ClaimResult claimAndSucceed(IdempotencyKey key) {
		return claimAndSucceed(key, RETENTION);
	}

	/**
	 * Claims a batch's keys and makes the granted ones processed, as a successful batch invocation
	 * would. The default suits leased stores; transactional stores run it in a transaction.
	 */
	protected List<ClaimResult> claimAllAndSucceed(List<IdempotencyKey> keys) {
		List<ClaimResult> claims = store().claimAll(keys, LEASE, RETENTION);
		for (int i = 0; i < claims.size(); i++) {
			if (claims.get(i).isClaimed()) {
				store().complete(keys.get(i), claims.get(i), RETENTION);
			}
		}
		return claims;
	}

	protected static IdempotencyKey key(String value) {
		return new IdempotencyKey("contract", value);
	}

	@Test
	void firstClaimOfAKeyIsGranted() {
		assertThat(claimAndSucceed(key("first")).status()).isEqualTo(Status.CLAIMED);
	}

	@Test
	void keyIsADuplicateOnceProcessed() {
		claimAndSucceed(key("twice"));
		assertThat(claimAndSucceed(key("twice")).status()).isEqualTo(Status.DUPLICATE);
	}

	@Test
	void keyCanBeClaimedAgainAfterAFailedAttempt() {
		assertThat(claimAndFail(key("failed")).status()).isEqualTo(Status.CLAIMED);
		assertThat(claimAndSucceed(key("failed")).status()).isEqualTo(Status.CLAIMED);
		assertThat(claimAndSucceed(key("failed")).status()).isEqualTo(Status.DUPLICATE);
	}

	@Test
	void sameKeyInAnotherNamespaceIsIndependent() {
		claimAndSucceed(new IdempotencyKey("points", "order-1"));
		assertThat(claimAndSucceed(new IdempotencyKey("shipping", "order-1")).status()).isEqualTo(Status.CLAIMED);
	}

	@Test
	void keysDifferingOnlyInCaseAreDistinct() {
		claimAndSucceed(key("Order-A"));
		assertThat(claimAndSucceed(key("order-a")).status()).isEqualTo(Status.CLAIMED);
	}

	/**
	 * "é" composed (U+00E9) and decomposed (e + U+0301) look alike but are different keys: a store
	 * compares keys as the resolver produced them, it does not normalize them.
	 */
	@Test
	void keysDifferingOnlyInUnicodeNormalizationFormAreDistinct() {
		claimAndSucceed(key("caf\u00e9"));
		assertThat(claimAndSucceed(key("cafe\u0301")).status()).isEqualTo(Status.CLAIMED);
		assertThat(claimAndSucceed(key("caf\u00e9")).status()).isEqualTo(Status.DUPLICATE);
		assertThat(claimAndSucceed(key("cafe\u0301")).status()).isEqualTo(Status.DUPLICATE);
	}

	/**
	 * A PAD SPACE collation (MySQL and MariaDB's {@code utf8mb4_bin}) compares {@code 'W-1'} and
	 * {@code 'W-1 '} as equal, which would skip the second as a duplicate of the first.
	 */
	@Test
	void keysDifferingOnlyInTrailingSpacesAreDistinct() {
		claimAndSucceed(key("W-1"));
		assertThat(claimAndSucceed(key("W-1 ")).status()).isEqualTo(Status.CLAIMED);
		assertThat(claimAndSucceed(key("W-1  ")).status()).isEqualTo(Status.CLAIMED);
		assertThat(claimAndSucceed(key("W-1")).status()).isEqualTo(Status.DUPLICATE);
		assertThat(claimAndSucceed(key("W-1 ")).status()).isEqualTo(Status.DUPLICATE);
	}

	@Test
	void keysDifferingOnlyInLeadingSpacesAreDistinct() {
		claimAndSucceed(key("W-2"));
		assertThat(claimAndSucceed(key(" W-2")).status()).isEqualTo(Status.CLAIMED);
		assertThat(claimAndSucceed(key(" W-2")).status()).isEqualTo(Status.DUPLICATE);
	}

	@Test
	void keysDifferingOnlyInATrailingTabAreDistinct() {
		claimAndSucceed(key("W-3"));
		assertThat(claimAndSucceed(key("W-3\t")).status()).isEqualTo(Status.CLAIMED);
		assertThat(claimAndSucceed(key("W-3\t")).status()).isEqualTo(Status.DUPLICATE);
	}

	@Test
	void namespacesDifferingOnlyInTrailingSpacesAreIndependent() {
		claimAndSucceed(new IdempotencyKey("points", "order-2"));
		assertThat(claimAndSucceed(new IdempotencyKey("points ", "order-2")).status()).isEqualTo(Status.CLAIMED);
	}

	@Test
	void batchClaimTellsKeysDifferingOnlyInTrailingSpacesApart() {
		claimAndSucceed(key("B-1"));
		assertThat(claimAllAndSucceed(List.of(key("B-1"), key("B-1 "), key("B-2"), key("B-2 "))))
			.extracting(ClaimResult::status)
			.containsExactly(Status.DUPLICATE, Status.CLAIMED, Status.CLAIMED, Status.CLAIMED);
	}

	@Test
	void longKeysAreDeduplicatedAndStayDistinct() {
		String prefix = "x".repeat(5_000);
		assertThat(claimAndSucceed(key(prefix + "1")).status()).isEqualTo(Status.CLAIMED);
		assertThat(claimAndSucceed(key(prefix + "2")).status()).isEqualTo(Status.CLAIMED);
		assertThat(claimAndSucceed(key(prefix + "1")).status()).isEqualTo(Status.DUPLICATE);
		String longNamespace = "n".repeat(500);
		assertThat(claimAndSucceed(new IdempotencyKey(longNamespace, "k")).status()).isEqualTo(Status.CLAIMED);
		assertThat(claimAndSucceed(new IdempotencyKey(longNamespace, "k")).status()).isEqualTo(Status.DUPLICATE);
	}

	/**
	 * A key that spells a long key's stored digest, {@code sha256:<hex>}, is another key: a store
	 * that digests long keys also digests every key starting with {@code sha256:}, so the two never
	 * share a record, whichever comes first.
	 */
	@Test
	void literalKeySpellingALongKeysDigestIsNotItsDuplicate() {
		IdempotencyKey longFirst = key("L".repeat(5_000) + "-first");
		IdempotencyKey spellingFirst = key(sha256(longFirst.value()));
		assertThat(claimAndSucceed(longFirst).status()).isEqualTo(Status.CLAIMED);
		assertThat(claimAndSucceed(spellingFirst).status()).isEqualTo(Status.CLAIMED);
		IdempotencyKey longSecond = key("L".repeat(5_000) + "-second");
		IdempotencyKey spellingSecond = key(sha256(longSecond.value()));
		assertThat(claimAndSucceed(spellingSecond).status()).isEqualTo(Status.CLAIMED);
		assertThat(claimAndSucceed(longSecond).status()).isEqualTo(Status.CLAIMED);
		for (IdempotencyKey key : List.of(longFirst, spellingFirst, longSecond, spellingSecond)) {
			assertThat(claimAndSucceed(key).status()).as("%s again", key).isEqualTo(Status.DUPLICATE);
		}
	}

	/** As {@link #literalKeySpellingALongKeysDigestIsNotItsDuplicate()}, for namespaces. */
	@Test
	void literalNamespaceSpellingALongNamespacesDigestIsIndependent() {
		String longFirst = "N".repeat(500) + "-first";
		assertThat(claimAndSucceed(new IdempotencyKey(longFirst, "k")).status()).isEqualTo(Status.CLAIMED);
		assertThat(claimAndSucceed(new IdempotencyKey(sha256(longFirst), "k")).status()).isEqualTo(Status.CLAIMED);
		String longSecond = "N".repeat(500) + "-second";
		assertThat(claimAndSucceed(new IdempotencyKey(sha256(longSecond), "k")).status()).isEqualTo(Status.CLAIMED);
		assertThat(claimAndSucceed(new IdempotencyKey(longSecond, "k")).status()).isEqualTo(Status.CLAIMED);
		assertThat(claimAndSucceed(new IdempotencyKey(sha256(longSecond), "k")).status())
			.isEqualTo(Status.DUPLICATE);
	}

	/** {@code sha256:<hex>} of the text's UTF-8 bytes, as a store digests a long part. */
	protected static String sha256(String text) {
		try {
			return "sha256:" + HexFormat.of()
				.formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException(ex);
		}
	}

	@Test
	void keyIsStillADuplicateJustBeforeItsRetentionEnds() {
		claimAndSucceed(key("retained"), Duration.ofHours(1));
		this.clock.advance(Duration.ofMinutes(59));
		assertThat(claimAndSucceed(key("retained")).status()).isEqualTo(Status.DUPLICATE);
	}

	@Test
	protected void keyCanBeClaimedAgainAfterItsRetention() {
		claimAndSucceed(key("expired"), Duration.ofHours(1));
		this.clock.advance(Duration.ofHours(2));
		assertThat(claimAndSucceed(key("expired")).status()).isEqualTo(Status.CLAIMED);
		assertThat(claimAndSucceed(key("expired")).status()).isEqualTo(Status.DUPLICATE);
	}

	@Test
	protected void purgeDeletesExpiredRecordsOnly() {
		for (int i = 0; i < 3; i++) {
			claimAndSucceed(key("short-" + i), Duration.ofHours(1));
		}
		claimAndSucceed(key("long-0"), Duration.ofDays(10));
		claimAndSucceed(key("long-1"), Duration.ofDays(10));
		this.clock.advance(Duration.ofHours(2));
		assertThat(purgeExpired()).isEqualTo(3);
		assertThat(purgeExpired()).isZero();
		assertThat(claimAndSucceed(key("long-0")).status()).isEqualTo(Status.DUPLICATE);
		assertThat(claimAndSucceed(key("long-1")).status()).isEqualTo(Status.DUPLICATE);
		assertThat(claimAndSucceed(key("short-0")).status()).isEqualTo(Status.CLAIMED);
	}

	@Test
	void batchClaimReportsEachKeyInItsOrder() {
		claimAndSucceed(key("batch-seen"));
		assertThat(claimAllAndSucceed(List.of(key("batch-new-1"), key("batch-seen"), key("batch-new-2"))))
			.extracting(ClaimResult::status)
			.containsExactly(Status.CLAIMED, Status.DUPLICATE, Status.CLAIMED);
		assertThat(claimAndSucceed(key("batch-new-2")).status()).isEqualTo(Status.DUPLICATE);
	}

	@Test
	void keyRepeatedWithinABatchIsClaimedOnce() {
		assertThat(claimAllAndSucceed(List.of(key("twice-in-batch"), key("other"), key("twice-in-batch"))))
			.extracting(ClaimResult::status)
			.containsExactly(Status.CLAIMED, Status.CLAIMED, Status.DUPLICATE);
	}

	@Test
	void longKeysInABatchAreDigestedLikeSingleClaims() {
		String longKey = "y".repeat(5_000);
		claimAndSucceed(key(longKey));
		assertThat(claimAllAndSucceed(List.of(key(longKey), key(longKey + "2"))))
			.extracting(ClaimResult::status)
			.containsExactly(Status.DUPLICATE, Status.CLAIMED);
	}

	@Test
	void concurrentClaimsOfOneKeyGrantExactlyOne() throws Exception {
		int threads = 8;
		ExecutorService executor = Executors.newFixedThreadPool(threads);
		try {
			for (int round = 0; round < 20; round++) {
				IdempotencyKey key = key("race-" + round);
				CyclicBarrier start = new CyclicBarrier(threads);
				List<Future<ClaimResult>> results = new ArrayList<>();
				for (int t = 0; t < threads; t++) {
					results.add(executor.submit(() -> {
						start.await(10, TimeUnit.SECONDS);
						return claimAndSucceed(key);
					}));
				}
				int claimed = 0;
				for (Future<ClaimResult> result : results) {
					ClaimResult claim = result.get(30, TimeUnit.SECONDS);
					assertThat(claim.status()).isIn(Status.CLAIMED, Status.DUPLICATE, Status.IN_PROGRESS);
					claimed += claim.isClaimed() ? 1 : 0;
				}
				assertThat(claimed).as("claims granted for %s", key).isEqualTo(1);
			}
		}
		finally {
			executor.shutdownNow();
		}
	}

}
