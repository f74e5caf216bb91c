package dev.idempotency.redis.stream;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import dev.idempotency.annotation.Idempotent;
import dev.idempotency.redis.stream.StreamTestSupport.Order;
import dev.idempotency.redis.stream.autoconfigure.IdempotencyStreamsHealthIndicator;
import dev.idempotency.redis.stream.metrics.RedisStreamMeters;
import dev.idempotency.testsupport.TcpProxy;
import dev.idempotency.testsupport.TestRedisConnections;
import io.lettuce.core.resource.Delay;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.data.redis.autoconfigure.ClientResourcesBuilderCustomizer;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static dev.idempotency.redis.stream.StreamTestSupport.add;
import static dev.idempotency.redis.stream.StreamTestSupport.order;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What the {@code idempotencyStreams} health indicator and the
 * {@code idempotency.stream.subscriptions.active} gauge say through a Redis outage: the application
 * (Lettuce, with the capped reconnect delay of docs/redis-streams.md and a Redis timeout above the
 * poll timeout) reaches Redis through a {@link TcpProxy} that is cut for 6 s; the test writes directly.
 * Both are sampled every 100 ms: from the threshold (plus the Redis timeout and a margin) until the
 * restore every sample must be DOWN and 0, so that the {@code IdempotencyStreamNotRead} alert
 * ({@code max_over_time(...) == 0}) can fire; after the restore they are UP and 1 again and the entry
 * added during the outage is applied.
 */
class RedisStreamOutageHealthIntegrationTests {

	private static final Duration OUTAGE = Duration.ofSeconds(6);

	private static final Duration THRESHOLD = Duration.ofSeconds(1);

	/** spring.data.redis.timeout: a read cut off by the outage fails at the latest after it. */
	private static final Duration REDIS_TIMEOUT = Duration.ofSeconds(1);

	private static final Duration MARGIN = Duration.ofMillis(500);

	private final String run = UUID.randomUUID().toString().substring(0, 8);

	private final String stream = "rs-outage-health-" + this.run;

	private final List<Sample> samples = new CopyOnWriteArrayList<>();

	private TcpProxy proxy;

	private LettuceConnectionFactory directFactory;

	private StringRedisTemplate redis;

	private ConfigurableApplicationContext context;

	@BeforeEach
	void redis() {
		this.proxy = TcpProxy.start(TestRedisConnections.host(), TestRedisConnections.port());
		this.directFactory = TestRedisConnections.connectionFactory();
		this.redis = new StringRedisTemplate(this.directFactory);
	}

	@AfterEach
	void cleanUp() {
		if (this.context != null) {
			this.context.close();
		}
		this.proxy.close();
		this.redis.delete(List.of(this.stream, this.stream + ".dlq"));
		this.directFactory.destroy();
	}

	@Test
	void healthIsDownAndGaugeZeroThroughTheWholeOutageAndBothRecoverAfterIt() {
		this.context = new SpringApplicationBuilder(OutageHealthApplication.class).web(WebApplicationType.NONE)
			.properties("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + this.proxy.port(),
					"spring.data.redis.timeout=" + REDIS_TIMEOUT.toMillis() + "ms",
					"spring.autoconfigure.exclude=org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
					"idempotency.store.type=in-memory", "idempotency.redis.stream.poll-timeout=500ms",
					"idempotency.redis.stream.recovery-back-off=200ms", "idempotency.redis.stream.claim-interval=500ms",
					// The entry added at the cut may be taken by the read the cut cuts off: it is then pending in
					// the consumer, and the recovery claims it after min-idle (1m by default).
					"idempotency.redis.stream.min-idle=2s",
					"idempotency.health.streams.inactive-threshold=" + THRESHOLD.toMillis() + "ms",
					"it.stream=" + this.stream)
			.run();
		IdempotencyStreamsHealthIndicator health = this.context.getBean(IdempotencyStreamsHealthIndicator.class);
		MeterRegistry meters = this.context.getBean(MeterRegistry.class);
		Listener listener = this.context.getBean(Listener.class);

		add(this.redis, this.stream, order("before", 1));
		await().atMost(10, TimeUnit.SECONDS)
			.until(() -> listener.appliedAt().containsKey("before")
					&& StreamTestSupport.pending(this.redis, this.stream, this.stream) == 0
					&& isUpAndSettled(health.health()) && gauge(meters) == 1);

		long cutAt = System.nanoTime();
		this.proxy.cut();
		add(this.redis, this.stream, order("during", 2));
		long restoreAt = cutAt + OUTAGE.toNanos();
		await().atMost(OUTAGE.plusSeconds(5))
			.pollInterval(Duration.ofMillis(100))
			.until(() -> sample(cutAt, health, meters) >= restoreAt);
		this.proxy.restore();
		long restoredAt = System.nanoTime();
		try {
			// One step at a time, so that a timeout names what did not recover.
			await("the gauge back at 1").atMost(30, TimeUnit.SECONDS)
				.pollInterval(Duration.ofMillis(100))
				.until(() -> sample(cutAt, health, meters) > 0 && gauge(meters) == 1);
			await("the entry added during the outage applied").atMost(30, TimeUnit.SECONDS)
				.until(() -> listener.appliedAt().containsKey("during"));
			await("idempotencyStreams UP and settled").atMost(30, TimeUnit.SECONDS)
				.pollInterval(Duration.ofMillis(100))
				.until(() -> sample(cutAt, health, meters) > 0 && isUpAndSettled(health.health()));
		}
		catch (ConditionTimeoutException ex) {
			throw new AssertionError(ex.getMessage() + "; samples: " + describe(cutAt, restoredAt) + "; health now: "
					+ health.health(), ex);
		}

		long from = cutAt + REDIS_TIMEOUT.plus(THRESHOLD).plus(MARGIN).toNanos();
		List<Sample> outage = this.samples.stream().filter((sample) -> sample.at >= from && sample.at < restoredAt).toList();
		System.out.printf("[stream outage health] %d samples in the outage: %s%n", this.samples.stream()
			.filter((sample) -> sample.at < restoredAt)
			.count(), describe(cutAt, restoredAt));
		assertThat(outage).as("samples from threshold + margin to the restore").hasSizeGreaterThan(20);
		assertThat(outage).as("health from threshold + margin to the restore")
			.allSatisfy((sample) -> assertThat(sample.status).as("at %d ms", millis(sample.at - cutAt))
				.isEqualTo(Status.DOWN));
		assertThat(outage).as("gauge from threshold + margin to the restore")
			.allSatisfy((sample) -> assertThat(sample.gauge).as("at %d ms", millis(sample.at - cutAt)).isZero());
		// The alert's expression over the sampled gauge: max_over_time(...) == 0 across the outage window.
		assertThat(outage.stream().mapToDouble(Sample::gauge).max().orElseThrow()).as("max_over_time during the outage")
			.isZero();
		// Redis was really unreachable: the entry added during the outage is applied only after it.
		assertThat(listener.appliedAt().get("during")).as("'during' applied after the restore").isGreaterThan(restoredAt);
	}

	/** Records one sample and returns its time. */
	private long sample(long cutAt, IdempotencyStreamsHealthIndicator health, MeterRegistry meters) {
		Sample sample = new Sample(System.nanoTime(), health.health().getStatus(), gauge(meters));
		this.samples.add(sample);
		return sample.at;
	}

	private double gauge(MeterRegistry meters) {
		return StreamTestSupport.gauge(meters, RedisStreamMeters.STREAM_SUBSCRIPTIONS_ACTIVE, this.stream);
	}

	/** UP and no longer counting an earlier inactive time (the one of the start). */
	@SuppressWarnings("unchecked")
	private static boolean isUpAndSettled(Health health) {
		Map<String, Object> listeners = (Map<String, Object>) health.getDetails().get("listeners");
		return health.getStatus().equals(Status.UP)
				&& !((Map<String, Object>) listeners.get("outage-health")).containsKey("inactiveFor");
	}

	/** When health and gauge changed, in ms after the cut: the numbers behind the docs. */
	private String describe(long cutAt, long restoredAt) {
		StringBuilder changes = new StringBuilder();
		Sample previous = null;
		for (Sample sample : this.samples) {
			if (previous == null || !previous.status.equals(sample.status) || previous.gauge != sample.gauge) {
				changes.append(String.format("%d ms: %s/%.0f; ", millis(sample.at - cutAt), sample.status,
						sample.gauge));
			}
			previous = sample;
		}
		return changes.append("restore at ").append(millis(restoredAt - cutAt)).append(" ms").toString();
	}

	private static long millis(long nanos) {
		return TimeUnit.NANOSECONDS.toMillis(nanos);
	}

	record Sample(long at, Status status, double gauge) {

	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class OutageHealthApplication {

		@Bean
		SimpleMeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

		@Bean
		Listener listener() {
			return new Listener();
		}

		/** The reconnect advice of docs/redis-streams.md: Lettuce retries within a second of the restore. */
		@Bean
		ClientResourcesBuilderCustomizer fastReconnect() {
			return (resources) -> resources
				.reconnectDelay(Delay.exponential(Duration.ofMillis(100), Duration.ofSeconds(1), 2, TimeUnit.MILLISECONDS));
		}

	}

	static class Listener {

		private final Map<String, Long> appliedAt = new ConcurrentHashMap<>();

		// An accessor, not the field: the test sees the bean through its @Idempotent proxy.
		public Map<String, Long> appliedAt() {
			return this.appliedAt;
		}

		@RedisStreamListener(id = "outage-health", stream = "${it.stream}", group = "${it.stream}")
		@Idempotent(key = "#order.orderId()")
		public void onOrder(Order order) {
			this.appliedAt.putIfAbsent(order.orderId(), System.nanoTime());
		}

	}

}
