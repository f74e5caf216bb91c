package dev.idempotency.store.jdbc;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.core.ClaimResult;
import dev.idempotency.core.ClaimResult.Status;
import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.core.IdempotencyReconciler.Verdict;
import dev.idempotency.core.IdempotencyStore;
import dev.idempotency.core.IdempotencyStoreException;
import dev.idempotency.core.ParkedKey;
import dev.idempotency.core.UnfinishedClaim;
import dev.idempotency.store.AbstractIdempotencyStoreContractTests;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import org.springframework.core.io.ClassPathResource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.init.ResourceDatabasePopulator;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.AbstractPlatformTransactionManager;
import org.springframework.transaction.support.DefaultTransactionStatus;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The store contract for {@link JdbcLeasedIdempotencyStore} on one database, driven as the
 * interceptor drives a leased store (claim, then complete or release), plus the leased mode's own
 * rules: leases, take-over, renewal, reconciliation and parked keys. The table is dropped and
 * created from the shipped scripts before every test, so an old table cannot hide a missing column.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractJdbcLeasedIdempotencyStoreContractTests extends AbstractIdempotencyStoreContractTests {

	private static final String TABLE = "idempotency_record";

	private static final Duration HOLD = Duration.ofMinutes(2);

	private HikariDataSource dataSource;

	private JdbcTemplate jdbc;

	private JdbcIdempotencyDialect dialect;

	private JdbcLeasedIdempotencyStore store;

	/** A fresh pool on the database under test. */
	protected abstract HikariDataSource createDataSource();

	/** Spring Boot platform name of the schema scripts. */
	protected abstract String platform();

	@BeforeAll
	void createStore() {
		this.dataSource = createDataSource();
		this.jdbc = new JdbcTemplate(this.dataSource);
		this.dialect = JdbcIdempotencyDialect.detect(this.dataSource);
		this.store = leasedStore(true);
	}

	@AfterAll
	void closeDataSource() {
		this.dataSource.close();
	}

	@BeforeEach
	void recreateTable() {
		runScripts(this.dataSource, "schema-drop-" + platform() + ".sql", "schema-" + platform() + ".sql");
	}

	private static void runScripts(DataSource dataSource, String... scripts) {
		ResourceDatabasePopulator populator = new ResourceDatabasePopulator();
		for (String script : scripts) {
			populator.addScript(new ClassPathResource("dev/idempotency/store/jdbc/" + script));
		}
		populator.execute(dataSource);
	}

	private JdbcLeasedIdempotencyStore leasedStore(boolean takeOverEndedLeases) {
		return new JdbcLeasedIdempotencyStore(this.dataSource, this.dialect, TABLE, this.clock, takeOverEndedLeases,
				List.of());
	}

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
		return new JdbcIdempotencyPurger(this.jdbc, this.dialect, TABLE, this.clock, 1000, 10).purgeExpired();
	}

	private ClaimResult claim(IdempotencyKey key) {
		return this.store.claim(key, LEASE, RETENTION);
	}

	private void endLeases() {
		this.clock.advance(LEASE.plusSeconds(1));
	}

	private int attempts(IdempotencyKey key) {
		Integer attempts = this.jdbc.queryForObject(
				"SELECT attempts FROM " + TABLE + " WHERE namespace = ? AND idempotency_key = ?", Integer.class,
				key.namespace(), key.value());
		return (attempts != null) ? attempts : -1;
	}

	private List<String> statuses() {
		return this.jdbc.queryForList("SELECT status FROM " + TABLE + " ORDER BY idempotency_key", String.class);
	}

	@Test
	void storeIsLeasedAndNamedJdbc() {
		assertThat(this.store.isTransactional()).isFalse();
		assertThat(this.store.transactionalResource()).isNull();
		assertThat(this.store.leased()).isSameAs(this.store);
		assertThat(this.store.name()).isEqualTo("jdbc");
	}

	@Test
	void transactionalStoreReturnsTheLeasedStoreItWasGiven() {
		assertThat(new JdbcIdempotencyStore(this.jdbc, this.dialect, TABLE, this.clock, this.store).leased())
			.isSameAs(this.store);
		assertThat(new JdbcIdempotencyStore(this.jdbc, this.dialect, TABLE, this.clock, null).leased()).isNull();
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new JdbcIdempotencyStore(this.jdbc, this.dialect, "other_record", this.clock, this.store));
	}

	@Test
	void keyHeldUnderALeaseIsInProgressForASecondClaimer() {
		ClaimResult first = claim(key("held"));
		assertThat(first.status()).isEqualTo(Status.CLAIMED);
		assertThat(first.token()).isNotBlank();
		assertThat(claim(key("held")).status()).isEqualTo(Status.IN_PROGRESS);
		this.clock.advance(LEASE.minusSeconds(1));
		assertThat(claim(key("held")).status()).isEqualTo(Status.IN_PROGRESS);
		assertThat(attempts(key("held"))).isOne();
	}

	@Test
	void endedLeaseIsTakenOverWithANewTokenAsTheNextAttempt() {
		ClaimResult crashed = claim(key("crashed"));
		endLeases();
		ClaimResult next = claim(key("crashed"));
		assertThat(next.status()).isEqualTo(Status.CLAIMED);
		assertThat(next.token()).isNotEqualTo(crashed.token());
		assertThat(attempts(key("crashed"))).isEqualTo(2);
		assertThat(claim(key("crashed")).status()).isEqualTo(Status.IN_PROGRESS);
	}

	@Test
	void staleTokenCanNoLongerCompleteReleaseOrRenew() {
		ClaimResult late = claim(key("late"));
		endLeases();
		ClaimResult current = claim(key("late"));
		assertThat(current.isClaimed()).isTrue();
		this.store.complete(key("late"), late, RETENTION);
		assertThat(statuses()).containsExactly("PROCESSING");
		this.store.release(key("late"), late);
		assertThat(statuses()).containsExactly("PROCESSING");
		assertThat(this.store.renew(key("late"), late, LEASE)).isFalse();
		assertThat(claim(key("late")).status()).isEqualTo(Status.IN_PROGRESS);
		this.store.complete(key("late"), current, RETENTION);
		assertThat(claim(key("late")).status()).isEqualTo(Status.DUPLICATE);
	}

	@Test
	void completedOrReleasedClaimCannotBeRenewed() {
		ClaimResult completed = claim(key("renew-completed"));
		this.store.complete(key("renew-completed"), completed, RETENTION);
		assertThat(this.store.renew(key("renew-completed"), completed, LEASE)).isFalse();
		ClaimResult released = claim(key("renew-released"));
		this.store.release(key("renew-released"), released);
		assertThat(this.store.renew(key("renew-released"), released, LEASE)).isFalse();
		assertThat(statuses()).containsExactly("COMPLETED");
	}

	@Test
	void renewExtendsTheLease() {
		ClaimResult claim = claim(key("long-running"));
		this.clock.advance(LEASE.minusMinutes(1));
		assertThat(this.store.renew(key("long-running"), claim, LEASE)).isTrue();
		this.clock.advance(Duration.ofMinutes(2));
		assertThat(claim(key("long-running")).status()).isEqualTo(Status.IN_PROGRESS);
		this.clock.advance(LEASE);
		assertThat(claim(key("long-running")).status()).isEqualTo(Status.CLAIMED);
	}

	@Test
	void longKeysAreClaimedCompletedAndRenewedByTheirDigest() {
		IdempotencyKey key = key("z".repeat(1_000));
		ClaimResult claim = claim(key);
		assertThat(this.store.renew(key, claim, LEASE)).isTrue();
		this.store.complete(key, claim, RETENTION);
		assertThat(claim(key).status()).isEqualTo(Status.DUPLICATE);
		assertThat(this.jdbc.queryForObject("SELECT idempotency_key FROM " + TABLE, String.class))
			.startsWith(IdempotencyKey.DIGEST_PREFIX);
	}

	@Test
	void withoutTakeOverAnEndedLeaseStaysInProgressForTheReconciler() {
		JdbcLeasedIdempotencyStore reconciled = leasedStore(false);
		ClaimResult crashed = reconciled.claim(key("waits"), LEASE, RETENTION);
		endLeases();
		assertThat(reconciled.claim(key("waits"), LEASE, RETENTION).status()).isEqualTo(Status.IN_PROGRESS);
		assertThat(attempts(key("waits"))).isOne();
		assertThat(reconciled.takeOver(10, HOLD)).singleElement().satisfies((unfinished) -> {
			assertThat(unfinished.key()).isEqualTo(key("waits"));
			assertThat(unfinished.token()).isNotEqualTo(crashed.token());
		});
	}

	@Test
	void takeOverHoldsEndedClaimsOnlyOldestFirst() {
		Instant firstClaimed = this.clock.instant();
		claim(key("ended-1"));
		this.clock.advance(Duration.ofSeconds(10));
		claim(key("ended-2"));
		this.clock.advance(Duration.ofSeconds(10));
		claim(key("ended-3"));
		endLeases();
		claim(key("live"));
		ClaimResult done = claim(key("done"));
		this.store.complete(key("done"), done, RETENTION);

		List<UnfinishedClaim> held = this.store.takeOver(2, HOLD);
		assertThat(held).extracting(UnfinishedClaim::key).containsExactly(key("ended-1"), key("ended-2"));
		assertThat(held.get(0).claimedAt()).isEqualTo(firstClaimed);
		assertThat(held.get(0).attempts()).isOne();
		assertThat(this.store.takeOver(10, HOLD)).extracting(UnfinishedClaim::key).containsExactly(key("ended-3"));
		assertThat(this.store.takeOver(10, HOLD)).as("held claims are not offered again").isEmpty();
		assertThat(claim(key("ended-1")).status()).as("a delivery waits for the hold").isEqualTo(Status.IN_PROGRESS);
		this.clock.advance(HOLD.plusSeconds(1));
		assertThat(this.store.takeOver(10, HOLD)).extracting(UnfinishedClaim::key)
			.containsExactly(key("ended-1"), key("ended-2"), key("ended-3"));
	}

	@Test
	void aScanScopedToNamespacesNeverTakesTheClaimsOfAnother() {
		IdempotencyKey shipping = new IdempotencyKey("shipping", "ship-1");
		IdempotencyKey audit = new IdempotencyKey("audit", "audit-1");
		IdempotencyKey billing = new IdempotencyKey("billing", "pay-1");
		// The other applications' claims are the oldest: an unscoped scan would take them first.
		ClaimResult shippingClaim = claim(shipping);
		claim(audit);
		this.clock.advance(Duration.ofSeconds(10));
		Instant billingClaimedAt = this.clock.instant();
		claim(billing);
		endLeases();

		assertThat(this.store.oldestUnfinished(List.of("billing"))).isEqualTo(billingClaimedAt);
		assertThat(this.store.takeOver(1, HOLD, List.of("billing"))).extracting(UnfinishedClaim::key)
			.containsExactly(billing);
		assertThat(this.store.takeOver(10, HOLD, List.of("billing", "billing", "payments"))).isEmpty();
		assertThat(this.store.oldestUnfinished(List.of("billing"))).as("held, so no longer ended").isNull();
		assertThat(this.jdbc.queryForObject("SELECT owner_token FROM " + TABLE + " WHERE namespace = 'shipping'",
				String.class)).as("the other namespace's claim is untouched").isEqualTo(shippingClaim.token());

		assertThat(this.store.oldestUnfinished(List.of("shipping", "payments"))).isBefore(billingClaimedAt);
		assertThat(this.store.takeOver(10, HOLD, List.of("shipping", "payments"))).extracting(UnfinishedClaim::key)
			.containsExactly(shipping);
		assertThat(this.store.takeOver(10, HOLD, List.of())).as("empty scans every namespace")
			.extracting(UnfinishedClaim::key)
			.containsExactly(audit);
	}

	@Test
	void withAScopedReconcilerOnlyItsNamespacesWaitForItAndOthersAreTakenOverByADelivery() {
		JdbcLeasedIdempotencyStore reconciled = new JdbcLeasedIdempotencyStore(this.dataSource, this.dialect, TABLE,
				this.clock, false, List.of("billing"));
		IdempotencyKey billing = new IdempotencyKey("billing", "pay-1");
		IdempotencyKey shipping = new IdempotencyKey("shipping", "ship-1");
		reconciled.claim(billing, LEASE, RETENTION);
		reconciled.claim(shipping, LEASE, RETENTION);
		endLeases();
		assertThat(reconciled.claim(billing, LEASE, RETENTION).status()).isEqualTo(Status.IN_PROGRESS);
		assertThat(reconciled.claim(shipping, LEASE, RETENTION).status()).as("no scan would ever offer it")
			.isEqualTo(Status.CLAIMED);
		assertThat(attempts(shipping)).isEqualTo(2);
	}

	@Test
	void aScopedScanRejectsBlankNamespaces() {
		assertThatIllegalArgumentException().isThrownBy(() -> this.store.takeOver(10, HOLD, List.of("billing", " ")));
		assertThatIllegalArgumentException().isThrownBy(() -> this.store.oldestUnfinished(List.of("")));
	}

	@Test
	void settledAsCompletedTheKeyIsADuplicate() {
		claim(key("reconciled-done"));
		endLeases();
		UnfinishedClaim held = this.store.takeOver(10, HOLD).get(0);
		assertThat(this.store.settle(held, Verdict.COMPLETED, RETENTION)).isTrue();
		assertThat(claim(key("reconciled-done")).status()).isEqualTo(Status.DUPLICATE);
		assertThat(this.store.oldestUnfinished()).isNull();
	}

	@Test
	void settledAsRetryTheKeyCanBeClaimed() {
		claim(key("reconciled-retry"));
		endLeases();
		UnfinishedClaim held = this.store.takeOver(10, HOLD).get(0);
		assertThat(this.store.settle(held, Verdict.RETRY, RETENTION)).isTrue();
		assertThat(claim(key("reconciled-retry")).status()).isEqualTo(Status.CLAIMED);
		assertThat(attempts(key("reconciled-retry"))).isOne();
	}

	@Test
	void settledAsManualTheKeyIsParkedUntilMarkedCompleted() {
		claim(key("reconciled-manual"));
		endLeases();
		claim(key("reconciled-manual"));
		Instant retakenAt = this.clock.instant();
		endLeases();
		UnfinishedClaim held = this.store.takeOver(10, HOLD).get(0);
		assertThat(this.store.settle(held, Verdict.MANUAL, RETENTION)).isTrue();
		assertThat(claim(key("reconciled-manual")).status()).isEqualTo(Status.PARKED);
		endLeases();
		assertThat(claim(key("reconciled-manual")).status()).as("parked keys have no lease").isEqualTo(Status.PARKED);
		assertThat(this.store.takeOver(10, HOLD)).isEmpty();
		assertThat(this.store.parked(null, 10)).containsExactly(new ParkedKey(key("reconciled-manual"), retakenAt, 2));
		assertThat(this.store.parked("contract", 10)).hasSize(1);
		assertThat(this.store.parked("other", 10)).isEmpty();

		assertThat(this.store.markCompleted(key("reconciled-manual"), RETENTION)).isTrue();
		assertThat(claim(key("reconciled-manual")).status()).isEqualTo(Status.DUPLICATE);
		assertThat(this.store.parked(null, 10)).isEmpty();
		assertThat(this.store.markCompleted(key("reconciled-manual"), RETENTION)).as("no longer parked").isFalse();
	}

	@Test
	void parkedKeyReleasedCanBeClaimed() {
		IdempotencyKey key = key("p".repeat(500));
		claim(key);
		endLeases();
		assertThat(this.store.settle(this.store.takeOver(10, HOLD).get(0), Verdict.MANUAL, RETENTION)).isTrue();
		assertThat(this.store.release(key)).isTrue();
		assertThat(this.store.release(key)).isFalse();
		assertThat(claim(key).status()).isEqualTo(Status.CLAIMED);
		assertThat(this.store.release(key)).as("only parked keys are released").isFalse();
		assertThat(this.store.markCompleted(key, RETENTION)).as("only parked keys are marked").isFalse();
	}

	/**
	 * A long key is listed by its digest, often the only name a person has for it; passed back, the
	 * listed digest still names that record, though a literal key {@code sha256:...} is stored
	 * digested.
	 */
	@Test
	void parkedLongKeyIsReleasedAndMarkedByTheDigestItIsListedAs() {
		IdempotencyKey released = new IdempotencyKey("n".repeat(300), "r".repeat(300));
		IdempotencyKey marked = key("m".repeat(300));
		claim(released);
		claim(marked);
		endLeases();
		for (UnfinishedClaim held : this.store.takeOver(10, HOLD)) {
			this.store.settle(held, Verdict.MANUAL, RETENTION);
		}
		IdempotencyKey releasedAsListed = released.digestedBeyond(JdbcIdempotencyStore.MAX_KEY_LENGTH);
		IdempotencyKey markedAsListed = marked.digestedBeyond(JdbcIdempotencyStore.MAX_KEY_LENGTH);
		assertThat(this.store.parked(null, 10)).extracting(ParkedKey::key)
			.containsExactlyInAnyOrder(releasedAsListed, markedAsListed);
		assertThat(this.store.release(releasedAsListed)).isTrue();
		assertThat(this.store.markCompleted(markedAsListed, RETENTION)).isTrue();
		assertThat(this.store.parked(null, 10)).isEmpty();
		assertThat(claim(released).status()).isEqualTo(Status.CLAIMED);
		assertThat(claim(marked).status()).isEqualTo(Status.DUPLICATE);
	}

	/** A parked key that starts with {@code sha256:} is stored digested and handled by its own name. */
	@Test
	void parkedKeyStartingWithTheDigestPrefixIsHandledByItsOwnName() {
		IdempotencyKey literal = key(sha256("some content"));
		claim(literal);
		endLeases();
		this.store.settle(this.store.takeOver(10, HOLD).get(0), Verdict.MANUAL, RETENTION);
		assertThat(this.store.parked(null, 10)).extracting(ParkedKey::key)
			.containsExactly(literal.digestedBeyond(JdbcIdempotencyStore.MAX_KEY_LENGTH));
		assertThat(this.store.markCompleted(literal, RETENTION)).isTrue();
		assertThat(claim(literal).status()).isEqualTo(Status.DUPLICATE);
	}

	@Test
	void parkedKeysAreListedOldestFirstUpToTheLimit() {
		for (int i = 0; i < 3; i++) {
			claim(new IdempotencyKey((i == 1) ? "other" : "contract", "parked-" + i));
			this.clock.advance(Duration.ofSeconds(1));
		}
		endLeases();
		for (UnfinishedClaim held : this.store.takeOver(10, HOLD)) {
			this.store.settle(held, Verdict.MANUAL, RETENTION);
		}
		assertThat(this.store.parked(null, 2)).extracting((parked) -> parked.key().value())
			.containsExactly("parked-0", "parked-1");
		assertThat(this.store.parked("contract", 10)).extracting((parked) -> parked.key().value())
			.containsExactly("parked-0", "parked-2");
	}

	@Test
	void parkedKeysOfALongNamespaceAreListedByTheNamespaceAsWrittenAndAsListed() {
		String namespace = "long-" + "n".repeat(JdbcIdempotencyStore.MAX_KEY_LENGTH);
		claim(new IdempotencyKey(namespace, "parked-long"));
		endLeases();
		this.store.settle(this.store.takeOver(10, HOLD).get(0), Verdict.MANUAL, RETENTION);
		String listed = this.store.parked(null, 10).get(0).key().namespace();
		assertThat(IdempotencyKey.isDigest(listed)).as("a long namespace is stored as its digest").isTrue();
		assertThat(this.store.parked(namespace, 10)).extracting((parked) -> parked.key().value())
			.containsExactly("parked-long");
		assertThat(this.store.parked(listed, 10)).extracting((parked) -> parked.key().value())
			.containsExactly("parked-long");
		assertThat(this.store.parked("contract", 10)).isEmpty();
	}

	@Test
	void settleAfterTheHoldWasTakenOverChangesNothing() {
		claim(key("slow-reconciler"));
		endLeases();
		UnfinishedClaim stale = this.store.takeOver(10, HOLD).get(0);
		this.clock.advance(HOLD.plusSeconds(1));
		ClaimResult delivery = claim(key("slow-reconciler"));
		assertThat(delivery.isClaimed()).isTrue();
		for (Verdict verdict : Verdict.values()) {
			assertThat(this.store.settle(stale, verdict, RETENTION)).as("%s", verdict).isFalse();
		}
		assertThat(statuses()).containsExactly("PROCESSING");
		assertThat(this.store.renew(key("slow-reconciler"), delivery, LEASE)).isTrue();
	}

	@Test
	void oldestUnfinishedIsTheEarliestClaimWhoseLeaseEnded() {
		assertThat(this.store.oldestUnfinished()).isNull();
		Instant oldest = this.clock.instant();
		claim(key("unfinished-1"));
		this.clock.advance(Duration.ofMinutes(1));
		claim(key("unfinished-2"));
		assertThat(this.store.oldestUnfinished()).as("leases still running").isNull();
		endLeases();
		claim(key("running"));
		assertThat(this.store.oldestUnfinished()).isEqualTo(oldest);
	}

	@Test
	void concurrentTakeOversNeverHandOutAKeyTwice() throws Exception {
		ExecutorService executor = Executors.newFixedThreadPool(2);
		try {
			for (int round = 0; round < 10; round++) {
				for (int i = 0; i < 50; i++) {
					claim(key("scan-" + round + "-" + i));
				}
				endLeases();
				CyclicBarrier start = new CyclicBarrier(2);
				List<Future<List<UnfinishedClaim>>> scans = new ArrayList<>();
				for (int t = 0; t < 2; t++) {
					scans.add(executor.submit(() -> {
						start.await(10, TimeUnit.SECONDS);
						return this.store.takeOver(50, HOLD);
					}));
				}
				List<IdempotencyKey> handedOut = new ArrayList<>();
				for (Future<List<UnfinishedClaim>> scan : scans) {
					scan.get(30, TimeUnit.SECONDS).forEach((claim) -> handedOut.add(claim.key()));
				}
				assertThat(handedOut).as("round %d", round).doesNotHaveDuplicates().hasSize(50);
				// Let the holds end and settle them, so the next round starts with no ended claims.
				this.clock.advance(HOLD.plusSeconds(1));
				for (UnfinishedClaim held : this.store.takeOver(50, HOLD)) {
					assertThat(this.store.settle(held, Verdict.COMPLETED, RETENTION)).isTrue();
				}
			}
		}
		finally {
			executor.shutdownNow();
		}
	}

	/** A scan and redeliveries race for the same ended claims: each goes to exactly one of them. */
	@Test
	void endedClaimIsHeldByTheScanOrTakenOverByADeliveryNeverBoth() throws Exception {
		ExecutorService executor = Executors.newFixedThreadPool(5);
		try {
			for (int round = 0; round < 5; round++) {
				List<IdempotencyKey> keys = new ArrayList<>();
				for (int i = 0; i < 20; i++) {
					keys.add(key("mixed-" + round + "-" + i));
					claim(keys.get(i));
				}
				endLeases();
				CyclicBarrier start = new CyclicBarrier(5);
				Future<List<UnfinishedClaim>> scan = executor.submit(() -> {
					start.await(10, TimeUnit.SECONDS);
					return this.store.takeOver(20, HOLD);
				});
				List<Future<List<IdempotencyKey>>> deliveries = new ArrayList<>();
				for (int t = 0; t < 4; t++) {
					List<IdempotencyKey> order = new ArrayList<>(keys);
					Collections.shuffle(order);
					deliveries.add(executor.submit(() -> {
						start.await(10, TimeUnit.SECONDS);
						List<IdempotencyKey> claimed = new ArrayList<>();
						for (IdempotencyKey key : order) {
							if (claim(key).isClaimed()) {
								claimed.add(key);
							}
						}
						return claimed;
					}));
				}
				List<IdempotencyKey> taken = new ArrayList<>();
				scan.get(30, TimeUnit.SECONDS).forEach((held) -> taken.add(held.key()));
				for (Future<List<IdempotencyKey>> delivery : deliveries) {
					taken.addAll(delivery.get(30, TimeUnit.SECONDS));
				}
				assertThat(taken).as("round %d", round).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(keys);
				this.clock.advance(LEASE.plus(HOLD));
				for (UnfinishedClaim held : this.store.takeOver(50, HOLD)) {
					this.store.settle(held, Verdict.COMPLETED, RETENTION);
				}
			}
		}
		finally {
			executor.shutdownNow();
		}
	}

	@Test
	void concurrentClaimsOfANewKeyGrantOneAndFindTheRestInProgress() throws Exception {
		raceClaims("new-race", false);
	}

	@Test
	void concurrentClaimsOfAnEndedLeaseGrantExactlyOne() throws Exception {
		raceClaims("ended-race", true);
	}

	private void raceClaims(String prefix, boolean endedLease) throws Exception {
		int threads = 8;
		ExecutorService executor = Executors.newFixedThreadPool(threads);
		try {
			for (int round = 0; round < 10; round++) {
				IdempotencyKey key = key(prefix + "-" + round);
				if (endedLease) {
					claim(key);
					endLeases();
				}
				CyclicBarrier start = new CyclicBarrier(threads);
				List<Future<ClaimResult>> results = new ArrayList<>();
				for (int t = 0; t < threads; t++) {
					results.add(executor.submit(() -> {
						start.await(10, TimeUnit.SECONDS);
						return claim(key);
					}));
				}
				int claimed = 0;
				Set<Status> others = new HashSet<>();
				for (Future<ClaimResult> result : results) {
					ClaimResult claim = result.get(30, TimeUnit.SECONDS);
					if (claim.isClaimed()) {
						claimed++;
					}
					else {
						others.add(claim.status());
					}
				}
				assertThat(claimed).as("claims granted for %s", key).isOne();
				assertThat(others).containsOnly(Status.IN_PROGRESS);
				assertThat(attempts(key)).isEqualTo(endedLease ? 2 : 1);
			}
		}
		finally {
			executor.shutdownNow();
		}
	}

	@Test
	void claimCommitsOnItsOwnWhenTheCallersTransactionRollsBack() {
		TransactionTemplate business = new TransactionTemplate(new DataSourceTransactionManager(this.dataSource));
		ClaimResult claim = business.execute((status) -> {
			this.jdbc.update("INSERT INTO " + TABLE + " (namespace, idempotency_key, status, created_at, expires_at)"
					+ " VALUES ('business', 'write', 'COMPLETED', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)");
			ClaimResult granted = this.store.claim(key("in-business-tx"), LEASE, RETENTION);
			status.setRollbackOnly();
			return granted;
		});
		assertThat(claim.isClaimed()).isTrue();
		assertThat(this.jdbc.queryForList("SELECT namespace FROM " + TABLE, String.class))
			.as("the business write rolled back, the claim did not")
			.containsExactly("contract");
		assertThat(statuses()).containsExactly("PROCESSING");
		business.executeWithoutResult((status) -> {
			this.store.complete(key("in-business-tx"), claim, RETENTION);
			status.setRollbackOnly();
		});
		assertThat(claim(key("in-business-tx")).status()).isEqualTo(Status.DUPLICATE);
	}

	/** A Kafka-only transaction: synchronization is active, nothing binds the DataSource. */
	@Test
	void claimCommitsOnItsOwnInATransactionOfAnotherResource() {
		TransactionTemplate foreign = new TransactionTemplate(new ResourcelessTransactionManager());
		ClaimResult claim = foreign.execute((status) -> {
			ClaimResult granted = this.store.claim(key("in-kafka-tx"), LEASE, RETENTION);
			status.setRollbackOnly();
			return granted;
		});
		assertThat(claim.isClaimed()).isTrue();
		assertThat(statuses()).containsExactly("PROCESSING");
	}

	@Test
	void probeSucceedsOnTheShippedSchema() {
		this.store.probe();
	}

	@Test
	void probeNamesTheUpgradeScriptWhenTheTableLacksTheLeasedColumnsAndTheScriptAddsThem() {
		this.jdbc.execute("ALTER TABLE " + TABLE + " DROP COLUMN owner_token");
		this.jdbc.execute("ALTER TABLE " + TABLE + " DROP COLUMN attempts");
		JdbcIdempotencyStore transactional = new JdbcIdempotencyStore(this.jdbc, this.dialect, TABLE, this.clock, null);
		transactional.probe();
		assertThatExceptionOfType(IdempotencyStoreException.class).isThrownBy(this.store::probe)
			.withMessageContaining("schema-upgrade-0.2-");
		new TransactionTemplate(new DataSourceTransactionManager(this.dataSource)).executeWithoutResult(
				(status) -> transactional.claim(key("before-upgrade"), LEASE, RETENTION));

		runScripts(this.dataSource, "schema-upgrade-0.2-" + platform() + ".sql");

		this.store.probe();
		assertThat(claim(key("before-upgrade")).status()).isEqualTo(Status.DUPLICATE);
		assertThat(claimAndSucceed(key("after-upgrade")).status()).isEqualTo(Status.CLAIMED);
		assertThat(claimAndSucceed(key("after-upgrade")).status()).isEqualTo(Status.DUPLICATE);
	}

	@Test
	void failuresAreStoreExceptions() {
		this.jdbc.execute("DROP TABLE " + TABLE);
		assertThatExceptionOfType(IdempotencyStoreException.class).isThrownBy(() -> claim(key("no-table")));
		assertThatExceptionOfType(IdempotencyStoreException.class).isThrownBy(() -> this.store.takeOver(1, HOLD));
		assertThatExceptionOfType(IdempotencyStoreException.class).isThrownBy(this.store::oldestUnfinished);
	}

	@Test
	void tableNameMustBeAPlainIdentifier() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new JdbcLeasedIdempotencyStore(this.dataSource, this.dialect, "records; DROP TABLE x",
					this.clock, true, List.of()));
	}

	/** Stands in for a transaction manager of another resource, such as Kafka's. */
	private static final class ResourcelessTransactionManager extends AbstractPlatformTransactionManager {

		@Override
		protected Object doGetTransaction() {
			return new Object();
		}

		@Override
		protected void doBegin(Object transaction, TransactionDefinition definition) {
		}

		@Override
		protected void doCommit(DefaultTransactionStatus status) {
		}

		@Override
		protected void doRollback(DefaultTransactionStatus status) {
		}

	}

}
