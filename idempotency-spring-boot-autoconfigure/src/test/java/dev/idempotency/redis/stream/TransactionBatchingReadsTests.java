package dev.idempotency.redis.stream;

import java.lang.reflect.Method;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.idempotency.annotation.Idempotent;
import dev.idempotency.core.DeliveryContext;
import dev.idempotency.core.DeliveryContextHolder;
import dev.idempotency.core.IdempotencyStore;
import dev.idempotency.store.jdbc.JdbcIdempotencyDialect;
import dev.idempotency.store.jdbc.JdbcIdempotencyStore;
import dev.idempotency.support.IdempotencyDefaults;
import dev.idempotency.support.IdempotencyInterceptor;
import dev.idempotency.support.IdempotentAdvisor;
import dev.idempotency.support.InMemoryIdempotencyStore;
import dev.idempotency.testsupport.TransactionsSeen;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.aop.Advisor;
import org.springframework.aop.framework.Advised;
import org.springframework.aop.framework.ProxyFactory;
import org.springframework.core.io.ClassPathResource;
import org.springframework.data.redis.connection.stream.MapRecord;
import org.springframework.data.redis.connection.stream.RecordId;
import org.springframework.data.redis.connection.stream.StreamRecords;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.jdbc.datasource.init.ResourceDatabasePopulator;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.util.ReflectionUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.BDDMockito.given;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.withSettings;

/**
 * Tests for {@link TransactionBatchingReads}: a listener bean proxied by the {@link IdempotentAdvisor},
 * the JDBC store and its transaction manager on an in-memory H2, and acknowledgements recorded in
 * memory with whether a transaction was active when each was recorded.
 */
class TransactionBatchingReadsTests {

	private static final IdempotencyDefaults DEFAULTS = new IdempotencyDefaults(Duration.ofDays(7),
			Duration.ofMinutes(5), Duration.ZERO, true, null, false);

	private static final StreamBinding BINDING = new StreamBinding("orders", "points", List::of);

	private final RecordingAcks acks = new RecordingAcks();

	private final Orders orders = new Orders();

	private DriverManagerDataSource dataSource;

	private JdbcTemplate jdbc;

	@BeforeEach
	void createDatabase() {
		this.dataSource = new DriverManagerDataSource("jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1", "sa",
				"");
		new ResourceDatabasePopulator(new ClassPathResource("dev/idempotency/store/jdbc/schema-h2.sql"))
			.execute(this.dataSource);
		this.jdbc = new JdbcTemplate(this.dataSource);
		this.jdbc.execute("create table ledger (order_id varchar(64) not null)");
		this.orders.jdbc = this.jdbc;
		this.orders.transactions = new TransactionsSeen(this.dataSource);
	}

	@AfterEach
	void shutDown() {
		DeliveryContextHolder.clear();
		this.jdbc.execute("shutdown");
	}

	@Test
	void entriesOfAReadRunInOneTransactionOnceEachAndAreAcknowledgedAfterItsCommit() {
		TransactionBatchingReads reads = batching(jdbcStore(), "onOrder");
		List<MapRecord<String, String, String>> entries = entries("o-1", "o-2", "o-1", "o-3");
		List<RecordId> told = new ArrayList<>();
		assertThat(reads.deliver(entries, this.acks, (entry) -> told.add(entry.getId()))).isEqualTo(4);
		assertThat(this.orders.applied).as("in stream order, the duplicate once").containsExactly("o-1", "o-2", "o-3");
		assertThat(this.orders.transactions.transactions("orders")).as("transactions").isOne();
		assertThat(ledger()).isEqualTo(3);
		assertThat(this.acks.ids).as("every entry, the duplicate included").containsExactlyElementsOf(ids(entries));
		assertThat(this.acks.inTransaction).as("recorded while a transaction was active").containsOnly(false);
		assertThat(told).containsExactlyElementsOf(ids(entries));
		assertThat(this.orders.deliveries).as("each call bound to its own entry")
			.containsExactly(entries.get(0).getId().getValue(), entries.get(1).getId().getValue(),
					entries.get(3).getId().getValue());
		assertThat(DeliveryContextHolder.current()).isNull();
	}

	@Test
	void readWithAFailingEntryIsRolledBackWholeAndNothingIsAcknowledged() {
		TransactionBatchingReads reads = batching(jdbcStore(), "onOrder");
		assertThat(reads.deliver(entries("o-1", "poison", "o-2"), this.acks, (entry) -> {
		})).isZero();
		assertThat(this.orders.applied).as("ran up to the poison, then rolled back").containsExactly("o-1", "poison");
		assertThat(ledger()).isZero();
		assertThat(this.jdbc.queryForObject("select count(*) from idempotency_record", Integer.class)).isZero();
		assertThat(this.acks.ids).isEmpty();
	}

	@Test
	void refusedBatchRunsNothingAndLeavesTheEntriesToTheEntryByEntryPath() {
		TransactionBatchingReads reads = batching(new InMemoryIdempotencyStore(), "onOrder");
		assertThat(reads.deliver(entries("o-1", "o-2"), this.acks, (entry) -> {
		})).isZero();
		assertThat(this.orders.applied).isEmpty();
		assertThat(this.acks.ids).isEmpty();
	}

	@Test
	void unreadableEntryLeavesTheReadToTheEntryByEntryPathWithoutRunningAnything() {
		TransactionBatchingReads reads = batching(jdbcStore(), "onOrder");
		List<MapRecord<String, String, String>> entries = new ArrayList<>(entries("o-1"));
		entries.add(StreamRecords.newRecord().in("orders").ofMap(Map.of("other", "x")).withId(RecordId.of("9-0")));
		entries.add(entries("o-2").get(0));
		assertThat(reads.deliver(entries, this.acks, (entry) -> {
		})).isZero();
		assertThat(this.orders.applied).isEmpty();
		assertThat(this.acks.ids).isEmpty();
	}

	@Test
	void readOfOneEntryIsLeftToTheEntryByEntryPath() {
		TransactionBatchingReads reads = batching(jdbcStore(), "onOrder");
		assertThat(reads.deliver(entries("o-1"), this.acks, (entry) -> {
		})).isZero();
		assertThat(this.orders.applied).isEmpty();
	}

	@Test
	void callThatRanWithoutTheInterceptorSettlesItsEntryAloneAndStopsBatchingForTheListener() {
		// Advised by the interceptor in name only: the call runs (here: does nothing) without reaching a batch.
		Orders notIntercepted = mock(Orders.class, withSettings().extraInterfaces(Advised.class));
		given(((Advised) notIntercepted).getAdvisors())
			.willReturn(new Advisor[] { new IdempotentAdvisor(() -> mock(IdempotencyInterceptor.class), 0) });
		TransactionBatchingReads reads = TransactionBatchingReads.of(BINDING, endpoint(notIntercepted, "onOrder"),
				arguments("onOrder"));
		assertThat(reads).isNotNull();
		List<MapRecord<String, String, String>> entries = entries("o-1", "o-2");
		assertThat(reads.deliver(entries, this.acks, (entry) -> {
		})).as("the first entry, which ran").isOne();
		assertThat(this.acks.ids).containsExactly(entries.get(0).getId());
		assertThat(reads.deliver(entries("o-3", "o-4"), this.acks, (entry) -> {
		})).as("entry by entry from now on").isZero();
		assertThat(this.acks.ids).hasSize(1);
	}

	@Test
	void methodThatIsNotIdempotentReturnsAValueOrIsNotAdvisedIsNotBatched() {
		assertThat(TransactionBatchingReads.of(BINDING, endpoint(proxy(jdbcStore()), "plain"), arguments("plain")))
			.isNull();
		assertThat(TransactionBatchingReads.of(BINDING, endpoint(proxy(jdbcStore()), "counted"),
				arguments("counted")))
			.isNull();
		assertThat(TransactionBatchingReads.of(BINDING, endpoint(this.orders, "onOrder"), arguments("onOrder")))
			.isNull();
		assertThat(TransactionBatchingReads.of(BINDING, endpoint(proxy(jdbcStore()), "onOrder"),
				arguments("onOrder")))
			.isNotNull();
	}

	private TransactionBatchingReads batching(IdempotencyStore store, String method) {
		TransactionBatchingReads reads = TransactionBatchingReads.of(BINDING, endpoint(proxy(store), method),
				arguments(method));
		assertThat(reads).isNotNull();
		return reads;
	}

	private Orders proxy(IdempotencyStore store) {
		IdempotencyInterceptor interceptor = IdempotencyInterceptor
			.builder(DEFAULTS, (name) -> store, (any) -> new DataSourceTransactionManager(this.dataSource))
			.build();
		ProxyFactory factory = new ProxyFactory(this.orders);
		factory.setProxyTargetClass(true);
		factory.addAdvisor(new IdempotentAdvisor(() -> interceptor, 0));
		return (Orders) factory.getProxy();
	}

	private JdbcIdempotencyStore jdbcStore() {
		return new JdbcIdempotencyStore(this.jdbc, JdbcIdempotencyDialect.GENERIC, "idempotency_record",
				Clock.systemUTC());
	}

	private static RedisStreamListenerEndpoint endpoint(Object bean, String method) {
		return new RedisStreamListenerEndpoint("orders-listener", "orders", "points", null, null, bean,
				method(method));
	}

	private static StreamArgumentResolver arguments(String method) {
		return new StreamArgumentResolver(method(method), "payload", null);
	}

	private static Method method(String name) {
		Method method = ReflectionUtils.findMethod(Orders.class, name, String.class);
		assertThat(method).isNotNull();
		return method;
	}

	private static List<MapRecord<String, String, String>> entries(String... orders) {
		List<MapRecord<String, String, String>> entries = new ArrayList<>();
		for (String order : orders) {
			entries.add(StreamRecords.newRecord()
				.in("orders")
				.ofMap(Map.of("payload", order))
				.withId(RecordId.of(System.nanoTime() + "-" + entries.size())));
		}
		return entries;
	}

	private static List<RecordId> ids(List<MapRecord<String, String, String>> entries) {
		return entries.stream().map(MapRecord::getId).toList();
	}

	private int ledger() {
		Integer count = this.jdbc.queryForObject("select count(*) from ledger", Integer.class);
		return (count != null) ? count : 0;
	}

	static class Orders {

		final List<String> applied = new ArrayList<>();

		final List<String> deliveries = new ArrayList<>();

		JdbcTemplate jdbc;

		TransactionsSeen transactions;

		@Idempotent(key = "#payload")
		public void onOrder(String payload) {
			this.applied.add(payload);
			if (payload.startsWith("poison")) {
				throw new IllegalStateException("poison " + payload);
			}
			DeliveryContext delivery = DeliveryContextHolder.current();
			this.deliveries.add(String.valueOf((delivery != null) ? delivery.variables().get("recordId") : null));
			this.transactions.record("orders");
			this.jdbc.update("insert into ledger (order_id) values (?)", payload);
		}

		@Idempotent(key = "#payload")
		public int counted(String payload) {
			return 1;
		}

		public void plain(String payload) {
		}

	}

	/** Acknowledgements recorded, and whether a transaction was active when each was. */
	static class RecordingAcks implements StreamAcks {

		final List<RecordId> ids = new ArrayList<>();

		final List<Boolean> inTransaction = new ArrayList<>();

		@Override
		public void acknowledge(RecordId recordId) {
			this.ids.add(recordId);
			this.inTransaction.add(TransactionSynchronizationManager.isActualTransactionActive());
		}

		@Override
		public <T> @Nullable T execute(RedisCallback<T> action) {
			throw new UnsupportedOperationException();
		}

		@Override
		public void flush() {
		}

	}

}
