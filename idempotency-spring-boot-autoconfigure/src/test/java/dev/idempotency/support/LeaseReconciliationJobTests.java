package dev.idempotency.support;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.idempotency.core.IdempotencyEvent;
import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.core.IdempotencyListener;
import dev.idempotency.core.IdempotencyReconciler.Verdict;
import dev.idempotency.core.UnfinishedClaim;
import dev.idempotency.core.UnfinishedClaims;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * {@link LeaseReconciliationJob} over a store stand-in that records what was settled.
 */
class LeaseReconciliationJobTests {

	private static final Instant CLAIMED_AT = Instant.parse("2026-11-01T10:00:00Z");

	private final FakeClaims claims = new FakeClaims();

	private final List<String> heard = new ArrayList<>();

	private final IdempotencyListener listener = new IdempotencyListener() {

		@Override
		public void onOutcome(IdempotencyEvent event) {
		}

		@Override
		public void onReconciled(String store, UnfinishedClaim claim, @Nullable Verdict verdict, boolean settled) {
			LeaseReconciliationJobTests.this.heard.add(claim.key().value() + "=" + verdict + "/" + settled);
		}

		@Override
		public void onReconciliationScan(String store, int taken, @Nullable Instant oldest) {
			LeaseReconciliationJobTests.this.heard.add("scan " + taken + " oldest " + oldest);
		}

	};

	@Test
	void eachUnfinishedClaimIsSettledWithItsVerdict() {
		this.claims.add("paid", "unpaid", "unclear");
		LeaseReconciliationJob job = job((claim) -> switch (claim.key().value()) {
			case "paid" -> Verdict.COMPLETED;
			case "unpaid" -> Verdict.RETRY;
			default -> Verdict.MANUAL;
		}, 10);
		assertThat(job.runOnce()).isEqualTo(3);
		assertThat(this.claims.settled).containsExactly(Map.entry("paid", Verdict.COMPLETED),
				Map.entry("unpaid", Verdict.RETRY), Map.entry("unclear", Verdict.MANUAL));
		assertThat(this.heard).containsExactly("paid=COMPLETED/true", "unpaid=RETRY/true", "unclear=MANUAL/true",
				"scan 3 oldest null");
	}

	@Test
	void aReconcilerThatThrowsLeavesTheClaimUnsettledAndTheOthersGoOn() {
		this.claims.add("broken", "paid");
		LeaseReconciliationJob job = job((claim) -> {
			if (claim.key().value().equals("broken")) {
				throw new IllegalStateException("provider down");
			}
			return Verdict.COMPLETED;
		}, 10);
		job.runOnce();
		assertThat(this.claims.settled).containsExactly(Map.entry("paid", Verdict.COMPLETED));
		assertThat(this.heard).startsWith("broken=null/false", "paid=COMPLETED/true");
	}

	@Test
	void aVerdictWhoseHoldEndedIsReportedAsNotSettled() {
		this.claims.add("late");
		this.claims.holdEnded = true;
		job((claim) -> Verdict.COMPLETED, 10).runOnce();
		assertThat(this.heard).startsWith("late=COMPLETED/false");
	}

	@Test
	void oneRunTakesBoundedBatches() {
		for (int i = 0; i < 50; i++) {
			this.claims.add("k" + i);
		}
		this.claims.oldest = CLAIMED_AT;
		LeaseReconciliationJob job = job((claim) -> Verdict.RETRY, 2);
		assertThat(job.runOnce()).isEqualTo(2 * LeaseReconciliationJob.MAX_BATCHES_PER_RUN);
		assertThat(this.claims.batchSizes).hasSize(LeaseReconciliationJob.MAX_BATCHES_PER_RUN).containsOnly(2);
		assertThat(this.heard).last().isEqualTo("scan 20 oldest " + CLAIMED_AT);
	}

	@Test
	void theScanAndTheOldestClaimAreScopedToTheConfiguredNamespaces() {
		this.claims.add("paid");
		LeaseReconciliationJob job = new LeaseReconciliationJob("jdbc", this.claims, (claim) -> Verdict.COMPLETED,
				new LeaseReconciliationJob.Settings(Duration.ofSeconds(30), 10, Duration.ofMinutes(1),
						Duration.ofDays(7), List.of("payments", "refunds")),
				() -> List.of(this.listener));
		job.runOnce();
		assertThat(this.claims.scopes).containsExactly(List.of("payments", "refunds"), List.of("payments", "refunds"));
	}

	@Test
	void withoutNamespacesTheScanCoversEveryNamespace() {
		job((claim) -> Verdict.COMPLETED, 10).runOnce();
		assertThat(this.claims.scopes).containsExactly(List.of(), List.of());
	}

	@Test
	void blankNamespacesAreRejected() {
		assertThatIllegalArgumentException().isThrownBy(() -> new LeaseReconciliationJob.Settings(
				Duration.ofSeconds(30), 10, Duration.ofMinutes(1), Duration.ofDays(7), List.of("payments", "")));
	}

	private LeaseReconciliationJob job(dev.idempotency.core.IdempotencyReconciler reconciler, int batchSize) {
		return new LeaseReconciliationJob("jdbc", this.claims, reconciler,
				new LeaseReconciliationJob.Settings(Duration.ofSeconds(30), batchSize, Duration.ofMinutes(1),
						Duration.ofDays(7), List.of()),
				() -> List.of(this.listener));
	}

	static final class FakeClaims implements UnfinishedClaims {

		final List<UnfinishedClaim> waiting = new ArrayList<>();

		final Map<String, Verdict> settled = new LinkedHashMap<>();

		final List<Integer> batchSizes = new ArrayList<>();

		final List<List<String>> scopes = new ArrayList<>();

		boolean holdEnded;

		@Nullable Instant oldest;

		void add(String... keys) {
			for (String key : keys) {
				this.waiting.add(new UnfinishedClaim(new IdempotencyKey("payments", key), CLAIMED_AT, 1, "t-" + key));
			}
		}

		@Override
		public List<UnfinishedClaim> takeOver(int limit, Duration hold, Collection<String> namespaces) {
			this.scopes.add(List.copyOf(namespaces));
			List<UnfinishedClaim> taken = new ArrayList<>(this.waiting.subList(0, Math.min(limit, this.waiting.size())));
			this.waiting.removeAll(taken);
			this.batchSizes.add(taken.size());
			return taken;
		}

		@Override
		public boolean settle(UnfinishedClaim claim, Verdict verdict, Duration retention) {
			if (this.holdEnded) {
				return false;
			}
			this.settled.put(claim.key().value(), verdict);
			return true;
		}

		@Override
		public @Nullable Instant oldestUnfinished(Collection<String> namespaces) {
			this.scopes.add(List.copyOf(namespaces));
			return this.oldest;
		}

	}

}
