package dev.idempotency.sample;

import java.util.Map;
import java.util.stream.Collectors;

import dev.idempotency.kafka.share.metrics.KafkaShareMeters;
import dev.idempotency.metrics.IdempotencyMeters;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.core.env.MapPropertySource;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The demo with its Kafka share-group flow next to the Kafka flow, on the in-process broker (share
 * groups on): the outbox relay sends every order event, and the re-sent ones, to the share topic;
 * two share consumers of one group credit every order exactly once and skip the re-sent ones, and
 * the poison, keyless and malformed records end on the dead-letter topic, rejected. Also the
 * start-up decision that skips the flow on a cluster of one's own unless it is switched on.
 */
@SpringBootTest(properties = { "demo.orders=300", "demo.kafka-share.enabled=true", "demo.redis-stream.enabled=false",
		"spring.datasource.url=jdbc:h2:mem:points-share;DB_CLOSE_DELAY=-1" })
class ShareFlowIntegrationTests {

	/** {@code idempotency.kafka.share.max-attempts} of the demo. */
	private static final int MAX_ATTEMPTS = 3;

	@Autowired
	private DemoRunner runner;

	@Autowired
	private MeterRegistry meters;

	@Autowired
	private JdbcTemplate jdbc;

	@Test
	void everyOrderIsCreditedExactlyOnceThroughAShareGroup() {
		DemoOrders orders = this.runner.orders();
		assertThat(orders).isNotNull();
		long eventsPerFlow = orders.unique().size() + orders.duplicates().size();
		assertThat(this.jdbc.queryForObject("SELECT COUNT(*) FROM idempotency_outbox WHERE status = 'SENT'"
				+ " AND destination = ?", Long.class, "kafka:" + ShareFlow.TOPIC)).isEqualTo(eventsPerFlow);
		Map<String, Long> expectedPointsByOrder = orders.unique()
			.stream()
			.collect(Collectors.toMap(OrderPlaced::orderId, OrderPlaced::points));
		assertThat(this.jdbc
			.query("SELECT order_id, points FROM points_ledger WHERE flow = ?",
					(rs, row) -> Map.entry(rs.getString(1), rs.getLong(2)), SharePointsService.FLOW)
			.stream()
			.collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue))).isEqualTo(expectedPointsByOrder);
		assertThat(invocations("processed")).isEqualTo(orders.unique().size());
		// At least once: a record whose lock expired comes back and is skipped as a duplicate too.
		assertThat(invocations("duplicate")).isGreaterThanOrEqualTo(orders.duplicates().size());
		assertThat(this.runner.report()).isNotNull().satisfies((report) -> {
			assertThat(report.flows()).hasSize(2);
			assertThat(report.flow("Kafka share group").creditedOncePerOrder()).isTrue();
			assertThat(this.runner.getExitCode()).isZero();
		});
	}

	@Test
	void poisonKeylessAndMalformedRecordsAreDeadLetteredAndRejected() {
		DemoOrders orders = this.runner.orders();
		long expected = orders.poison().size() + orders.invalid().size() + orders.malformed();
		assertThat(invocations("failed")).isEqualTo((long) orders.poison().size() * MAX_ATTEMPTS);
		assertThat(invocations("rejected")).isEqualTo(orders.invalid().size());
		assertThat(settled("reject")).isEqualTo(expected);
		assertThat(this.runner.report().flow("Kafka share group").deadLettered()).isEqualTo(expected);
	}

	@Test
	void theFlowIsSkippedOnAClusterOfOnesOwnUnlessSwitchedOn() {
		assertThat(decided(Map.of(EmbeddedKafkaInitializer.BOOTSTRAP_SERVERS, "kafka.example:9092")))
			.containsEntry(ShareFlow.ENABLED, false);
		assertThat(decided(Map.of(EmbeddedKafkaInitializer.BOOTSTRAP_SERVERS, "kafka.example:9092",
				ShareFlow.ENABLED, "true"))).isNull();
	}

	private static Map<String, Object> decided(Map<String, Object> properties) {
		try (GenericApplicationContext context = new GenericApplicationContext()) {
			context.getEnvironment().getPropertySources().addFirst(new MapPropertySource("test", properties));
			new EmbeddedKafkaInitializer().initialize(context);
			MapPropertySource decided = (MapPropertySource) context.getEnvironment()
				.getPropertySources()
				.get("kafkaShareDemo");
			return (decided != null) ? decided.getSource() : null;
		}
	}

	private long invocations(String outcome) {
		return this.meters.find(IdempotencyMeters.INVOCATIONS)
			.tag(IdempotencyMeters.NAMESPACE_TAG, ShareFlow.NAMESPACE)
			.tag(IdempotencyMeters.OUTCOME_TAG, outcome)
			.timers()
			.stream()
			.mapToLong(Timer::count)
			.sum();
	}

	private long settled(String type) {
		return (long) this.meters.find(KafkaShareMeters.SHARE_ACKNOWLEDGEMENTS)
			.tag(KafkaShareMeters.GROUP_TAG, ShareFlow.GROUP)
			.tag(KafkaShareMeters.TYPE_TAG, type)
			.counters()
			.stream()
			.mapToDouble(Counter::count)
			.sum();
	}

}
