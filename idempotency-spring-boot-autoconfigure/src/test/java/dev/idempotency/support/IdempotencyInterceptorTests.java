package dev.idempotency.support;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.stream.Collectors;

import dev.idempotency.annotation.Idempotent;
import dev.idempotency.annotation.OnDuplicate;
import dev.idempotency.core.ClaimResult;
import dev.idempotency.core.ClaimResult.Status;
import dev.idempotency.core.CompletingAcknowledger;
import dev.idempotency.core.DeliveryContext;
import dev.idempotency.core.DeliveryContextHolder;
import dev.idempotency.core.DuplicateMessageException;
import dev.idempotency.core.IdempotencyEvent;
import dev.idempotency.core.IdempotencyInProgressException;
import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.core.IdempotencyListener;
import dev.idempotency.core.IdempotencyOutcome;
import dev.idempotency.core.IdempotencyStore;
import dev.idempotency.core.IdempotentBatchFailedException;
import dev.idempotency.core.InvalidIdempotencyKeyException;
import dev.idempotency.core.MessageAcknowledger;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.aop.framework.ProxyFactory;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.TransactionSystemException;
import org.springframework.transaction.support.AbstractPlatformTransactionManager;
import org.springframework.transaction.support.DefaultTransactionStatus;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;
import org.springframework.util.Assert;
import org.springframework.util.StringValueResolver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.BDDMockito.given;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.verify;

/**
 * Tests for {@link IdempotencyInterceptor}, applied through {@link IdempotentAdvisor} to a proxied
 * target: without a transaction manager, with an H2 {@link DataSourceTransactionManager} and a
 * leased (in-memory) store, and with an H2 transaction manager and a store that claims inside the
 * transaction.
 */
class IdempotencyInterceptorTests {

	private static final Duration LEASE = Duration.ofMinutes(5);

	private static final Duration RETENTION = Duration.ofDays(7);

	private static final IdempotencyDefaults DEFAULTS = new IdempotencyDefaults(RETENTION, LEASE, Duration.ZERO, true,
			null, false);

	private static final StringValueResolver VERBATIM = (value) -> value;

	private final RecordingListener listener = new RecordingListener();

	private final CountingAcknowledger acknowledger = new CountingAcknowledger();

	private final InMemoryIdempotencyStore inMemoryStore = new InMemoryIdempotencyStore();

	private final Orders orders = new Orders();

	private String url;

	private DriverManagerDataSource dataSource;

	private JdbcTemplate jdbc;

	private Ledger ledgerTarget;

	@BeforeEach
	void createDatabase() {
		this.url = "jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
		this.dataSource = new DriverManagerDataSource(this.url, "sa", "");
		this.jdbc = new JdbcTemplate(this.dataSource);
		this.jdbc.execute("create table ledger (id varchar(64) primary key)");
		this.jdbc.execute("create table dedup (namespace varchar(255) not null, idempotency_key varchar(255) not null, "
				+ "primary key (namespace, idempotency_key))");
		this.ledgerTarget = new Ledger(this.jdbc, this::countCommittedRows);
	}

	@AfterEach
	void clearDeliveryAndDatabase() {
		DeliveryContextHolder.clear();
		this.jdbc.execute("shutdown");
		assertThat(TransactionSynchronizationManager.isSynchronizationActive()).as("synchronization left active")
			.isFalse();
		assertThat(TransactionSynchronizationManager.getResourceMap()).as("resources left bound").isEmpty();
	}

	// --- duplicates -------------------------------------------------------------------------

	@ParameterizedTest
	@EnumSource
	void duplicateIsAcknowledgedAndSkipped(Mode mode) {
		Orders orders = orders(mode);
		deliver("m-1", null);
		orders.onOrder(new OrderPlaced("o-1"));
		orders.onOrder(new OrderPlaced("o-1"));
		assertThat(this.orders.handled).containsExactly("o-1");
		assertThat(this.acknowledger.count()).isEqualTo(2);
		assertThat(this.listener.outcomes()).containsExactly(IdempotencyOutcome.PROCESSED,
				IdempotencyOutcome.DUPLICATE);
		assertThat(this.listener.events).allSatisfy((event) -> {
			assertThat(event.key()).isEqualTo("o-1");
			assertThat(event.namespace()).isEqualTo("Orders#onOrder");
			assertThat(event.store()).isEqualTo(store(mode).name());
			assertThat(event.failure()).isNull();
		});
	}

	@ParameterizedTest
	@EnumSource
	void differentKeysAreEachProcessed(Mode mode) {
		Orders orders = orders(mode);
		deliver("m-1", null);
		orders.onOrder(new OrderPlaced("o-1"));
		orders.onOrder(new OrderPlaced("o-2"));
		assertThat(this.orders.handled).containsExactly("o-1", "o-2");
		assertThat(this.listener.outcomes()).containsExactly(IdempotencyOutcome.PROCESSED,
				IdempotencyOutcome.PROCESSED);
	}

	@ParameterizedTest
	@EnumSource
	void skippedCallReturnsOptionalEmptyForOptionalAndDefaultForPrimitives(Mode mode) {
		Orders orders = orders(mode);
		assertThat(orders.find("k")).contains("found-k");
		assertThat(orders.count("k")).isEqualTo(42L);
		assertThat(orders.accept("k")).isTrue();
		assertThat(orders.score("k")).isEqualTo(7);
		assertThat(orders.describe("k")).isEqualTo("described-k");
		assertThat(orders.find("k")).isEmpty();
		assertThat(orders.count("k")).isZero();
		assertThat(orders.accept("k")).isFalse();
		assertThat(orders.score("k")).isZero();
		assertThat(orders.describe("k")).isNull();
		assertThat(this.orders.handled).hasSize(5);
	}

	@ParameterizedTest
	@EnumSource
	void onDuplicateThrowRaisesDuplicateMessageExceptionWithoutAcknowledging(Mode mode) {
		Orders orders = orders(mode);
		deliver("m-1", null);
		orders.strict("k");
		assertThat(this.acknowledger.count()).isOne();
		assertThatExceptionOfType(DuplicateMessageException.class).isThrownBy(() -> orders.strict("k"))
			.satisfies((ex) -> assertThat(ex.getKey()).isEqualTo(new IdempotencyKey("Orders#strict", "k")));
		assertThat(this.acknowledger.count()).isOne();
		assertThat(this.orders.handled).containsExactly("k");
		assertThat(this.listener.last().outcome()).isEqualTo(IdempotencyOutcome.DUPLICATE);
		assertThat(this.listener.last().failure()).isInstanceOf(DuplicateMessageException.class);
	}

	// --- keys -------------------------------------------------------------------------------

	@ParameterizedTest
	@EnumSource
	void missingKeyIsRejectedWithoutCallingTheMethod(Mode mode) {
		IdempotencyStore store = mockStore("mock", false);
		Orders orders = proxy(this.orders, interceptor(store, transactionManager(mode)));
		deliver("m-1", null);
		assertThatExceptionOfType(InvalidIdempotencyKeyException.class)
			.isThrownBy(() -> orders.onOrder(new OrderPlaced(null)))
			.withMessageContaining("#msg.orderId");
		assertThat(this.orders.handled).isEmpty();
		assertThat(this.acknowledger.count()).isZero();
		verify(store, never()).claim(any(), any(), any());
		IdempotencyEvent event = this.listener.single();
		assertThat(event.outcome()).isEqualTo(IdempotencyOutcome.REJECTED);
		assertThat(event.key()).isNull();
		assertThat(event.namespace()).isEqualTo("Orders#onOrder");
		assertThat(event.failure()).isInstanceOf(InvalidIdempotencyKeyException.class);
	}

	@Test
	void keyExpressionThatFailsIsRejected() {
		Orders orders = orders(Mode.IN_MEMORY_STORE_WITHOUT_TRANSACTION_MANAGER);
		assertThatExceptionOfType(InvalidIdempotencyKeyException.class).isThrownBy(() -> orders.broken("k"));
		assertThat(this.orders.handled).isEmpty();
		assertThat(this.listener.single().outcome()).isEqualTo(IdempotencyOutcome.REJECTED);
	}

	@ParameterizedTest
	@EnumSource
	void emptyKeyUsesTheDeliveryMessageId(Mode mode) {
		Orders orders = orders(mode);
		deliver("orders:0:17", null);
		orders.byMessageId("first payload");
		orders.byMessageId("same message, redelivered");
		deliver("orders:0:18", null);
		orders.byMessageId("next message");
		assertThat(this.orders.handled).containsExactly("first payload", "next message");
		assertThat(this.listener.events).extracting(IdempotencyEvent::key)
			.containsExactly("orders:0:17", "orders:0:17", "orders:0:18");
		assertThat(this.acknowledger.count()).isEqualTo(3);
	}

	@Test
	void emptyKeyWithoutDeliveryIsRejected() {
		Orders orders = orders(Mode.IN_MEMORY_STORE_WITHOUT_TRANSACTION_MANAGER);
		assertThatExceptionOfType(InvalidIdempotencyKeyException.class)
			.isThrownBy(() -> orders.byMessageId("payload"))
			.withMessageContaining("no message id");
		assertThat(this.orders.handled).isEmpty();
		assertThat(this.listener.single().outcome()).isEqualTo(IdempotencyOutcome.REJECTED);
	}

	@Test
	void emptyKeyWithADeliveryWithoutMessageIdIsRejected() {
		Orders orders = orders(Mode.IN_MEMORY_STORE_WITHOUT_TRANSACTION_MANAGER);
		deliver(null, "points");
		assertThatExceptionOfType(InvalidIdempotencyKeyException.class)
			.isThrownBy(() -> orders.byMessageId("payload"));
		assertThat(this.orders.handled).isEmpty();
		assertThat(this.acknowledger.count()).isZero();
		assertThat(this.listener.single().outcome()).isEqualTo(IdempotencyOutcome.REJECTED);
		assertThat(this.listener.single().namespace()).isEqualTo("points:Orders#byMessageId");
	}

	// --- namespaces -------------------------------------------------------------------------

	/** The delivery's group alone would let two listener methods of one group share keys. */
	@Test
	void namespaceComesFromAnnotationThenDeliveryGroupAndMethodThenClassAndMethod() {
		Orders orders = orders(Mode.IN_MEMORY_STORE_WITHOUT_TRANSACTION_MANAGER);
		deliver("m-1", "points-group");
		orders.namespaced("k");
		orders.onOrder(new OrderPlaced("k"));
		DeliveryContextHolder.clear();
		orders.onOrder(new OrderPlaced("k"));
		assertThat(this.listener.events).extracting(IdempotencyEvent::namespace)
			.containsExactly("payments", "points-group:Orders#onOrder", "Orders#onOrder");
		assertThat(this.listener.outcomes()).containsOnly(IdempotencyOutcome.PROCESSED);
	}

	@Test
	void blankDeliveryNamespaceFallsBackToClassAndMethod() {
		Orders orders = orders(Mode.IN_MEMORY_STORE_WITHOUT_TRANSACTION_MANAGER);
		deliver("m-1", " ");
		orders.onOrder(new OrderPlaced("k"));
		assertThat(this.listener.single().namespace()).isEqualTo("Orders#onOrder");
	}

	@Test
	void namespaceIsPartOfTheClaimedKey() {
		Orders orders = orders(Mode.IN_MEMORY_STORE_WITHOUT_TRANSACTION_MANAGER);
		deliver("m-1", "points-group");
		orders.namespaced("k");
		assertThat(this.inMemoryStore.claim(new IdempotencyKey("payments", "k"), LEASE, RETENTION).status())
			.isEqualTo(Status.DUPLICATE);
		assertThat(this.inMemoryStore.claim(new IdempotencyKey("points-group", "k"), LEASE, RETENTION).status())
			.isEqualTo(Status.CLAIMED);
	}

	// --- failures ---------------------------------------------------------------------------

	@ParameterizedTest
	@EnumSource
	void failureIsRethrownNotAcknowledgedAndReleasesALeasedClaim(Mode mode) {
		Orders orders = orders(mode);
		this.orders.failuresLeft = 1;
		deliver("m-1", null);
		assertThatIllegalStateException().isThrownBy(() -> orders.onOrderFlaky(new OrderPlaced("o-1")))
			.isSameAs(this.orders.lastFailure);
		assertThat(this.acknowledger.count()).isZero();
		assertThat(this.listener.last().outcome()).isEqualTo(IdempotencyOutcome.FAILED);
		assertThat(this.listener.last().failure()).isSameAs(this.orders.lastFailure);
		orders.onOrderFlaky(new OrderPlaced("o-1"));
		assertThat(this.orders.handled).containsExactly("o-1", "o-1");
		assertThat(this.acknowledger.count()).isOne();
		assertThat(this.listener.outcomes()).containsExactly(IdempotencyOutcome.FAILED, IdempotencyOutcome.PROCESSED);
	}

	@ParameterizedTest
	@EnumSource(names = "H2_TRANSACTIONAL_STORE", mode = EnumSource.Mode.EXCLUDE)
	void keyInProgressElsewhereThrowsIdempotencyInProgressException(Mode mode) {
		IdempotencyKey key = new IdempotencyKey("Orders#onOrder", "o-1");
		ClaimResult elsewhere = this.inMemoryStore.claim(key, LEASE, RETENTION);
		Orders orders = orders(mode);
		deliver("m-1", null);
		assertThatExceptionOfType(IdempotencyInProgressException.class)
			.isThrownBy(() -> orders.onOrder(new OrderPlaced("o-1")));
		assertThat(this.orders.handled).isEmpty();
		assertThat(this.acknowledger.count()).isZero();
		assertThat(this.listener.single().outcome()).isEqualTo(IdempotencyOutcome.IN_PROGRESS);
		assertThat(this.listener.single().failure()).isInstanceOf(IdempotencyInProgressException.class);
		// The other worker's claim is left alone: when it completes, the redelivery is a duplicate.
		this.inMemoryStore.complete(key, elsewhere, RETENTION);
		orders.onOrder(new OrderPlaced("o-1"));
		assertThat(this.orders.handled).isEmpty();
		assertThat(this.acknowledger.count()).isOne();
		assertThat(this.listener.last().outcome()).isEqualTo(IdempotencyOutcome.DUPLICATE);
	}

	@Test
	void concurrentDeliveriesOfOneKeyRunTheMethodOnce() throws Exception {
		Orders orders = orders(Mode.IN_MEMORY_STORE_WITHOUT_TRANSACTION_MANAGER);
		this.orders.entered = new CountDownLatch(1);
		this.orders.proceed = new CountDownLatch(1);
		CompletableFuture<Void> first = CompletableFuture
			.runAsync(() -> orders.onOrderSlowly(new OrderPlaced("o-1")));
		assertThat(this.orders.entered.await(10, TimeUnit.SECONDS)).isTrue();
		assertThatExceptionOfType(IdempotencyInProgressException.class)
			.isThrownBy(() -> orders.onOrderSlowly(new OrderPlaced("o-1")));
		this.orders.proceed.countDown();
		first.get(10, TimeUnit.SECONDS);
		orders.onOrderSlowly(new OrderPlaced("o-1"));
		assertThat(this.orders.handled).containsExactly("o-1");
		assertThat(this.listener.outcomes()).containsExactlyInAnyOrder(IdempotencyOutcome.PROCESSED,
				IdempotencyOutcome.IN_PROGRESS, IdempotencyOutcome.DUPLICATE);
	}

	@ParameterizedTest
	@EnumSource
	void acknowledgementFailurePropagatesAndTheRedeliveryIsADuplicate(Mode mode) {
		Orders orders = orders(mode);
		DeliveryContextHolder.set(new DeliveryContext("m-1", null, Map.of(), () -> {
			throw new IllegalStateException("broker gone");
		}, List.of()));
		assertThatIllegalStateException().isThrownBy(() -> orders.onOrder(new OrderPlaced("o-1")))
			.withMessage("broker gone");
		deliver("m-1", null);
		orders.onOrder(new OrderPlaced("o-1"));
		assertThat(this.orders.handled).containsExactly("o-1");
		assertThat(this.acknowledger.count()).isOne();
		assertThat(this.listener.outcomes()).containsExactly(IdempotencyOutcome.PROCESSED,
				IdempotencyOutcome.DUPLICATE);
	}

	@ParameterizedTest
	@EnumSource
	void deliveryWhoseContainerAcknowledgesByItselfIsProcessedAndDeduplicated(Mode mode) {
		Orders orders = orders(mode);
		DeliveryContextHolder.set(new DeliveryContext("m-1", "points", Map.of(), null, List.of()));
		orders.onOrder(new OrderPlaced("o-1"));
		orders.onOrder(new OrderPlaced("o-1"));
		assertThat(this.orders.handled).containsExactly("o-1");
		assertThat(this.listener.outcomes()).containsExactly(IdempotencyOutcome.PROCESSED,
				IdempotencyOutcome.DUPLICATE);
	}

	@Test
	void completingAcknowledgerCompletesAndAcknowledgesInOneStepInsteadOfTheStore() {
		List<String> steps = new ArrayList<>();
		Orders orders = proxy(this.orders, interceptor(this.inMemoryStore, null));
		DeliveryContextHolder.set(new DeliveryContext("m-1", null, Map.of(), new CompletingAcknowledger() {
			@Override
			public boolean completeAndAcknowledge(IdempotencyStore store, IdempotencyKey key, ClaimResult claim,
					Duration retention) {
				steps.add("fused " + key.value() + " in " + store.name() + " for " + retention);
				return true;
			}

			@Override
			public void acknowledge() {
				steps.add("acknowledge");
			}
		}, List.of()));
		orders.onOrder(new OrderPlaced("o-1"));
		assertThat(steps).containsExactly("fused o-1 in in_memory for " + RETENTION);
		// This fake's fused step does not touch the store, so the key is still leased: proof that
		// the interceptor did not also complete it in the store.
		assertThatExceptionOfType(IdempotencyInProgressException.class)
			.isThrownBy(() -> orders.onOrder(new OrderPlaced("o-1")));
		assertThat(steps).hasSize(1);
	}

	@Test
	void completingAcknowledgerThatDeclinesLeavesCompletionToTheStore() {
		List<String> steps = new ArrayList<>();
		Orders orders = proxy(this.orders, interceptor(this.inMemoryStore, null));
		DeliveryContextHolder.set(new DeliveryContext("m-1", null, Map.of(), new CompletingAcknowledger() {
			@Override
			public boolean completeAndAcknowledge(IdempotencyStore store, IdempotencyKey key, ClaimResult claim,
					Duration retention) {
				steps.add("declined");
				return false;
			}

			@Override
			public void acknowledge() {
				steps.add("acknowledge");
			}
		}, List.of()));
		orders.onOrder(new OrderPlaced("o-1"));
		orders.onOrder(new OrderPlaced("o-1"));
		assertThat(steps).containsExactly("declined", "acknowledge", "acknowledge");
		assertThat(this.orders.handled).containsExactly("o-1");
	}

	// --- batches ----------------------------------------------------------------------------

	@ParameterizedTest
	@EnumSource
	void batchPassesOnlyUnprocessedMessagesAndAcknowledgesOnce(Mode mode) {
		Batches batches = proxy(new Batches(), interceptor(store(mode), transactionManager(mode)));
		deliverBatch("b-1", "b-2");
		batches.onOrders(new ArrayList<>(List.of("b-1", "b-2")));
		deliverBatch("b-2", "b-3", "b-3");
		batches.onOrders(new ArrayList<>(List.of("b-2", "b-3", "b-3")));
		assertThat(batches.calls()).containsExactly(List.of("b-1", "b-2"), List.of("b-3"));
		assertThat(this.acknowledger.count()).isEqualTo(2);
		assertThat(this.listener.outcomes()).containsExactly(IdempotencyOutcome.PROCESSED,
				IdempotencyOutcome.PROCESSED, IdempotencyOutcome.DUPLICATE, IdempotencyOutcome.PROCESSED,
				IdempotencyOutcome.DUPLICATE);
	}

	@ParameterizedTest
	@EnumSource
	void batchOfDuplicatesOnlyIsAcknowledgedWithoutCallingTheMethod(Mode mode) {
		Batches batches = proxy(new Batches(), interceptor(store(mode), transactionManager(mode)));
		deliverBatch("x");
		batches.onOrders(new ArrayList<>(List.of("x")));
		deliverBatch("x");
		batches.onOrders(new ArrayList<>(List.of("x")));
		assertThat(batches.calls()).hasSize(1);
		assertThat(this.acknowledger.count()).isEqualTo(2);
	}

	@ParameterizedTest
	@EnumSource
	void failedBatchIsRolledBackAsAWholeAndRunsAgainWhole(Mode mode) {
		Batches target = new Batches();
		Batches batches = proxy(target, interceptor(store(mode), transactionManager(mode)));
		deliverBatch("ok-1", "boom", "ok-2");
		assertThatExceptionOfType(IdempotentBatchFailedException.class)
			.isThrownBy(() -> batches.onOrders(new ArrayList<>(List.of("ok-1", "boom", "ok-2"))))
			.withRootCauseInstanceOf(IllegalStateException.class);
		assertThat(this.acknowledger.count()).isZero();
		target.failOn = "none";
		deliverBatch("ok-1", "boom", "ok-2");
		batches.onOrders(new ArrayList<>(List.of("ok-1", "boom", "ok-2")));
		assertThat(batches.calls()).last().isEqualTo(List.of("ok-1", "boom", "ok-2"));
		assertThat(this.listener.outcomes()).startsWith(IdempotencyOutcome.FAILED, IdempotencyOutcome.FAILED,
				IdempotencyOutcome.FAILED);
	}

	@ParameterizedTest
	@EnumSource
	void messageWithoutKeyInABatchLetsTheMessagesBeforeItCommitAndNamesItsIndex(Mode mode) {
		Batches batches = proxy(new Batches(), interceptor(store(mode), transactionManager(mode)));
		deliverBatch("a", "b", "", "c");
		assertThatExceptionOfType(InvalidIdempotencyKeyException.class)
			.isThrownBy(() -> batches.onOrders(new ArrayList<>(List.of("a", "b", "", "c"))))
			.satisfies((ex) -> assertThat(ex.getElementIndex()).isEqualTo(2));
		assertThat(batches.calls()).containsExactly(List.of("a", "b"));
		assertThat(this.acknowledger.count()).as("the transport commits the prefix itself").isZero();
		assertThat(this.listener.outcomes()).containsExactly(IdempotencyOutcome.PROCESSED,
				IdempotencyOutcome.PROCESSED, IdempotencyOutcome.REJECTED);
	}

	@Test
	void batchKeyExpressionSeesTheElementAndItsOwnMessageVariables() {
		Batches batches = proxy(new Batches(), interceptor(this.inMemoryStore, null));
		List<DeliveryContext> elements = List.of(
				new DeliveryContext("m-1", "ns", Map.of("record", "rec-1"), null, List.of()),
				new DeliveryContext("m-2", "ns", Map.of("record", "rec-2"), null, List.of()));
		DeliveryContextHolder.set(DeliveryContext.batch("ns", Map.of(), this.acknowledger, elements));
		batches.byRecord(new ArrayList<>(List.of("p-1", "p-2")));
		assertThat(this.listener.events).extracting(IdempotencyEvent::key).containsExactly("rec-1/p-1", "rec-2/p-2");
	}

	private void deliverBatch(String... keys) {
		List<DeliveryContext> elements = new ArrayList<>();
		for (String key : keys) {
			elements.add(new DeliveryContext(key, null, Map.of(), null, List.of()));
		}
		DeliveryContextHolder.set(DeliveryContext.batch(null, Map.of(), this.acknowledger, elements));
	}

	// --- transactions -----------------------------------------------------------------------

	@ParameterizedTest
	@EnumSource(names = { "IN_MEMORY_STORE_WITH_H2_TRANSACTION_MANAGER", "H2_TRANSACTIONAL_STORE" })
	void acknowledgementHappensAfterCommit(Mode mode) {
		Ledger ledger = ledger(mode);
		List<Integer> rowsSeenByAcknowledgement = new ArrayList<>();
		List<Thread> acknowledgingThreads = new ArrayList<>();
		DeliveryContextHolder.set(new DeliveryContext("m-1", null, Map.of(), () -> {
			rowsSeenByAcknowledgement.add(countCommittedRows("ledger"));
			acknowledgingThreads.add(Thread.currentThread());
		}, List.of()));
		ledger.credit("c-1");
		assertThat(this.ledgerTarget.rowsSeenElsewhereDuringMethod).as("insert is not committed while the method runs")
			.containsExactly(0);
		assertThat(rowsSeenByAcknowledgement).as("insert is committed when the delivery is acknowledged")
			.containsExactly(1);
		assertThat(acknowledgingThreads).containsExactly(Thread.currentThread());
	}

	@ParameterizedTest
	@EnumSource(names = { "IN_MEMORY_STORE_WITH_H2_TRANSACTION_MANAGER", "H2_TRANSACTIONAL_STORE" })
	void methodRunsInsideATransaction(Mode mode) {
		Ledger ledger = ledger(mode);
		ledger.credit("c-1");
		assertThat(this.ledgerTarget.transactionActiveDuringMethod).containsExactly(true);
	}

	@ParameterizedTest
	@EnumSource(names = { "IN_MEMORY_STORE_WITH_H2_TRANSACTION_MANAGER", "H2_TRANSACTIONAL_STORE" })
	void rollbackNeverAcknowledges(Mode mode) {
		Ledger ledger = ledger(mode);
		deliver("m-1", null);
		this.ledgerTarget.failAfterInsert = true;
		assertThatIllegalStateException().isThrownBy(() -> ledger.credit("c-1")).withMessage("failed after insert");
		assertThat(this.acknowledger.count()).isZero();
		assertThat(countCommittedRows("ledger")).isZero();
		assertThat(countCommittedRows("dedup")).isZero();
		assertThat(this.listener.single().outcome()).isEqualTo(IdempotencyOutcome.FAILED);
		this.ledgerTarget.failAfterInsert = false;
		ledger.credit("c-1");
		assertThat(this.acknowledger.count()).isOne();
		assertThat(countCommittedRows("ledger")).isOne();
	}

	@ParameterizedTest
	@EnumSource(names = { "IN_MEMORY_STORE_WITH_H2_TRANSACTION_MANAGER", "H2_TRANSACTIONAL_STORE" })
	void commitFailureNeverAcknowledges(Mode mode) {
		Orders orders = proxy(this.orders,
				interceptor(store(mode), new FailingCommitTransactionManager(this.dataSource)));
		deliver("m-1", null);
		assertThatExceptionOfType(TransactionSystemException.class)
			.isThrownBy(() -> orders.onOrder(new OrderPlaced("o-1")));
		assertThat(this.acknowledger.count()).isZero();
		assertThat(this.listener.single().outcome()).isEqualTo(IdempotencyOutcome.FAILED);
	}

	@Test
	void commitWithUnknownOutcomeKeepsTheLeasedClaimUntilItsLeaseEnds() {
		Orders orders = proxy(this.orders,
				interceptor(this.inMemoryStore, new FailingCommitTransactionManager(this.dataSource)));
		deliver("m-1", null);
		assertThatExceptionOfType(TransactionSystemException.class)
			.isThrownBy(() -> orders.onOrder(new OrderPlaced("o-1")));
		assertThat(this.inMemoryStore.claim(new IdempotencyKey("Orders#onOrder", "o-1"), LEASE, RETENTION).status())
			.isEqualTo(Status.IN_PROGRESS);
	}

	@ParameterizedTest
	@EnumSource(names = { "IN_MEMORY_STORE_WITH_H2_TRANSACTION_MANAGER", "H2_TRANSACTIONAL_STORE" })
	void insideAnOuterTransactionAcknowledgementWaitsForTheOuterCommit(Mode mode) {
		Ledger ledger = ledger(mode);
		deliver("m-1", null);
		new TransactionTemplate(new DataSourceTransactionManager(this.dataSource)).executeWithoutResult((status) -> {
			ledger.credit("c-1");
			assertThat(this.acknowledger.count()).isZero();
			assertThat(this.listener.events).isEmpty();
		});
		assertThat(this.acknowledger.count()).isOne();
		assertThat(countCommittedRows("ledger")).isOne();
		assertThat(this.listener.single().outcome()).isEqualTo(IdempotencyOutcome.PROCESSED);
	}

	@ParameterizedTest
	@EnumSource(names = { "IN_MEMORY_STORE_WITH_H2_TRANSACTION_MANAGER", "H2_TRANSACTIONAL_STORE" })
	void outerRollbackNeverAcknowledgesAndLetsTheRedeliveryRun(Mode mode) {
		Ledger ledger = ledger(mode);
		deliver("m-1", null);
		new TransactionTemplate(new DataSourceTransactionManager(this.dataSource)).executeWithoutResult((status) -> {
			ledger.credit("c-1");
			status.setRollbackOnly();
		});
		assertThat(this.acknowledger.count()).isZero();
		assertThat(countCommittedRows("ledger")).isZero();
		assertThat(this.listener.single().outcome()).isEqualTo(IdempotencyOutcome.FAILED);
		ledger.credit("c-1");
		assertThat(this.acknowledger.count()).isOne();
		assertThat(countCommittedRows("ledger")).isOne();
	}

	@Test
	void transactionalStoreWithoutTransactionManagerFailsClearly() {
		IdempotencyStore store = mockStore("jdbc", true);
		Orders orders = proxy(this.orders, interceptor(store, null));
		deliver("m-1", null);
		assertThatIllegalStateException().isThrownBy(() -> orders.onOrder(new OrderPlaced("o-1")))
			.withMessageContaining("'jdbc'")
			.withMessageContaining("no PlatformTransactionManager");
		assertThat(this.orders.handled).isEmpty();
		assertThat(this.acknowledger.count()).isZero();
		verify(store, never()).claim(any(), any(), any());
		assertThat(this.listener.single().outcome()).isEqualTo(IdempotencyOutcome.FAILED);
	}

	@Test
	void transactionManagerWithoutSynchronizationFailsClearly() {
		DataSourceTransactionManager transactionManager = new DataSourceTransactionManager(this.dataSource);
		transactionManager.setTransactionSynchronization(AbstractPlatformTransactionManager.SYNCHRONIZATION_NEVER);
		IdempotencyStore store = mockStore("mock", false);
		Orders orders = proxy(this.orders, interceptor(store, transactionManager));
		deliver("m-1", null);
		assertThatIllegalStateException().isThrownBy(() -> orders.onOrder(new OrderPlaced("o-1")))
			.withMessageContaining("synchronization");
		assertThat(this.orders.handled).isEmpty();
		assertThat(this.acknowledger.count()).isZero();
		verify(store, never()).claim(any(), any(), any());
	}

	@Test
	void transactionTimeoutFromTheDefaultsIsApplied() {
		RecordingTransactionManager transactionManager = new RecordingTransactionManager(this.dataSource);
		IdempotencyDefaults defaults = new IdempotencyDefaults(RETENTION, LEASE, Duration.ofSeconds(30), true, null,
				false);
		Orders orders = proxy(this.orders, IdempotencyInterceptor
			.builder(defaults, (name) -> this.inMemoryStore, (store) -> transactionManager)
			.listeners(() -> List.of(this.listener))
			.placeholders(VERBATIM)
			.build());
		orders.onOrder(new OrderPlaced("o-1"));
		assertThat(transactionManager.definitions).singleElement().satisfies((definition) -> {
			assertThat(definition.getTimeout()).isEqualTo(30);
			assertThat(definition.getName()).isEqualTo("@Idempotent Orders#onOrder");
			assertThat(definition.getPropagationBehavior()).isEqualTo(TransactionDefinition.PROPAGATION_REQUIRED);
		});
	}

	@Test
	void zeroTransactionTimeoutLeavesTheTransactionManagersDefault() {
		RecordingTransactionManager transactionManager = new RecordingTransactionManager(this.dataSource);
		Orders orders = proxy(this.orders, interceptor(this.inMemoryStore, transactionManager));
		orders.onOrder(new OrderPlaced("o-1"));
		assertThat(transactionManager.definitions).singleElement()
			.satisfies((definition) -> assertThat(definition.getTimeout())
				.isEqualTo(TransactionDefinition.TIMEOUT_DEFAULT));
	}

	// --- listeners --------------------------------------------------------------------------

	@ParameterizedTest
	@EnumSource
	void listenerExceptionDoesNotChangeTheOutcome(Mode mode) {
		IdempotencyListener throwing = (event) -> {
			throw new IllegalStateException("listener broke");
		};
		Orders orders = proxy(this.orders, IdempotencyInterceptor
			.builder(DEFAULTS, (name) -> store(mode), (store) -> transactionManager(mode))
			.listeners(() -> List.of(throwing, this.listener))
			.placeholders(VERBATIM)
			.build());
		deliver("m-1", null);
		this.orders.failuresLeft = 1;
		assertThatIllegalStateException().isThrownBy(() -> orders.onOrderFlaky(new OrderPlaced("o-1")))
			.isSameAs(this.orders.lastFailure);
		orders.onOrderFlaky(new OrderPlaced("o-1"));
		orders.onOrderFlaky(new OrderPlaced("o-1"));
		assertThat(this.orders.handled).containsExactly("o-1", "o-1");
		assertThat(this.acknowledger.count()).isEqualTo(2);
		assertThat(this.listener.outcomes()).containsExactly(IdempotencyOutcome.FAILED,
				IdempotencyOutcome.PROCESSED, IdempotencyOutcome.DUPLICATE);
	}

	@ParameterizedTest
	@EnumSource(names = "H2_TRANSACTIONAL_STORE", mode = EnumSource.Mode.EXCLUDE)
	void everyInvocationEndsInExactlyOneOutcome(Mode mode) {
		Orders orders = orders(mode);
		this.inMemoryStore.claim(new IdempotencyKey("Orders#onOrder", "held-elsewhere"), LEASE, RETENTION);
		this.orders.failuresLeft = 1;
		deliver("m-1", null);
		List<Runnable> calls = List.of(() -> orders.onOrder(new OrderPlaced("o-1")),
				() -> orders.onOrder(new OrderPlaced("o-1")), () -> orders.onOrderFlaky(new OrderPlaced("o-2")),
				() -> orders.onOrderFlaky(new OrderPlaced("o-2")), () -> orders.onOrder(new OrderPlaced(null)),
				() -> orders.onOrder(new OrderPlaced("held-elsewhere")), () -> orders.strict("s"),
				() -> orders.strict("s"), () -> orders.broken("k"), () -> orders.find("o-1"));
		for (Runnable call : calls) {
			try {
				call.run();
			}
			catch (RuntimeException ex) {
				// counted by the listener
			}
		}
		Map<IdempotencyOutcome, Long> counts = this.listener.outcomes()
			.stream()
			.collect(Collectors.groupingBy(Function.identity(), Collectors.counting()));
		assertThat(this.listener.events).hasSize(calls.size());
		assertThat(counts).containsOnly(Map.entry(IdempotencyOutcome.PROCESSED, 4L),
				Map.entry(IdempotencyOutcome.DUPLICATE, 2L), Map.entry(IdempotencyOutcome.FAILED, 1L),
				Map.entry(IdempotencyOutcome.REJECTED, 2L), Map.entry(IdempotencyOutcome.IN_PROGRESS, 1L));
	}

	@Test
	void invocationRefusedForMissingSynchronizationStillEndsInAnOutcome() {
		DataSourceTransactionManager transactionManager = new DataSourceTransactionManager(this.dataSource);
		transactionManager.setTransactionSynchronization(AbstractPlatformTransactionManager.SYNCHRONIZATION_NEVER);
		Orders orders = proxy(this.orders, interceptor(this.inMemoryStore, transactionManager));
		assertThatIllegalStateException().isThrownBy(() -> orders.onOrder(new OrderPlaced("o-1")));
		assertThat(this.listener.single().outcome()).isEqualTo(IdempotencyOutcome.FAILED);
	}

	@Test
	void commitFailureIsReportedWithItsException() {
		Orders orders = proxy(this.orders,
				interceptor(this.inMemoryStore, new FailingCommitTransactionManager(this.dataSource)));
		assertThatExceptionOfType(TransactionSystemException.class)
			.isThrownBy(() -> orders.onOrder(new OrderPlaced("o-1")));
		assertThat(this.listener.single().failure()).isInstanceOf(TransactionSystemException.class);
	}

	// --- annotation attributes --------------------------------------------------------------

	@Test
	void retentionFromTheAnnotationIsPassedToTheStore() {
		IdempotencyStore store = mockStore("mock", false);
		ClaimResult claim = ClaimResult.claimed("token");
		given(store.claim(any(), any(), any())).willReturn(claim);
		Orders orders = proxy(this.orders, interceptor(store, null));
		orders.keptThirtyDays("k");
		IdempotencyKey key = new IdempotencyKey("Orders#keptThirtyDays", "k");
		verify(store).claim(key, LEASE, Duration.ofDays(30));
		verify(store).complete(key, claim, Duration.ofDays(30));
	}

	@Test
	void retentionPlaceholderIsResolvedThroughThePlaceholderResolver() {
		StandardEnvironment environment = new StandardEnvironment();
		environment.getPropertySources().addFirst(new MapPropertySource("test", Map.of("my.retention", "12h")));
		IdempotencyStore store = mockStore("mock", false);
		given(store.claim(any(), any(), any())).willReturn(ClaimResult.claimed("token"));
		Orders orders = proxy(this.orders,
				interceptor((name) -> store, null, List.of(this.listener), environment::resolveRequiredPlaceholders));
		orders.keptAsConfigured("k");
		verify(store).claim(new IdempotencyKey("Orders#keptAsConfigured", "k"), LEASE, Duration.ofHours(12));
	}

	@Test
	void defaultRetentionAndLeaseArePassedWhenTheAnnotationSetsNone() {
		IdempotencyStore store = mockStore("mock", false);
		given(store.claim(any(), any(), any())).willReturn(ClaimResult.claimed("token"));
		Orders orders = proxy(this.orders, interceptor(store, null));
		orders.onOrder(new OrderPlaced("o-1"));
		verify(store).claim(new IdempotencyKey("Orders#onOrder", "o-1"), LEASE, RETENTION);
	}

	@Test
	void storeNamedOnTheAnnotationIsResolved() {
		IdempotencyStore primary = mockStore("primary", false);
		given(primary.claim(any(), any(), any())).willReturn(ClaimResult.claimed("token"));
		List<String> requested = new CopyOnWriteArrayList<>();
		IdempotencyStoreResolver stores = (name) -> {
			requested.add(name);
			return name.equals("secondary") ? this.inMemoryStore : primary;
		};
		Orders orders = proxy(this.orders, interceptor(stores, null, List.of(this.listener), VERBATIM));
		orders.inSecondaryStore("k");
		orders.onOrder(new OrderPlaced("o-1"));
		assertThat(requested).containsExactly("secondary", "");
		assertThat(this.listener.events).extracting(IdempotencyEvent::store).containsExactly("in_memory", "primary");
		assertThat(this.inMemoryStore.claim(new IdempotencyKey("Orders#inSecondaryStore", "k"), LEASE, RETENTION)
			.status()).isEqualTo(Status.DUPLICATE);
		verify(primary).claim(new IdempotencyKey("Orders#onOrder", "o-1"), LEASE, RETENTION);
	}

	@Test
	void annotationOnAnInterfaceMethodAppliesToAnInterfaceProxy() {
		ProxyFactory factory = new ProxyFactory(new InterfaceHandler());
		factory.addInterface(Handler.class);
		factory.addAdvisor(new IdempotentAdvisor(() -> interceptor(this.inMemoryStore, null), 0));
		Handler handler = (Handler) factory.getProxy();
		assertThat(handler.handle("k")).isEqualTo("handled-k");
		assertThat(handler.handle("k")).isNull();
		assertThat(this.listener.events).extracting(IdempotencyEvent::namespace)
			.containsOnly("InterfaceHandler#handle");
		assertThat(this.listener.outcomes()).containsExactly(IdempotencyOutcome.PROCESSED,
				IdempotencyOutcome.DUPLICATE);
	}

	@Test
	void methodsWithoutTheAnnotationAreNotIntercepted() {
		Orders orders = proxy(this.orders, interceptor(this.inMemoryStore, null));
		orders.plain("a");
		orders.plain("a");
		assertThat(this.orders.handled).containsExactly("a", "a");
		assertThat(this.listener.events).isEmpty();
	}

	@Test
	void asynchronousReturnTypeFailsBeforeTheMethodRuns() {
		Orders orders = proxy(this.orders, interceptor(this.inMemoryStore, null));
		assertThatIllegalStateException().isThrownBy(() -> orders.later("k"))
			.withMessageContaining("CompletableFuture");
		assertThat(this.orders.handled).isEmpty();
	}

	// --- fixtures ---------------------------------------------------------------------------

	@Test
	void builtWithOnlyTheRequiredCollaboratorsRunsTheMethodOnceAndAcknowledges() {
		Orders orders = proxy(this.orders,
				IdempotencyInterceptor.builder(DEFAULTS, (name) -> this.inMemoryStore, (store) -> null).build());
		deliver("m-1", null);
		orders.onOrder(new OrderPlaced("o-1"));
		orders.onOrder(new OrderPlaced("o-1"));
		assertThat(this.orders.handled).containsExactly("o-1");
		assertThat(this.acknowledger.count()).isEqualTo(2);
		assertThat(this.inMemoryStore.claim(new IdempotencyKey("Orders#onOrder", "o-1"), LEASE, RETENTION).status())
			.isEqualTo(Status.DUPLICATE);
	}

	// --- transaction batches ------------------------------------------------------------------

	@Test
	void transactionBatchRunsItsCallsAfterCollectingThemInOneTransactionWithOneOutcomeEach() throws Throwable {
		Orders orders = orders(Mode.H2_TRANSACTIONAL_STORE);
		TransactionBatch batch = TransactionBatch.open();
		try {
			for (String order : List.of("o-1", "o-2", "o-1")) {
				DeliveryContextHolder.set(new DeliveryContext("m-" + order, null, Map.of(), null, List.of()));
				orders.onOrder(new OrderPlaced(order));
			}
		}
		finally {
			batch.close();
		}
		assertThat(this.orders.handled).as("nothing runs while collecting").isEmpty();
		assertThat(batch.refusal()).isNull();
		batch.run();
		assertThat(this.orders.handled).containsExactly("o-1", "o-2");
		assertThat(this.listener.outcomes()).containsExactly(IdempotencyOutcome.PROCESSED,
				IdempotencyOutcome.PROCESSED, IdempotencyOutcome.DUPLICATE);
		assertThat(countCommittedRows("dedup")).isEqualTo(2);
	}

	@Test
	void failedTransactionBatchRollsBackEveryCallAndTellsNoOutcome() {
		Orders orders = orders(Mode.H2_TRANSACTIONAL_STORE);
		this.orders.failuresLeft = 1;
		TransactionBatch batch = TransactionBatch.open();
		try {
			for (String order : List.of("o-1", "o-2")) {
				DeliveryContextHolder.set(new DeliveryContext("m-" + order, null, Map.of(), null, List.of()));
				orders.onOrderFlaky(new OrderPlaced(order));
			}
		}
		finally {
			batch.close();
		}
		assertThatThrownBy(batch::run).isSameAs(this.orders.lastFailure);
		assertThat(countCommittedRows("dedup")).isZero();
		assertThat(this.listener.outcomes()).as("told when its messages run again one by one").isEmpty();
	}

	@Test
	void transactionBatchIsRefusedForAMethodThatReturnsAValueOrIsNotClaimedInTheTransaction() {
		Orders orders = orders(Mode.H2_TRANSACTIONAL_STORE);
		try (TransactionBatch batch = TransactionBatch.open()) {
			assertThat(orders.count("c-1")).as("the skipped value").isZero();
			assertThat(batch.refusal()).contains("returns a value");
		}
		Orders leased = orders(Mode.IN_MEMORY_STORE_WITH_H2_TRANSACTION_MANAGER);
		try (TransactionBatch batch = TransactionBatch.open()) {
			DeliveryContextHolder.set(new DeliveryContext("m-1", null, Map.of(), null, List.of()));
			leased.onOrder(new OrderPlaced("o-1"));
			assertThat(batch.refusal()).contains("not claimed in the business transaction");
		}
		assertThat(this.orders.handled).as("a refused call does not run either").isEmpty();
		assertThat(this.listener.outcomes()).isEmpty();
	}

	@Test
	void builderRejectsAMissingCollaboratorByName() {
		assertThatThrownBy(() -> IdempotencyInterceptor.builder(DEFAULTS, (name) -> this.inMemoryStore, (store) -> null)
			.observer(null)).isInstanceOf(IllegalArgumentException.class).hasMessage("'observer' must not be null");
	}

	private Orders orders(Mode mode) {
		return proxy(this.orders, interceptor(store(mode), transactionManager(mode)));
	}

	private Ledger ledger(Mode mode) {
		return proxy(this.ledgerTarget, interceptor(store(mode), transactionManager(mode)));
	}

	private IdempotencyStore store(Mode mode) {
		return (mode == Mode.H2_TRANSACTIONAL_STORE) ? new TableStore(this.jdbc) : this.inMemoryStore;
	}

	private @Nullable PlatformTransactionManager transactionManager(Mode mode) {
		return (mode == Mode.IN_MEMORY_STORE_WITHOUT_TRANSACTION_MANAGER) ? null
				: new DataSourceTransactionManager(this.dataSource);
	}

	private IdempotencyInterceptor interceptor(IdempotencyStore store,
			@Nullable PlatformTransactionManager transactionManager) {
		return interceptor((name) -> store, transactionManager, List.of(this.listener), VERBATIM);
	}

	private IdempotencyInterceptor interceptor(IdempotencyStoreResolver stores,
			@Nullable PlatformTransactionManager transactionManager, List<IdempotencyListener> listeners,
			StringValueResolver placeholders) {
		return IdempotencyInterceptor.builder(DEFAULTS, stores, (store) -> transactionManager)
			.listeners(() -> listeners)
			.placeholders(placeholders)
			.build();
	}

	@SuppressWarnings("unchecked")
	private static <T> T proxy(T target, IdempotencyInterceptor interceptor) {
		ProxyFactory factory = new ProxyFactory(target);
		factory.setProxyTargetClass(true);
		factory.addAdvisor(new IdempotentAdvisor(() -> interceptor, 0));
		return (T) factory.getProxy();
	}

	private void deliver(@Nullable String messageId, @Nullable String namespace) {
		DeliveryContextHolder.set(new DeliveryContext(messageId, namespace, Map.of(), this.acknowledger, List.of()));
	}

	private static IdempotencyStore mockStore(String name, boolean transactional) {
		IdempotencyStore store = mock(IdempotencyStore.class);
		given(store.name()).willReturn(name);
		given(store.isTransactional()).willReturn(transactional);
		return store;
	}

	/** Counts committed rows through a connection of its own, outside any transaction here. */
	private int countCommittedRows(String table) {
		try (Connection connection = DriverManager.getConnection(this.url, "sa", "");
				Statement statement = connection.createStatement();
				ResultSet rows = statement.executeQuery("select count(*) from " + table)) {
			rows.next();
			return rows.getInt(1);
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
	}

	enum Mode {

		/** Leased in-memory store, no transaction manager. */
		IN_MEMORY_STORE_WITHOUT_TRANSACTION_MANAGER,

		/** Leased in-memory store inside H2 transactions. */
		IN_MEMORY_STORE_WITH_H2_TRANSACTION_MANAGER,

		/** A store that claims in the H2 transaction itself. */
		H2_TRANSACTIONAL_STORE

	}

	public record OrderPlaced(@Nullable String orderId) {
	}

	static class Batches {

		private final List<List<String>> calls = new CopyOnWriteArrayList<>();

		String failOn = "boom";

		@Idempotent(key = "#element")
		public void onOrders(List<String> orders) {
			this.calls.add(List.copyOf(orders));
			if (orders.contains(this.failOn)) {
				throw new IllegalStateException("failed on " + this.failOn);
			}
		}

		@Idempotent(key = "#record + '/' + #element")
		public void byRecord(List<String> orders) {
			this.calls.add(List.copyOf(orders));
		}

		List<List<String>> calls() {
			return this.calls;
		}

	}

	static class Orders {

		final List<String> handled = new CopyOnWriteArrayList<>();

		volatile int failuresLeft;

		volatile @Nullable RuntimeException lastFailure;

		volatile CountDownLatch entered = new CountDownLatch(0);

		volatile CountDownLatch proceed = new CountDownLatch(0);

		@Idempotent(key = "#msg.orderId")
		public void onOrder(OrderPlaced msg) {
			this.handled.add(msg.orderId());
		}

		@Idempotent(key = "#msg.orderId")
		public void onOrderFlaky(OrderPlaced msg) {
			this.handled.add(msg.orderId());
			if (this.failuresLeft > 0) {
				this.failuresLeft--;
				RuntimeException failure = new IllegalStateException("boom");
				this.lastFailure = failure;
				throw failure;
			}
		}

		@Idempotent(key = "#msg.orderId")
		public void onOrderSlowly(OrderPlaced msg) {
			this.entered.countDown();
			try {
				if (!this.proceed.await(10, TimeUnit.SECONDS)) {
					throw new IllegalStateException("not released");
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException(ex);
			}
			this.handled.add(msg.orderId());
		}

		@Idempotent(key = "#id")
		public Optional<String> find(String id) {
			this.handled.add("find " + id);
			return Optional.of("found-" + id);
		}

		@Idempotent(key = "#id")
		public long count(String id) {
			this.handled.add("count " + id);
			return 42L;
		}

		@Idempotent(key = "#id")
		public boolean accept(String id) {
			this.handled.add("accept " + id);
			return true;
		}

		@Idempotent(key = "#id")
		public int score(String id) {
			this.handled.add("score " + id);
			return 7;
		}

		@Idempotent(key = "#id")
		public @Nullable String describe(String id) {
			this.handled.add("describe " + id);
			return "described-" + id;
		}

		@Idempotent(key = "#id", onDuplicate = OnDuplicate.THROW)
		public void strict(String id) {
			this.handled.add(id);
		}

		@Idempotent(key = "#id.nope")
		public void broken(String id) {
			this.handled.add(id);
		}

		@Idempotent
		public void byMessageId(String payload) {
			this.handled.add(payload);
		}

		@Idempotent(key = "#id", namespace = "payments")
		public void namespaced(String id) {
			this.handled.add(id);
		}

		@Idempotent(key = "#id", retention = "30d")
		public void keptThirtyDays(String id) {
			this.handled.add(id);
		}

		@Idempotent(key = "#id", retention = "${my.retention}")
		public void keptAsConfigured(String id) {
			this.handled.add(id);
		}

		@Idempotent(key = "#id", store = "secondary")
		public void inSecondaryStore(String id) {
			this.handled.add(id);
		}

		@Idempotent(key = "#id")
		public CompletableFuture<String> later(String id) {
			this.handled.add(id);
			return CompletableFuture.completedFuture(id);
		}

		public void plain(String id) {
			this.handled.add(id);
		}

	}

	static class Ledger {

		private final JdbcTemplate jdbc;

		private final Function<String, Integer> committedRows;

		final List<Integer> rowsSeenElsewhereDuringMethod = new ArrayList<>();

		final List<Boolean> transactionActiveDuringMethod = new ArrayList<>();

		volatile boolean failAfterInsert;

		Ledger(JdbcTemplate jdbc, Function<String, Integer> committedRows) {
			this.jdbc = jdbc;
			this.committedRows = committedRows;
		}

		@Idempotent(key = "#id")
		public void credit(String id) {
			this.transactionActiveDuringMethod.add(TransactionSynchronizationManager.isActualTransactionActive());
			this.jdbc.update("insert into ledger (id) values (?)", id);
			this.rowsSeenElsewhereDuringMethod.add(this.committedRows.apply("ledger"));
			if (this.failAfterInsert) {
				throw new IllegalStateException("failed after insert");
			}
		}

	}

	interface Handler {

		@Idempotent(key = "#p0")
		@Nullable String handle(String id);

	}

	static class InterfaceHandler implements Handler {

		@Override
		public String handle(String id) {
			return "handled-" + id;
		}

	}

	/**
	 * A transactional store over the {@code dedup} table: claims by inserting in the caller's
	 * transaction, duplicates by the affected-row count.
	 */
	static final class TableStore implements IdempotencyStore {

		private final JdbcTemplate jdbc;

		TableStore(JdbcTemplate jdbc) {
			this.jdbc = jdbc;
		}

		@Override
		public ClaimResult claim(IdempotencyKey key, Duration lease, Duration retention) {
			Assert.state(TransactionSynchronizationManager.isActualTransactionActive(), "claim needs a transaction");
			int inserted = this.jdbc.update(
					"insert into dedup (namespace, idempotency_key) select ?, ? where not exists "
							+ "(select 1 from dedup where namespace = ? and idempotency_key = ?)",
					key.namespace(), key.value(), key.namespace(), key.value());
			return (inserted == 1) ? ClaimResult.claimedInTransaction() : ClaimResult.duplicate();
		}

		@Override
		public boolean isTransactional() {
			return true;
		}

		@Override
		public String name() {
			return "table";
		}

	}

	static final class RecordingListener implements IdempotencyListener {

		final List<IdempotencyEvent> events = new CopyOnWriteArrayList<>();

		@Override
		public void onOutcome(IdempotencyEvent event) {
			this.events.add(event);
		}

		List<IdempotencyOutcome> outcomes() {
			return this.events.stream().map(IdempotencyEvent::outcome).toList();
		}

		IdempotencyEvent single() {
			assertThat(this.events).hasSize(1);
			return this.events.get(0);
		}

		IdempotencyEvent last() {
			assertThat(this.events).isNotEmpty();
			return this.events.get(this.events.size() - 1);
		}

	}

	static final class CountingAcknowledger implements MessageAcknowledger {

		private final AtomicInteger count = new AtomicInteger();

		@Override
		public void acknowledge() {
			this.count.incrementAndGet();
		}

		int count() {
			return this.count.get();
		}

	}

	@SuppressWarnings("serial")
	static final class FailingCommitTransactionManager extends DataSourceTransactionManager {

		FailingCommitTransactionManager(DriverManagerDataSource dataSource) {
			super(dataSource);
		}

		@Override
		protected void doCommit(DefaultTransactionStatus status) {
			throw new TransactionSystemException("commit outcome unknown");
		}

	}

	@SuppressWarnings("serial")
	static final class RecordingTransactionManager extends DataSourceTransactionManager {

		final List<TransactionDefinition> definitions = new CopyOnWriteArrayList<>();

		RecordingTransactionManager(DriverManagerDataSource dataSource) {
			super(dataSource);
		}

		@Override
		protected void doBegin(Object transaction, TransactionDefinition definition) {
			this.definitions.add(definition);
			super.doBegin(transaction, definition);
		}

	}

}
