package dev.idempotency.support;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.idempotency.annotation.Idempotent;
import dev.idempotency.annotation.IdempotencyMode;
import dev.idempotency.core.ClaimResult;
import dev.idempotency.core.DeliveryContext;
import dev.idempotency.core.DeliveryContextHolder;
import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.core.IdempotencyOutcome;
import dev.idempotency.core.IdempotencyStore;
import dev.idempotency.support.IdempotencyInterceptorTests.CountingAcknowledger;
import dev.idempotency.support.IdempotencyInterceptorTests.RecordingListener;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.aop.framework.ProxyFactory;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * The interceptor's leased path: which store and transaction a mode chooses, parked keys, and the
 * lease heartbeat, on the in-memory store (leased) behind a stand-in for a transactional store.
 */
class IdempotencyInterceptorLeasedModeTests {

	private static final Duration RETENTION = Duration.ofDays(1);

	private final RecordingListener listener = new RecordingListener();

	private final CountingAcknowledger acknowledger = new CountingAcknowledger();

	private final InMemoryIdempotencyStore leasedStore = new InMemoryIdempotencyStore();

	private final TransactionalStore transactionalStore = new TransactionalStore(this.leasedStore);

	private final PlatformTransactionManager transactionManager = new DataSourceTransactionManager(
			new DriverManagerDataSource("jdbc:h2:mem:leased-mode;DB_CLOSE_DELAY=-1", "sa", ""));

	private final Payments payments = new Payments();

	@AfterEach
	void clearDelivery() {
		DeliveryContextHolder.clear();
	}

	@Test
	void leasedModeClaimsInTheLeasedStoreAndOpensNoTransaction() {
		Payments payments = proxy(this.transactionManager, true, Duration.ofMinutes(5));
		deliver();
		payments.charge("p-1");
		assertThat(this.payments.charged).containsExactly("p-1");
		assertThat(this.payments.inTransaction).containsExactly(false);
		assertThat(this.transactionalStore.claims).as("claims of the transactional store").isZero();
		assertThat(this.leasedStore.claim(key("p-1"), Duration.ofMinutes(1), RETENTION))
			.isEqualTo(ClaimResult.duplicate());
		payments.charge("p-1");
		assertThat(this.payments.charged).containsExactly("p-1");
		assertThat(this.acknowledger.count()).isEqualTo(2);
		assertThat(this.listener.outcomes()).containsExactly(IdempotencyOutcome.PROCESSED, IdempotencyOutcome.DUPLICATE);
	}

	@Test
	void failureInLeasedModeReleasesTheClaimAndAcknowledgesNothing() {
		Payments payments = proxy(this.transactionManager, true, Duration.ofMinutes(5));
		deliver();
		this.payments.failNext = true;
		assertThatIllegalStateException().isThrownBy(() -> payments.charge("p-2"));
		assertThat(this.acknowledger.count()).isZero();
		assertThat(this.leasedStore.claim(key("p-2"), Duration.ofMinutes(1), RETENTION).isClaimed())
			.as("released for the redelivery")
			.isTrue();
	}

	@Test
	void parkedKeyIsSkippedAcknowledgedAndCountedAsParked() {
		IdempotencyStore parking = new InMemoryIdempotencyStore() {
			@Override
			public ClaimResult claim(IdempotencyKey key, Duration lease, Duration retention) {
				return ClaimResult.parked();
			}
		};
		Payments payments = proxyOn(parking, null, true, Duration.ofMinutes(5));
		deliver();
		assertThat(payments.charge("p-3")).isNull();
		assertThat(this.payments.charged).isEmpty();
		assertThat(this.acknowledger.count()).isEqualTo(1);
		assertThat(this.listener.outcomes()).containsExactly(IdempotencyOutcome.PARKED);
	}

	@Test
	void defaultModeFallsBackToLeasedWhenTheApplicationHasNoTransactionManager() {
		ClaimPath path = ClaimPath.choose((name) -> this.transactionalStore, new NoTransactionManagers(), "",
				IdempotencyMode.DEFAULT, List.of("Payments#charge"));
		assertThat(path.store()).isSameAs(this.leasedStore);
		assertThat(path.transactionManager()).isNull();
		assertThat(path.leased()).isTrue();
	}

	@Test
	void defaultModeStaysTransactionalWithATransactionManager() {
		ClaimPath path = ClaimPath.choose((name) -> this.transactionalStore, (store) -> this.transactionManager, "",
				IdempotencyMode.DEFAULT, List.of("Payments#charge"));
		assertThat(path.store()).isSameAs(this.transactionalStore);
		assertThat(path.transactionManager()).isSameAs(this.transactionManager);
		assertThat(path.leased()).isFalse();
	}

	@Test
	void leasedModeOnAStoreWithoutOneFailsWithTheStoreAndTheMethod() {
		IdempotencyStore onlyTransactional = new TransactionalStore(null);
		assertThatIllegalStateException()
			.isThrownBy(() -> ClaimPath.choose((name) -> onlyTransactional, (store) -> this.transactionManager, "",
					IdempotencyMode.LEASED, List.of("Payments#charge")))
			.withMessageContaining("Payments#charge")
			.withMessageContaining("has no leased mode");
	}

	@Test
	void transactionalModeOnALeasedStoreFails() {
		assertThatIllegalStateException()
			.isThrownBy(() -> ClaimPath.choose((name) -> this.leasedStore, (store) -> this.transactionManager, "",
					IdempotencyMode.TRANSACTIONAL, List.of("Payments#charge")))
			.withMessageContaining("mode = TRANSACTIONAL")
			.withMessageContaining("'in_memory' is leased");
	}

	@Test
	void leaseIsRenewedWhileASlowMethodRuns() throws Exception {
		assertThat(secondClaimWhileSlowMethodRuns(true)).as("claim of another delivery while the first runs")
			.isEqualTo(ClaimResult.inProgress());
	}

	@Test
	void withoutRenewalAnotherDeliveryTakesOverOnceTheLeaseEnds() throws Exception {
		assertThat(secondClaimWhileSlowMethodRuns(false).isClaimed()).as("taken over after the lease").isTrue();
	}

	/** Runs a method for four leases of 150 ms and claims its key from outside after three. */
	private ClaimResult secondClaimWhileSlowMethodRuns(boolean renew) throws Exception {
		Payments payments = proxyOn(this.leasedStore, null, renew, Duration.ofMillis(150));
		this.payments.slow = new CountDownLatch(1);
		ExecutorService executor = Executors.newSingleThreadExecutor();
		try {
			Future<?> run = executor.submit(() -> {
				deliver();
				return payments.charge("p-slow");
			});
			Thread.sleep(450);
			ClaimResult second = this.leasedStore.claim(key("p-slow"), Duration.ofMillis(150), RETENTION);
			Thread.sleep(150);
			this.payments.slow.countDown();
			run.get(5, TimeUnit.SECONDS);
			return second;
		}
		finally {
			executor.shutdownNow();
		}
	}

	private Payments proxy(@Nullable PlatformTransactionManager transactionManager, boolean renew, Duration lease) {
		return proxyOn(this.transactionalStore, transactionManager, renew, lease);
	}

	@SuppressWarnings("unchecked")
	private Payments proxyOn(IdempotencyStore store, @Nullable PlatformTransactionManager transactionManager,
			boolean renew, Duration lease) {
		IdempotencyDefaults defaults = new IdempotencyDefaults(RETENTION, lease, Duration.ZERO, renew, null, false);
		IdempotencyInterceptor interceptor = IdempotencyInterceptor
			.builder(defaults, (name) -> store, (candidate) -> transactionManager)
			.listeners(() -> List.of(this.listener))
			.build();
		ProxyFactory factory = new ProxyFactory(this.payments);
		factory.setProxyTargetClass(true);
		factory.addAdvisor(new IdempotentAdvisor(() -> interceptor, 0));
		return (Payments) factory.getProxy();
	}

	private void deliver() {
		DeliveryContextHolder.set(new DeliveryContext("m-1", null, Map.of(), this.acknowledger, List.of()));
	}

	private static IdempotencyKey key(String value) {
		return new IdempotencyKey("payments", value);
	}

	static class Payments {

		final List<String> charged = new CopyOnWriteArrayList<>();

		final List<Boolean> inTransaction = new CopyOnWriteArrayList<>();

		volatile boolean failNext;

		volatile @Nullable CountDownLatch slow;

		@Idempotent(key = "#id", namespace = "payments", mode = IdempotencyMode.LEASED)
		public @Nullable String charge(String id) {
			this.inTransaction.add(TransactionSynchronizationManager.isActualTransactionActive());
			CountDownLatch slow = this.slow;
			if (slow != null) {
				try {
					slow.await(5, TimeUnit.SECONDS);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					throw new IllegalStateException(ex);
				}
			}
			if (this.failNext) {
				this.failNext = false;
				throw new IllegalStateException("provider refused");
			}
			this.charged.add(id);
			return "charged-" + id;
		}

	}

	/** Stands for the JDBC store: claims in the transaction, and has a leased companion. */
	static final class TransactionalStore implements IdempotencyStore {

		private final @Nullable IdempotencyStore leased;

		int claims;

		TransactionalStore(@Nullable IdempotencyStore leased) {
			this.leased = leased;
		}

		@Override
		public ClaimResult claim(IdempotencyKey key, Duration lease, Duration retention) {
			this.claims++;
			return ClaimResult.claimedInTransaction();
		}

		@Override
		public boolean isTransactional() {
			return true;
		}

		@Override
		public @Nullable IdempotencyStore leased() {
			return this.leased;
		}

		@Override
		public String name() {
			return "jdbc";
		}

	}

	static final class NoTransactionManagers implements IdempotencyTransactionManagerResolver {

		@Override
		public @Nullable PlatformTransactionManager resolve(IdempotencyStore store) {
			throw new IdempotencyTransactionManagerException(store.name(), "a DataSource", null, List.of());
		}

		@Override
		public boolean hasTransactionManagers() {
			return false;
		}

	}

}
