package dev.idempotency.sample;

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import dev.idempotency.metrics.IdempotencyMeters;
import dev.idempotency.redis.stream.RedisStreamListenerRegistry;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.connection.stream.MapRecord;
import org.springframework.data.redis.connection.stream.StreamOffset;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.aot.DisabledInAotMode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs the demo through the outbox, an in-process Kafka broker and the Redis at
 * {@code localhost:6379} (300 orders, 20% re-sent, 2 poison orders, 1 order without an id, 1
 * malformed message per flow), and its payments flow (100 payments, 20 repeated requests, 2 claims
 * left by crashed runs) against the payment provider stub, and checks the numbers against the
 * database, the meters, the dead-letter topic and stream and the provider's charges, not against the
 * demo's own report. The runner runs during context
 * start-up; the application only exits from {@code main}, which tests never call.
 */
@SpringBootTest(properties = { "demo.orders=300", "demo.redis-stream.enabled=true",
		"spring.datasource.url=jdbc:h2:mem:points-dedup;DB_CLOSE_DELAY=-1" })
class DemoApplicationIntegrationTests {

	private static final int MAX_ATTEMPTS = 3;

	private static final List<String> FLOWS = List.of(PointsService.FLOW, StreamPointsService.FLOW);

	@Autowired
	private DemoRunner runner;

	@Autowired
	private MeterRegistry meters;

	@Autowired
	private JdbcTemplate jdbc;

	@Autowired
	private DemoProperties demo;

	@Autowired
	private RedisStreamFlow streamFlow;

	@Autowired
	private ConfigurableApplicationContext context;

	@Autowired
	private StringRedisTemplate redis;

	@Autowired
	private PaymentProviderStub provider;

	@Test
	void everyOrderIsPlacedOnceAndItsEventsAreSentToBothFlows() {
		DemoOrders orders = this.runner.orders();
		assertThat(orders).isNotNull();
		assertThat(count(this.jdbc, "SELECT COUNT(*) FROM orders")).isEqualTo(orders.unique().size());
		long eventsPerFlow = orders.unique().size() + orders.duplicates().size();
		assertThat(count(this.jdbc, "SELECT COUNT(*) FROM idempotency_outbox WHERE status = 'SENT'"))
			.isEqualTo(eventsPerFlow * FLOWS.size());
		assertThat(this.runner.report()).isNotNull().satisfies((report) -> {
			assertThat(report.flows()).hasSize(FLOWS.size());
			assertThat(report.outboxUnsent()).isZero();
		});
	}

	@Test
	void everyOrderIsCreditedExactlyOnceInEachFlow() {
		DemoOrders orders = this.runner.orders();
		assertThat(orders).isNotNull();
		assertThat(orders.unique()).hasSize(300);
		assertThat(orders.duplicates()).hasSize(60);
		Map<String, Long> expectedPointsByOrder = orders.unique()
			.stream()
			.collect(Collectors.toMap(OrderPlaced::orderId, OrderPlaced::points));
		for (String flow : FLOWS) {
			assertThat(ledgerRows(this.jdbc, flow)).as(flow).isEqualTo(orders.unique().size());
			assertThat(ledgerPointsByOrder(this.jdbc, flow)).as(flow).isEqualTo(expectedPointsByOrder);
			assertThat(totalBalance(this.jdbc, flow)).as(flow).isEqualTo(orders.expectedPoints());
		}
		assertThat(this.runner.report()).isNotNull().satisfies((report) -> {
			assertThat(report.creditedOncePerOrder()).isTrue();
			assertThat(this.runner.getExitCode()).isZero();
		});
	}

	@Test
	void everyDuplicateIsSkippedInEachFlowsOwnNamespace() {
		DemoOrders orders = this.runner.orders();
		assertThat(orders.duplicates()).isNotEmpty();
		for (String namespace : List.of(KafkaFlow.GROUP, RedisStreamFlow.GROUP)) {
			assertThat(invocations(namespace, "duplicate")).as(namespace).isEqualTo(orders.duplicates().size());
			assertThat(invocations(namespace, "processed")).as(namespace).isEqualTo(orders.unique().size());
		}
	}

	@Test
	void poisonKeylessAndMalformedRecordsEndOnTheDeadLetterTopic() {
		DemoOrders orders = this.runner.orders();
		long expected = orders.poison().size() + orders.invalid().size() + this.demo.malformedMessages();
		assertThat(invocations(KafkaFlow.GROUP, "failed")).isEqualTo((long) orders.poison().size() * MAX_ATTEMPTS);
		assertThat(invocations(KafkaFlow.GROUP, "rejected")).isEqualTo(orders.invalid().size());
		assertThat(deadLettered(KafkaFlow.TOPIC)).isEqualTo(expected);
		assertThat(this.runner.report()).isNotNull()
			.satisfies((report) -> assertThat(report.flow("Kafka").deadLettered()).as("records on orders.DLT")
				.isEqualTo(expected));
	}

	@Test
	void poisonEntriesEndOnTheDeadLetterStreamAfterMaxDeliveries() {
		DemoOrders orders = this.runner.orders();
		List<MapRecord<String, Object, Object>> deadLetters = this.redis.opsForStream()
			.read(StreamOffset.fromStart(this.streamFlow.deadLetterStream()));
		assertThat(deadLetters).hasSize(orders.poison().size() + orders.invalid().size() + orders.malformed());
		List<String> poisonIds = orders.poison().stream().map(OrderPlaced::orderId).toList();
		List<MapRecord<String, Object, Object>> poisonLetters = deadLetters.stream()
			.filter((entry) -> poisonIds.stream().anyMatch((id) -> entry.getValue().get("payload").toString().contains(id)))
			.toList();
		assertThat(poisonLetters).hasSize(poisonIds.size())
			.allSatisfy((entry) -> assertThat(entry.getValue()).containsEntry("dlq-delivery-count",
					String.valueOf(MAX_ATTEMPTS)));
		assertThat(invocations(RedisStreamFlow.GROUP, "failed")).isEqualTo((long) poisonIds.size() * MAX_ATTEMPTS);
		assertThat(invocations(RedisStreamFlow.GROUP, "rejected")).isEqualTo(orders.invalid().size());
		assertThat(deadLettered(this.streamFlow.stream())).isEqualTo(deadLetters.size());
		assertThat(this.redis.opsForStream().pending(this.streamFlow.stream(), RedisStreamFlow.GROUP).getTotalPendingMessages())
			.isZero();
	}

	@Test
	void everyPaymentIsChargedOnceAtTheProviderAndItsRepeatsAreSkipped() {
		DemoPayments payments = this.runner.paymentRequests();
		assertThat(payments).isNotNull();
		assertThat(payments.unique()).hasSize(100);
		assertThat(payments.duplicates()).hasSize(20);
		assertThat(payments.crashedClaims()).isEqualTo(2);
		Map<String, Integer> oncePerPayment = payments.unique()
			.stream()
			.collect(Collectors.toMap(PaymentRequested::paymentId, (payment) -> 1));
		assertThat(this.provider.chargesByPayment()).isEqualTo(oncePerPayment);
		// The crashed run charged one payment; the reconciler completed its key, so its request was
		// skipped like the repeated ones. The other crashed claim was released and charged once.
		assertThat(reconcilerVerdicts("completed")).isEqualTo(1);
		assertThat(reconcilerVerdicts("retry")).isEqualTo(1);
		assertThat(invocations(PaymentsFlow.NAMESPACE, "duplicate")).isEqualTo(payments.duplicates().size() + 1);
		assertThat(invocations(PaymentsFlow.NAMESPACE, "processed")).isEqualTo(payments.unique().size() - 1);
		assertThat(this.jdbc.queryForList(
				"SELECT DISTINCT status FROM idempotency_record WHERE namespace = ?", String.class,
				PaymentsFlow.NAMESPACE))
			.containsExactly("COMPLETED");
		assertThat(count(this.jdbc, "SELECT COUNT(*) FROM idempotency_record WHERE namespace = ?",
				PaymentsFlow.NAMESPACE))
			.isEqualTo(payments.unique().size());
		assertThat(this.runner.report()).isNotNull().satisfies((report) -> {
			assertThat(report.payments().chargedOncePerPayment()).isTrue();
			assertThat(report.payments().charges()).isEqualTo(payments.unique().size());
			assertThat(report.toString()).contains("charged == unique: true");
		});
	}

	@Test
	@DisabledInAotMode("starts the application with other properties: AOT fixed its beans at build time")
	void withoutIdempotencyDuplicatesAreCreditedTwice() {
		// Proves the demo measures something: the same run with @Idempotent switched off. Both flows
		// still consume (as plain listeners) and both credit the re-sent orders twice.
		// Command-line arguments, because builder properties are defaults that application.yml overrides.
		try (ConfigurableApplicationContext context = new SpringApplicationBuilder(SampleApplication.class).run(
				"--demo.orders=300", "--demo.poison-orders=0", "--demo.invalid-orders=0",
				"--demo.malformed-messages=0", "--idempotency.enabled=false",
				"--spring.datasource.url=jdbc:h2:mem:points-no-dedup;DB_CLOSE_DELAY=-1")) {
			DemoRunner runner = context.getBean(DemoRunner.class);
			JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
			DemoOrders orders = runner.orders();
			assertThat(orders.unique()).hasSize(300);
			assertThat(ledgerRows(jdbc, PointsService.FLOW))
				.isEqualTo(orders.unique().size() + orders.duplicates().size())
				.isGreaterThan(orders.unique().size());
			assertThat(totalBalance(jdbc, PointsService.FLOW)).isGreaterThan(orders.expectedPoints());
			if (!context.getBeansOfType(RedisStreamFlow.class).isEmpty()) {
				assertThat(ledgerRows(jdbc, StreamPointsService.FLOW))
					.isEqualTo(orders.unique().size() + orders.duplicates().size());
			}
			assertThat(runner.report()).isNotNull()
				.satisfies((report) -> assertThat(report.creditedOncePerOrder()).isFalse());
			// Every payment request reached the provider: the repeats were charged again.
			DemoPayments payments = runner.paymentRequests();
			assertThat(context.getBean(PaymentProviderStub.class).totalCharges())
				.isEqualTo(payments.unique().size() + payments.duplicates().size());
			assertThat(runner.report().payments().chargedOncePerPayment()).isFalse();
			assertThat(runner.getExitCode()).isOne();
		}
	}

	@Test
	void theRunsStreamsAreDeletedAfterTheStreamListenersStopAndBeforeRedisCloses() {
		// Spring stops a lifecycle bean's dependents before it whatever their phases: a stream flow
		// that depended on the registry deleted the stream while the listeners were still reading it.
		String registry = this.context.getBeanNamesForType(RedisStreamListenerRegistry.class)[0];
		String flow = this.context.getBeanNamesForType(RedisStreamFlow.class)[0];
		assertThat(this.context.getBeanFactory().getDependentBeans(registry)).doesNotContain(flow);
		int redisPhase = this.context.getBean(LettuceConnectionFactory.class).getPhase();
		assertThat(this.streamFlow.getPhase()).isLessThan(this.context.getBean(RedisStreamListenerRegistry.class).getPhase())
			.isGreaterThan(redisPhase);
	}

	@Test
	@DisabledInAotMode("starts the application with other properties: AOT fixed its beans at build time")
	void withoutRedisTheDemoStartsAndRunsTheKafkaFlowOnly() {
		// Port 1 answers nothing: the start-up probe finds no Redis.
		try (ConfigurableApplicationContext context = new SpringApplicationBuilder(SampleApplication.class).run(
				"--demo.orders=50", "--spring.data.redis.port=1",
				"--spring.datasource.url=jdbc:h2:mem:points-no-redis;DB_CLOSE_DELAY=-1")) {
			DemoRunner runner = context.getBean(DemoRunner.class);
			assertThat(context.getBeansOfType(RedisStreamFlow.class)).isEmpty();
			assertThat(context.getBeansOfType(StreamPointsService.class)).isEmpty();
			assertThat(runner.report()).isNotNull().satisfies((report) -> {
				assertThat(report.flows()).singleElement()
					.satisfies((flow) -> assertThat(flow.title()).startsWith("Kafka"));
				assertThat(report.creditedOncePerOrder()).isTrue();
			});
			assertThat(ledgerRows(context.getBean(JdbcTemplate.class), StreamPointsService.FLOW)).isZero();
		}
	}

	private long invocations(String namespace, String outcome) {
		return this.meters.find(IdempotencyMeters.INVOCATIONS)
			.tag(IdempotencyMeters.NAMESPACE_TAG, namespace)
			.tag(IdempotencyMeters.OUTCOME_TAG, outcome)
			.timers()
			.stream()
			.mapToLong(Timer::count)
			.sum();
	}

	private long reconcilerVerdicts(String verdict) {
		return (long) this.meters.find(IdempotencyMeters.RECONCILER_VERDICTS)
			.tag(IdempotencyMeters.VERDICT_TAG, verdict)
			.counters()
			.stream()
			.mapToDouble(Counter::count)
			.sum();
	}

	private double deadLettered(String source) {
		return this.meters.find(IdempotencyMeters.DEAD_LETTERED)
			.tag(IdempotencyMeters.SOURCE_TAG, source)
			.counters()
			.stream()
			.mapToDouble(Counter::count)
			.sum();
	}

	private static long count(JdbcTemplate jdbc, String sql, Object... args) {
		return jdbc.queryForObject(sql, Long.class, args);
	}

	private static long ledgerRows(JdbcTemplate jdbc, String flow) {
		return count(jdbc, "SELECT COUNT(*) FROM points_ledger WHERE flow = ?", flow);
	}

	private static long totalBalance(JdbcTemplate jdbc, String flow) {
		return count(jdbc, "SELECT COALESCE(SUM(balance), 0) FROM points_account WHERE flow = ?", flow);
	}

	private static Map<String, Long> ledgerPointsByOrder(JdbcTemplate jdbc, String flow) {
		return jdbc
			.query("SELECT order_id, points FROM points_ledger WHERE flow = ?",
					(rs, row) -> Map.entry(rs.getString(1), rs.getLong(2)), flow)
			.stream()
			.collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
	}

}
