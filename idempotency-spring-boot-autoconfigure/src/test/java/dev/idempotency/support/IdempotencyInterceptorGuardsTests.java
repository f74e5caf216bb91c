package dev.idempotency.support;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import dev.idempotency.annotation.Idempotent;
import dev.idempotency.annotation.OnDuplicate;
import dev.idempotency.core.DeliveryContext;
import dev.idempotency.core.DeliveryContextHolder;
import dev.idempotency.core.DuplicateFilter;
import dev.idempotency.core.DuplicateFilterListener;
import dev.idempotency.core.DuplicateMessageException;
import dev.idempotency.core.IdempotencyEvent;
import dev.idempotency.core.IdempotencyInProgressException;
import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.core.IdempotencyLock;
import dev.idempotency.core.IdempotencyOutcome;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.aop.framework.ProxyFactory;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.transaction.TransactionDefinition;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * The claim guards in {@link IdempotentInvocation}: a filter's {@code COMPLETED} skips the store and
 * the transaction, filters learn only committed (or duplicate) keys, a store-confirmed "maybe" is a
 * false positive, and the lock is held around the transaction.
 */
class IdempotencyInterceptorGuardsTests {

	private static final IdempotencyDefaults DEFAULTS = new IdempotencyDefaults(Duration.ofDays(1),
			Duration.ofMinutes(1), Duration.ZERO, true, null, false);

	private final CountingTransactionManager transactionManager = new CountingTransactionManager();

	private final InMemoryIdempotencyStore store = new InMemoryIdempotencyStore();

	private final ScriptedFilter filter = new ScriptedFilter();

	private final List<IdempotencyEvent> events = new CopyOnWriteArrayList<>();

	private final List<String> falsePositives = new CopyOnWriteArrayList<>();

	private final AtomicInteger acknowledged = new AtomicInteger();

	private final List<String> lockEvents = new CopyOnWriteArrayList<>();

	private final Orders target = new Orders();

	@AfterEach
	void clear() {
		DeliveryContextHolder.clear();
	}

	@Test
	void aKeyAFilterKnowsCompletedIsAcknowledgedWithoutATransactionOrTheStore() {
		this.filter.completed.add("o-1");
		Orders orders = proxy(null);
		deliver("o-1");
		orders.apply("o-1");
		assertThat(this.target.applied).isEmpty();
		assertThat(this.transactionManager.begun).hasValue(0);
		assertThat(this.acknowledged).hasValue(1);
		assertThat(this.events).extracting(IdempotencyEvent::outcome).containsExactly(IdempotencyOutcome.DUPLICATE);
		assertThat(this.filter.learned).isEmpty();
	}

	@Test
	void onDuplicateThrowStillThrowsWhenAFilterAnswers() {
		this.filter.completed.add("o-1");
		Orders orders = proxy(null);
		deliver("o-1");
		assertThatExceptionOfType(DuplicateMessageException.class).isThrownBy(() -> orders.applyOrThrow("o-1"));
		assertThat(this.acknowledged).hasValue(0);
		assertThat(this.transactionManager.begun).hasValue(0);
	}

	@Test
	void aCommittedKeyIsLearnedAfterCommitAndAStoreDuplicateToo() {
		Orders orders = proxy(null);
		deliver("o-1");
		orders.apply("o-1");
		deliver("o-1");
		orders.apply("o-1");
		assertThat(this.target.applied).containsExactly("o-1");
		assertThat(this.transactionManager.begun).hasValue(2);
		// Processed, then found completed by the store: both teach the filter.
		assertThat(this.filter.learned).containsExactly("o-1", "o-1");
	}

	@Test
	void aRolledBackKeyIsNotLearned() {
		Orders orders = proxy(null);
		deliver("boom");
		assertThatIllegalStateException().isThrownBy(() -> orders.apply("boom"));
		assertThat(this.filter.learned).isEmpty();
		assertThat(this.acknowledged).hasValue(0);
	}

	@Test
	void aMaybeThatTheStoreClaimsAsNewIsAFalsePositive() {
		this.filter.maybe.add("o-2");
		Orders orders = proxy(null);
		deliver("o-2");
		orders.apply("o-2");
		assertThat(this.target.applied).containsExactly("o-2");
		assertThat(this.falsePositives).containsExactly("scripted");
	}

	@Test
	void aFilterThatFailsPassesTheKeyOnToTheStore() {
		this.filter.failing = true;
		Orders orders = proxy(null);
		deliver("o-3");
		orders.apply("o-3");
		assertThat(this.target.applied).containsExactly("o-3");
		assertThat(this.acknowledged).hasValue(1);
	}

	@Test
	void theLockIsHeldAroundTheTransactionAndReleasedAfterCommitOrRollback() {
		IdempotencyLock lock = (keys, lease) -> {
			this.lockEvents.add("lock " + keys.get(0).value() + " tx=" + this.transactionManager.begun.get());
			return () -> this.lockEvents.add("unlock " + keys.get(0).value() + " tx=" + this.transactionManager.ended.get());
		};
		Orders orders = proxy(lock);
		deliver("o-4");
		orders.apply("o-4");
		deliver("boom");
		assertThatIllegalStateException().isThrownBy(() -> orders.apply("boom"));
		assertThat(this.lockEvents).containsExactly("lock o-4 tx=0", "unlock o-4 tx=1", "lock boom tx=1",
				"unlock boom tx=2");
	}

	@Test
	void aLockHeldElsewhereIsInProgressWithoutATransaction() {
		IdempotencyLock lock = (keys, lease) -> {
			throw new IdempotencyInProgressException(keys.get(0), lease);
		};
		Orders orders = proxy(lock);
		deliver("o-5");
		assertThatExceptionOfType(IdempotencyInProgressException.class).isThrownBy(() -> orders.apply("o-5"));
		assertThat(this.transactionManager.begun).hasValue(0);
		assertThat(this.events).extracting(IdempotencyEvent::outcome).containsExactly(IdempotencyOutcome.IN_PROGRESS);
	}

	private Orders proxy(IdempotencyLock lock) {
		DuplicateFilterListener listener = new DuplicateFilterListener() {
			@Override
			public void onFilterFalsePositive(String name) {
				IdempotencyInterceptorGuardsTests.this.falsePositives.add(name);
			}
		};
		DuplicateFilterChain chain = new DuplicateFilterChain(List.of(this.filter), Set.of(),
				() -> List.of(listener));
		IdempotencyInterceptor interceptor = IdempotencyInterceptor
			.builder(DEFAULTS, (name) -> this.store, (store) -> this.transactionManager)
			.listeners(() -> List.of(this.events::add))
			.guards(() -> new ClaimGuards(chain, lock))
			.build();
		ProxyFactory factory = new ProxyFactory(this.target);
		factory.setProxyTargetClass(true);
		factory.addAdvisor(new IdempotentAdvisor(() -> interceptor, 0));
		return (Orders) factory.getProxy();
	}

	private void deliver(String messageId) {
		DeliveryContextHolder.set(new DeliveryContext(messageId, "orders", Map.of(),
				this.acknowledged::incrementAndGet, List.of()));
	}

	static class Orders {

		final List<String> applied = new CopyOnWriteArrayList<>();

		@Idempotent(key = "#p0", namespace = "orders")
		public void apply(String orderId) {
			if (orderId.equals("boom")) {
				throw new IllegalStateException("boom");
			}
			this.applied.add(orderId);
		}

		@Idempotent(key = "#p0", namespace = "orders", onDuplicate = OnDuplicate.THROW)
		public void applyOrThrow(String orderId) {
			this.applied.add(orderId);
		}

	}

	/** Answers from lists the test fills; records what it learns. */
	static final class ScriptedFilter implements DuplicateFilter {

		final List<String> completed = new ArrayList<>();

		final List<String> maybe = new ArrayList<>();

		final List<String> learned = new CopyOnWriteArrayList<>();

		boolean failing;

		@Override
		public String name() {
			return "scripted";
		}

		@Override
		public Answer check(IdempotencyKey key) {
			if (this.failing) {
				throw new IllegalStateException("filter down");
			}
			if (this.completed.contains(key.value())) {
				return Answer.COMPLETED;
			}
			return this.maybe.contains(key.value()) ? Answer.MAYBE : Answer.UNKNOWN;
		}

		@Override
		public void learn(IdempotencyKey key) {
			this.learned.add(key.value());
		}

	}

	/** An H2 transaction manager that counts the transactions it began and ended. */
	static final class CountingTransactionManager extends DataSourceTransactionManager {

		final AtomicInteger begun = new AtomicInteger();

		final AtomicInteger ended = new AtomicInteger();

		CountingTransactionManager() {
			super(new DriverManagerDataSource("jdbc:h2:mem:guards;DB_CLOSE_DELAY=-1", "sa", ""));
		}

		@Override
		protected void doBegin(Object transaction, TransactionDefinition definition) {
			this.begun.incrementAndGet();
			super.doBegin(transaction, definition);
		}

		@Override
		protected void doCleanupAfterCompletion(Object transaction) {
			this.ended.incrementAndGet();
			super.doCleanupAfterCompletion(transaction);
		}

	}

}
