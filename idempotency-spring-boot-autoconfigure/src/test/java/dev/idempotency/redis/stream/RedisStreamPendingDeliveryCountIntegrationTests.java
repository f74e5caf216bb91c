package dev.idempotency.redis.stream;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.domain.Range;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.connection.stream.Consumer;
import org.springframework.data.redis.connection.stream.MapRecord;
import org.springframework.data.redis.connection.stream.PendingMessage;
import org.springframework.data.redis.connection.stream.ReadOffset;
import org.springframework.data.redis.connection.stream.StreamOffset;
import org.springframework.data.redis.connection.stream.StreamReadOptions;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.util.ReflectionUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Pending entries that a consumer takes over (a claim after min-idle, or its own pending entries
 * when it restarts under its name) count a delivery only when the consumer reaches them. A page
 * claimed at once used to count a delivery for every entry of the page; a consumer killed on the
 * first of them left the rest one delivery closer to max-deliveries without having run them, and the
 * fault-injection suite saw valid orders dead-lettered after five killed consumers in a row, never
 * delivered to the listener. Against the real Redis on 127.0.0.1:6379, with streams of its own.
 */
class RedisStreamPendingDeliveryCountIntegrationTests {

	private static final String RUN = UUID.randomUUID().toString().substring(0, 8);

	private final String stream = "rs-delivery-count-" + RUN;

	private final String group = "rs-delivery-count-" + RUN;

	private LettuceConnectionFactory connectionFactory;

	private StringRedisTemplate redis;

	private RedisStreamListenerContainer container;

	private final BlockingListener listener = new BlockingListener();

	@BeforeEach
	void connect() {
		this.connectionFactory = new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", 6379));
		this.connectionFactory.afterPropertiesSet();
		this.connectionFactory.start();
		this.redis = new StringRedisTemplate(this.connectionFactory);
	}

	@AfterEach
	void disconnect() {
		this.listener.release.countDown();
		if (this.container != null) {
			this.container.stop();
		}
		this.redis.delete(List.of(this.stream, this.stream + ".dlq"));
		this.connectionFactory.destroy();
	}

	@Test
	void claimedEntriesTheConsumerHasNotReachedKeepTheirDeliveryCount() {
		String first = leavePendingIn("died-" + RUN);
		start("claimer-" + RUN);

		await().atMost(20, TimeUnit.SECONDS).until(() -> this.listener.received.getCount() == 0);
		assertThat(deliveryCounts()).as("delivery counts while the first claimed entry runs")
			.containsEntry(first, 2L)
			.allSatisfy((id, count) -> assertThat(count).as(id).isEqualTo(id.equals(first) ? 2L : 1L));
	}

	@Test
	void ownPendingEntriesTheRestartedConsumerHasNotReachedKeepTheirDeliveryCount() {
		String consumer = "restarted-" + RUN;
		String first = leavePendingIn(consumer);
		start(consumer);

		await().atMost(20, TimeUnit.SECONDS).until(() -> this.listener.received.getCount() == 0);
		assertThat(deliveryCounts()).as("delivery counts while the first own pending entry runs")
			.containsEntry(first, 2L)
			.allSatisfy((id, count) -> assertThat(count).as(id).isEqualTo(id.equals(first) ? 2L : 1L));
	}

	/** Four entries read by {@code consumer}, which then died: pending, delivered once; the first id. */
	private String leavePendingIn(String consumer) {
		this.redis.execute((RedisCallback<String>) (connection) -> connection.streamCommands()
			.xGroupCreate(this.stream.getBytes(StandardCharsets.UTF_8), this.group, ReadOffset.from("0-0"), true));
		for (int i = 1; i <= 4; i++) {
			this.redis.opsForStream().add(this.stream, Map.of("payload", "entry-" + i));
		}
		List<MapRecord<String, Object, Object>> read = this.redis.opsForStream()
			.read(Consumer.from(this.group, consumer), StreamReadOptions.empty().count(4),
					StreamOffset.create(this.stream, ReadOffset.lastConsumed()));
		assertThat(read).hasSize(4);
		return read.get(0).getId().getValue();
	}

	/** One consumer, pages of four, min-idle 200 ms; its listener holds the first entry it gets. */
	private void start(String consumer) {
		RedisStreamListenerEndpoint endpoint = new RedisStreamListenerEndpoint("count", this.stream, this.group,
				consumer, 1, this.listener,
				ReflectionUtils.findMethod(BlockingListener.class, "onEntry", String.class));
		RedisStreamSettings settings = new RedisStreamSettings(1, 4, Duration.ofMillis(200), Duration.ofMillis(200),
				Duration.ofMillis(20), 3, ".dlq", Duration.ofMillis(100), "payload", false);
		this.container = new RedisStreamListenerContainer(endpoint, settings, this.connectionFactory, null, List::of,
				null);
		this.container.start();
	}

	private Map<String, Long> deliveryCounts() {
		return this.redis.opsForStream()
			.pending(this.stream, this.group, Range.unbounded(), 10)
			.stream()
			.collect(Collectors.toMap((message) -> message.getId().getValue(), PendingMessage::getTotalDeliveryCount));
	}

	/** Holds the first entry it gets until the test ends, as a consumer that dies while on it. */
	public static class BlockingListener {

		final CountDownLatch received = new CountDownLatch(1);

		final CountDownLatch release = new CountDownLatch(1);

		public void onEntry(String payload) throws InterruptedException {
			this.received.countDown();
			this.release.await(30, TimeUnit.SECONDS);
		}

	}

}
