package dev.idempotency.redis.stream;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.connection.stream.Consumer;
import org.springframework.data.redis.connection.stream.MapRecord;
import org.springframework.data.redis.connection.stream.ReadOffset;
import org.springframework.data.redis.connection.stream.StreamOffset;
import org.springframework.data.redis.connection.stream.StreamReadOptions;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.util.ReflectionUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A consumer that restarts under its name reads its own pending entries first; the recovery task
 * must not claim those same entries meanwhile (found by the fault-injection suite: a restarted
 * consumer delivered its own pending entries twice, once from each thread, and the extra delivery
 * counts dead-lettered valid entries). Against the real Redis on 127.0.0.1:6379, with a stream of
 * its own.
 */
class RedisStreamOwnPendingIntegrationTests {

	private static final String RUN = UUID.randomUUID().toString().substring(0, 8);

	private final String stream = "rs-own-pending-" + RUN;

	private final String group = "rs-own-pending-" + RUN;

	private final String consumer = "rs-own-pending-consumer-" + RUN;

	private LettuceConnectionFactory connectionFactory;

	private StringRedisTemplate redis;

	private RedisStreamListenerContainer container;

	@BeforeEach
	void connect() {
		this.connectionFactory = new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", 6379));
		this.connectionFactory.afterPropertiesSet();
		this.connectionFactory.start();
		this.redis = new StringRedisTemplate(this.connectionFactory);
	}

	@AfterEach
	void disconnect() {
		if (this.container != null) {
			this.container.stop();
		}
		this.redis.delete(List.of(this.stream, this.stream + ".dlq"));
		this.connectionFactory.destroy();
	}

	@Test
	void restartedConsumerDeliversItsOwnPendingEntriesOnceWhileTheyAreIdleLongerThanMinIdle() throws Exception {
		this.redis.execute((RedisCallback<String>) (connection) -> connection.streamCommands()
			.xGroupCreate(this.stream.getBytes(StandardCharsets.UTF_8), this.group, ReadOffset.from("0-0"), true));
		for (int i = 1; i <= 4; i++) {
			this.redis.opsForStream().add(this.stream, Map.of("payload", "entry-" + i));
		}
		// The previous incarnation of the consumer read all four and died: pending, delivered once.
		List<MapRecord<String, Object, Object>> read = this.redis.opsForStream()
			.read(Consumer.from(this.group, this.consumer), StreamReadOptions.empty().count(4),
					StreamOffset.create(this.stream, ReadOffset.lastConsumed()));
		assertThat(read).hasSize(4);
		Thread.sleep(400);

		// It restarts under its name. Its pending entries are idle longer than min-idle, and the
		// recovery task runs every 20 ms while the consumer reads them one at a time, slowly.
		SlowListener listener = new SlowListener();
		RedisStreamListenerEndpoint endpoint = new RedisStreamListenerEndpoint("own", this.stream, this.group,
				this.consumer, 1, listener, ReflectionUtils.findMethod(SlowListener.class, "onEntry", String.class));
		RedisStreamSettings settings = new RedisStreamSettings(1, 1, Duration.ofMillis(200), Duration.ofMillis(200),
				Duration.ofMillis(20), 2, ".dlq", Duration.ofMillis(100), "payload", false);
		this.container = new RedisStreamListenerContainer(endpoint, settings, this.connectionFactory, null, List::of,
				null);
		this.container.start();

		await().atMost(20, TimeUnit.SECONDS)
			.until(() -> this.redis.opsForStream().pending(this.stream, this.group).getTotalPendingMessages() == 0);
		Thread.sleep(300);
		assertThat(listener.deliveries).as("deliveries per entry")
			.isEqualTo(Map.of("entry-1", 1, "entry-2", 1, "entry-3", 1, "entry-4", 1));
		assertThat(this.redis.hasKey(this.stream + ".dlq")).as("dead-letter stream").isFalse();
	}

	/** Takes 100 ms per entry and counts deliveries. */
	public static class SlowListener {

		final Map<String, Integer> deliveries = new ConcurrentHashMap<>();

		public void onEntry(String payload) throws InterruptedException {
			this.deliveries.merge(payload, 1, Integer::sum);
			Thread.sleep(100);
		}

	}

}
