package dev.idempotency.sample;

import java.util.Map;
import java.util.stream.Collectors;

import dev.idempotency.metrics.IdempotencyMeters;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs the demo through an in-process Kafka broker (300 orders, 20% re-sent, 2 poison orders, 1
 * order without an id, 1 malformed record) and checks its numbers against the database, the meters
 * and the dead-letter counter, not against the demo's own report. The runner runs
 * during context start-up; the application only exits from {@code main}, which tests never call.
 */
@SpringBootTest(properties = { "demo.orders=300", "spring.datasource.url=jdbc:h2:mem:points-dedup;DB_CLOSE_DELAY=-1" })
class DemoApplicationIntegrationTests {

	private static final int MAX_ATTEMPTS = 3;

	@Autowired
	private DemoRunner runner;

	@Autowired
	private MeterRegistry meters;

	@Autowired
	private JdbcTemplate jdbc;

	@Autowired
	private DemoProperties demo;

	@Test
	void everyOrderIsCreditedExactlyOnce() {
		DemoOrders orders = this.runner.orders();
		assertThat(orders).isNotNull();
		assertThat(orders.unique()).hasSize(300);
		assertThat(orders.duplicates()).hasSize(60);
		assertThat(ledgerRows(this.jdbc)).isEqualTo(orders.unique().size());
		assertThat(ledgerPointsByOrder(this.jdbc)).isEqualTo(orders.unique()
			.stream()
			.collect(Collectors.toMap(OrderPlaced::orderId, OrderPlaced::points)));
		assertThat(totalBalance(this.jdbc)).isEqualTo(orders.expectedPoints());
		assertThat(this.runner.report()).isNotNull().satisfies((report) -> {
			assertThat(report.creditedOncePerOrder()).isTrue();
			assertThat(this.runner.getExitCode()).isZero();
		});
	}

	@Test
	void everyDuplicateIsSkipped() {
		DemoOrders orders = this.runner.orders();
		assertThat(invocations("duplicate")).isEqualTo(orders.duplicates().size());
		assertThat(invocations("processed")).isEqualTo(orders.unique().size());
	}

	@Test
	void poisonKeylessAndMalformedRecordsEndOnTheDeadLetterTopic() {
		DemoOrders orders = this.runner.orders();
		long expected = orders.poison().size() + orders.invalid().size() + this.demo.malformedMessages();
		assertThat(invocations("failed")).isEqualTo((long) orders.poison().size() * MAX_ATTEMPTS);
		assertThat(invocations("rejected")).isEqualTo(orders.invalid().size());
		assertThat(deadLettered()).isEqualTo(expected);
		assertThat(this.runner.report()).isNotNull()
			.satisfies((report) -> assertThat(report.deadLettered()).as("records on orders.DLT").isEqualTo(expected));
	}

	@Test
	void withoutIdempotencyDuplicatesAreCreditedTwice() {
		// Proves the demo measures something: the same run with @Idempotent switched off.
		// Command-line arguments, because builder properties are defaults that application.yml overrides.
		try (ConfigurableApplicationContext context = new SpringApplicationBuilder(SampleApplication.class).run(
				"--demo.orders=300", "--demo.poison-orders=0", "--demo.invalid-orders=0",
				"--demo.malformed-messages=0", "--idempotency.enabled=false",
				"--spring.datasource.url=jdbc:h2:mem:points-no-dedup;DB_CLOSE_DELAY=-1")) {
			DemoRunner runner = context.getBean(DemoRunner.class);
			JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
			DemoOrders orders = runner.orders();
			assertThat(orders.unique()).hasSize(300);
			assertThat(ledgerRows(jdbc)).isEqualTo(orders.unique().size() + orders.duplicates().size())
				.isGreaterThan(orders.unique().size());
			assertThat(totalBalance(jdbc)).isGreaterThan(orders.expectedPoints());
			assertThat(runner.report()).isNotNull()
				.satisfies((report) -> assertThat(report.creditedOncePerOrder()).isFalse());
			assertThat(runner.getExitCode()).isOne();
		}
	}

	private long invocations(String outcome) {
		return this.meters.find(IdempotencyMeters.INVOCATIONS)
			.tag(IdempotencyMeters.NAMESPACE_TAG, "points")
			.tag(IdempotencyMeters.OUTCOME_TAG, outcome)
			.timers()
			.stream()
			.mapToLong(Timer::count)
			.sum();
	}

	private double deadLettered() {
		return this.meters.find(IdempotencyMeters.DEAD_LETTERED)
			.counters()
			.stream()
			.mapToDouble((counter) -> counter.count())
			.sum();
	}

	private static long ledgerRows(JdbcTemplate jdbc) {
		return jdbc.queryForObject("SELECT COUNT(*) FROM points_ledger", Long.class);
	}

	private static long totalBalance(JdbcTemplate jdbc) {
		return jdbc.queryForObject("SELECT COALESCE(SUM(balance), 0) FROM points_account", Long.class);
	}

	private static Map<String, Long> ledgerPointsByOrder(JdbcTemplate jdbc) {
		return jdbc.query("SELECT order_id, points FROM points_ledger", (rs, row) -> Map.entry(rs.getString(1), rs.getLong(2)))
			.stream()
			.collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
	}

}
