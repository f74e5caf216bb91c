package dev.idempotency.support;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import dev.idempotency.annotation.Idempotent;
import dev.idempotency.annotation.OnDuplicate;
import dev.idempotency.core.DeliveryContext;
import dev.idempotency.core.DeliveryContextHolder;
import dev.idempotency.core.DuplicateFilter;
import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.core.IdempotencyKeyConflictException;
import dev.idempotency.core.IdempotencyOutcome;
import dev.idempotency.core.IdempotencyStore;
import dev.idempotency.core.NonRetryableIdempotencyException;
import dev.idempotency.store.jdbc.JdbcIdempotencyDialect;
import dev.idempotency.store.jdbc.JdbcIdempotencyStore;
import dev.idempotency.support.IdempotencyInterceptorTests.CountingAcknowledger;
import dev.idempotency.support.IdempotencyInterceptorTests.RecordingListener;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.aop.framework.ProxyFactory;
import org.springframework.core.io.ClassPathResource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.jdbc.datasource.init.ResourceDatabasePopulator;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.util.unit.DataSize;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Fingerprints and stored results through {@link IdempotencyInterceptor}: with the leased in-memory
 * store, and with the JDBC store claiming in H2 transactions, whose business writes must commit or
 * roll back with the details.
 */
class IdempotencyInterceptorKeyDetailsTests {

	private static final Duration RETENTION = Duration.ofDays(7);

	private static final IdempotencyDefaults DEFAULTS = new IdempotencyDefaults(RETENTION, Duration.ofMinutes(5),
			Duration.ZERO, true, null, false);

	private static final DataSize MAX_RESULT = DataSize.ofKilobytes(64);

	private final RecordingListener listener = new RecordingListener();

	private final CountingAcknowledger acknowledger = new CountingAcknowledger();

	private String url;

	private DriverManagerDataSource dataSource;

	private JdbcTemplate jdbc;

	private Payments target;

	@BeforeEach
	void createDatabase() {
		this.url = "jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
		this.dataSource = new DriverManagerDataSource(this.url, "sa", "");
		this.jdbc = new JdbcTemplate(this.dataSource);
		new ResourceDatabasePopulator(new ClassPathResource("dev/idempotency/store/jdbc/schema-h2.sql"))
			.execute(this.dataSource);
		this.jdbc.execute("create table ledger (id varchar(64) not null, amount bigint not null)");
		this.target = new Payments(this.jdbc);
		DeliveryContextHolder.set(new DeliveryContext("m-1", null, Map.of(), this.acknowledger, List.of()));
	}

	@AfterEach
	void clear() {
		DeliveryContextHolder.clear();
		this.jdbc.execute("shutdown");
	}

	// --- fingerprints -------------------------------------------------------------------------

	@ParameterizedTest
	@EnumSource
	void samePayloadAgainIsAnAcknowledgedDuplicate(Mode mode) {
		Payments payments = payments(mode);
		payments.charge(new Charge("c-1", 100, null));
		payments.charge(new Charge("c-1", 100, null));
		assertThat(this.target.charged).containsExactly("c-1");
		assertThat(this.acknowledger.count()).isEqualTo(2);
		assertThat(this.listener.outcomes()).containsExactly(IdempotencyOutcome.PROCESSED,
				IdempotencyOutcome.DUPLICATE);
	}

	@ParameterizedTest
	@EnumSource
	void differentPayloadUnderAProcessedKeyIsAConflictThatIsNotAcknowledged(Mode mode) {
		Payments payments = payments(mode);
		payments.charge(new Charge("c-1", 100, null));
		assertThatExceptionOfType(IdempotencyKeyConflictException.class)
			.isThrownBy(() -> payments.charge(new Charge("c-1", 250, null)))
			.isInstanceOf(NonRetryableIdempotencyException.class)
			.satisfies((ex) -> assertThat(ex.getKey()).isEqualTo(new IdempotencyKey("Payments#charge", "c-1")));
		assertThat(this.target.charged).containsExactly("c-1");
		assertThat(committedRows("ledger")).isOne();
		assertThat(this.acknowledger.count()).isOne();
		assertThat(this.listener.outcomes()).containsExactly(IdempotencyOutcome.PROCESSED,
				IdempotencyOutcome.CONFLICT);
		assertThat(this.listener.last().failure()).isInstanceOf(IdempotencyKeyConflictException.class);
	}

	@ParameterizedTest
	@EnumSource
	void conflictIsRefusedEvenForOnDuplicateThrow(Mode mode) {
		Payments payments = payments(mode);
		payments.chargeStrictly(new Charge("c-1", 100, null));
		assertThatExceptionOfType(IdempotencyKeyConflictException.class)
			.isThrownBy(() -> payments.chargeStrictly(new Charge("c-1", 101, null)));
		assertThat(this.listener.last().outcome()).isEqualTo(IdempotencyOutcome.CONFLICT);
	}

	@ParameterizedTest
	@EnumSource
	void fingerprintIgnoresTheOrderOfMapEntries(Mode mode) {
		Payments payments = payments(mode);
		Map<String, Integer> inOrder = new LinkedHashMap<>();
		inOrder.put("a", 1);
		inOrder.put("b", 2);
		Map<String, Integer> reversed = new LinkedHashMap<>();
		reversed.put("b", 2);
		reversed.put("a", 1);
		payments.tag("t-1", inOrder);
		payments.tag("t-1", reversed);
		assertThat(this.listener.outcomes()).containsExactly(IdempotencyOutcome.PROCESSED,
				IdempotencyOutcome.DUPLICATE);
	}

	@ParameterizedTest
	@EnumSource
	void payloadThatResolvesToNullIsRejectedWithoutRunningTheMethod(Mode mode) {
		Payments payments = payments(mode);
		assertThatExceptionOfType(InvalidFingerprintException.class)
			.isThrownBy(() -> payments.annotate(new Charge("c-1", 100, null)))
			.withMessageContaining("#charge.note")
			.withMessageContaining("null");
		assertThat(this.target.charged).isEmpty();
		assertThat(this.listener.single().outcome()).isEqualTo(IdempotencyOutcome.REJECTED);
	}

	@ParameterizedTest
	@EnumSource
	void defaultFingerprintAppliesToMethodsThatSetNone(Mode mode) {
		IdempotencyDefaults defaults = new IdempotencyDefaults(RETENTION, Duration.ofMinutes(5), Duration.ZERO, true,
				"#root.args[0]", false);
		Payments payments = proxy(interceptor(mode, defaults, codec(MAX_RESULT)));
		payments.plain(new Charge("c-1", 1, null));
		assertThatExceptionOfType(IdempotencyKeyConflictException.class)
			.isThrownBy(() -> payments.plain(new Charge("c-1", 2, null)));
	}

	@Test
	void methodThatRecordsDetailsFailsClearlyWithoutJackson() {
		Payments payments = proxy(interceptor(Mode.IN_MEMORY_STORE, DEFAULTS, null));
		assertThatIllegalStateException().isThrownBy(() -> payments.charge(new Charge("c-1", 1, null)))
			.withMessageContaining("Jackson");
		assertThat(this.target.charged).isEmpty();
	}

	// --- stored results -----------------------------------------------------------------------

	@ParameterizedTest
	@EnumSource
	void returnPreviousGivesTheDuplicateAnEqualResultWithoutRunningTheMethod(Mode mode) {
		Payments payments = payments(mode);
		Receipt first = payments.pay(new Charge("p-1", 300, null));
		Receipt second = payments.pay(new Charge("p-1", 300, null));
		assertThat(second).isEqualTo(first).isNotSameAs(first);
		assertThat(second.lines()).containsExactly(new Line("sku-1", 1), new Line("sku-2", 2));
		assertThat(this.target.charged).containsExactly("p-1");
		assertThat(this.acknowledger.count()).isEqualTo(2);
		assertThat(this.listener.outcomes()).containsExactly(IdempotencyOutcome.PROCESSED,
				IdempotencyOutcome.DUPLICATE);
	}

	@ParameterizedTest
	@EnumSource
	void returnPreviousGivesNullWhenTheMethodReturnedNull(Mode mode) {
		Payments payments = payments(mode);
		assertThat(payments.payNothing("p-1")).isNull();
		assertThat(payments.payNothing("p-1")).isNull();
		assertThat(this.target.charged).containsExactly("p-1");
	}

	@ParameterizedTest
	@EnumSource
	void returnPreviousReadsGenericReturnTypes(Mode mode) {
		Payments payments = payments(mode);
		List<Line> first = payments.lines("l-1");
		List<Line> second = payments.lines("l-1");
		assertThat(second).isEqualTo(first).first().isInstanceOf(Line.class);
	}

	@ParameterizedTest
	@EnumSource
	void resultLargerThanTheLimitFailsBeforeCommitAndLeavesNothingBehind(Mode mode) {
		Payments payments = proxy(interceptor(mode, DEFAULTS, codec(DataSize.ofBytes(1000))));
		assertThatExceptionOfType(StoredResultTooLargeException.class)
			.isThrownBy(() -> payments.big("b-1", 2000))
			.isInstanceOf(NonRetryableIdempotencyException.class)
			.withMessageContaining("idempotency.stored-result.max-size");
		assertThat(this.acknowledger.count()).isZero();
		assertThat(this.listener.last().outcome()).isEqualTo(IdempotencyOutcome.FAILED);
		if (mode == Mode.H2_TRANSACTIONAL_STORE) {
			assertThat(committedRows("ledger")).as("business writes").isZero();
			assertThat(committedRows("idempotency_record")).as("claims").isZero();
		}
		// Nothing of the failed call stands in the way of a delivery that can be stored.
		assertThat(payments.big("b-1", 10)).hasSize(10);
		assertThat(payments.big("b-1", 10)).hasSize(10);
		assertThat(this.target.charged).containsExactly("b-1", "b-1");
	}

	@ParameterizedTest
	@EnumSource
	void aFilterThatKnowsTheKeyCompletedDoesNotAnswerForTheStore(Mode mode) {
		DuplicateFilterChain everyKeyCompleted = new DuplicateFilterChain(List.of(new CompletedFilter()), Set.of(),
				List::of);
		Payments payments = proxy(interceptor(mode, DEFAULTS, codec(MAX_RESULT),
				new ClaimGuards(everyKeyCompleted, null)));
		Receipt first = payments.pay(new Charge("p-1", 300, null));
		assertThat(payments.pay(new Charge("p-1", 300, null))).isEqualTo(first);
		assertThatExceptionOfType(IdempotencyKeyConflictException.class)
			.isThrownBy(() -> payments.pay(new Charge("p-1", 301, null)));
		assertThat(this.target.charged).containsExactly("p-1");
	}

	private Payments payments(Mode mode) {
		return proxy(interceptor(mode, DEFAULTS, codec(MAX_RESULT)));
	}

	private static KeyDetailsCodec codec(DataSize maxResult) {
		return new KeyDetailsCodec(new PayloadFingerprints(), new StoredResults(JsonMapper.shared(), maxResult));
	}

	private IdempotencyInterceptor interceptor(Mode mode, IdempotencyDefaults defaults,
			@Nullable KeyDetailsCodec codec) {
		return interceptor(mode, defaults, codec, ClaimGuards.none());
	}

	private IdempotencyInterceptor interceptor(Mode mode, IdempotencyDefaults defaults,
			@Nullable KeyDetailsCodec codec, ClaimGuards guards) {
		IdempotencyStore store = (mode == Mode.H2_TRANSACTIONAL_STORE)
				? new JdbcIdempotencyStore(this.jdbc, JdbcIdempotencyDialect.GENERIC, "idempotency_record",
						Clock.systemUTC(), null)
				: new InMemoryIdempotencyStore();
		PlatformTransactionManager transactionManager = new DataSourceTransactionManager(this.dataSource);
		return IdempotencyInterceptor.builder(defaults, (name) -> store, (ignored) -> transactionManager)
			.listeners(() -> List.of(this.listener))
			.guards(() -> guards)
			.keyDetails(() -> codec)
			.build();
	}

	private Payments proxy(IdempotencyInterceptor interceptor) {
		ProxyFactory factory = new ProxyFactory(this.target);
		factory.setProxyTargetClass(true);
		factory.addAdvisor(new IdempotentAdvisor(() -> interceptor, 0));
		return (Payments) factory.getProxy();
	}

	/** Counts committed rows through a connection of its own. */
	private int committedRows(String table) {
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

	/** A filter sure that every key completed, as a recent-keys layer would be after the first run. */
	static final class CompletedFilter implements DuplicateFilter {

		@Override
		public String name() {
			return "completed";
		}

		@Override
		public Answer check(IdempotencyKey key) {
			return Answer.COMPLETED;
		}

		@Override
		public void learn(IdempotencyKey key) {
		}

	}

	enum Mode {

		/** Leased in-memory store; the method's own writes commit on their own. */
		IN_MEMORY_STORE,

		/** The JDBC store claiming in the H2 transaction of the business writes. */
		H2_TRANSACTIONAL_STORE

	}

	public record Charge(String id, long amount, @Nullable String note) {
	}

	public record Line(String sku, int quantity) {
	}

	public record Receipt(String id, long amount, List<Line> lines, int sequence) {
	}

	static class Payments {

		final List<String> charged = new CopyOnWriteArrayList<>();

		private final AtomicInteger sequence = new AtomicInteger();

		private final JdbcTemplate jdbc;

		Payments(JdbcTemplate jdbc) {
			this.jdbc = jdbc;
		}

		@Idempotent(key = "#charge.id", fingerprint = "#charge")
		public void charge(Charge charge) {
			book(charge.id(), charge.amount());
		}

		@Idempotent(key = "#charge.id", fingerprint = "#charge", onDuplicate = OnDuplicate.THROW)
		public void chargeStrictly(Charge charge) {
			book(charge.id(), charge.amount());
		}

		@Idempotent(key = "#charge.id", fingerprint = "#charge.note")
		public void annotate(Charge charge) {
			book(charge.id(), charge.amount());
		}

		@Idempotent(key = "#charge.id")
		public void plain(Charge charge) {
			book(charge.id(), charge.amount());
		}

		@Idempotent(key = "#id", fingerprint = "#tags")
		public void tag(String id, Map<String, Integer> tags) {
			book(id, tags.size());
		}

		@Idempotent(key = "#charge.id", fingerprint = "#charge", onDuplicate = OnDuplicate.RETURN_PREVIOUS)
		public Receipt pay(Charge charge) {
			book(charge.id(), charge.amount());
			return new Receipt(charge.id(), charge.amount(), List.of(new Line("sku-1", 1), new Line("sku-2", 2)),
					this.sequence.incrementAndGet());
		}

		@Idempotent(key = "#id", onDuplicate = OnDuplicate.RETURN_PREVIOUS)
		public @Nullable Receipt payNothing(String id) {
			book(id, 0);
			return null;
		}

		@Idempotent(key = "#id", onDuplicate = OnDuplicate.RETURN_PREVIOUS)
		public List<Line> lines(String id) {
			book(id, 0);
			return List.of(new Line(id, this.sequence.incrementAndGet()));
		}

		@Idempotent(key = "#id", onDuplicate = OnDuplicate.RETURN_PREVIOUS)
		public String big(String id, int size) {
			book(id, size);
			return "x".repeat(size);
		}

		private void book(String id, long amount) {
			this.charged.add(id);
			this.jdbc.update("insert into ledger (id, amount) values (?, ?)", id, amount);
		}

	}

}
