package dev.idempotency.sample;

import java.util.List;

import dev.idempotency.metrics.IdempotencyMeters;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.ActiveProfiles;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The demo with the {@code filters} profile (a local Bloom filter, then Redis recent keys, in front
 * of the JDBC store): every order is still credited once in each flow, duplicates are answered by
 * the Redis layer without the store, and the report prints each layer's answers.
 */
@SpringBootTest(properties = { "demo.orders=300", "demo.redis-stream.enabled=true",
		"spring.datasource.url=jdbc:h2:mem:points-filters;DB_CLOSE_DELAY=-1",
		"idempotency.filter.recent.key-prefix=demo-filters-test:${random.uuid}:" })
@ActiveProfiles("filters")
class DemoWithFiltersIntegrationTests {

	@Autowired
	private DemoRunner runner;

	@Autowired
	private MeterRegistry meters;

	@Autowired
	private JdbcTemplate jdbc;

	@Test
	void everyOrderIsCreditedOnceAndTheLayersAnsweredTheDuplicates() {
		DemoOrders orders = this.runner.orders();
		DemoReport report = this.runner.report();
		assertThat(orders).isNotNull();
		assertThat(report).isNotNull();
		assertThat(report.creditedOncePerOrder()).isTrue();
		for (String flow : List.of(PointsService.FLOW, StreamPointsService.FLOW)) {
			assertThat(this.jdbc.queryForObject("SELECT COUNT(*) FROM points_ledger WHERE flow = ?", Long.class, flow))
				.as(flow)
				.isEqualTo(orders.unique().size());
			assertThat(this.jdbc.queryForObject("SELECT COUNT(DISTINCT order_id) FROM points_ledger WHERE flow = ?",
					Long.class, flow))
				.as(flow)
				.isEqualTo(orders.unique().size());
		}
		FilterCounts filters = report.filters();
		// Each flow's unique orders and duplicates meet the Bloom filter first.
		long bloomAnswers = filters.count("bloom", "absent") + filters.count("bloom", "maybe");
		assertThat(bloomAnswers).isGreaterThanOrEqualTo(2L * (orders.unique().size() + orders.duplicates().size()));
		double duplicates = this.meters.find(IdempotencyMeters.INVOCATIONS)
			.tag(IdempotencyMeters.OUTCOME_TAG, "duplicate")
			.timers()
			.stream()
			.mapToLong((timer) -> timer.count())
			.sum();
		// Every re-sent event is a duplicate (redeliveries by the brokers may add a few).
		assertThat(duplicates).isGreaterThanOrEqualTo(2.0 * orders.duplicates().size());
		// A duplicate that arrives after its first delivery committed is answered by Redis, and each
		// such answer is a duplicate outcome.
		assertThat(filters.count("redis-recent", "completed")).isPositive().isLessThanOrEqualTo((long) duplicates);
		assertThat(report.toString()).contains("Duplicate filters (both flows)", "bloom", "redis-recent");
	}

}
