package dev.idempotency.redis.stream;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import dev.idempotency.metrics.IdempotencyMeters;
import dev.idempotency.redis.stream.metrics.RedisStreamMeters;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.domain.Range;
import org.springframework.data.redis.connection.stream.MapRecord;
import org.springframework.data.redis.connection.stream.StreamRecords;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.awaitility.Awaitility.await;

/**
 * Helpers shared by the stream integration tests: waiting for the listeners to read, adding entries,
 * reading the PEL and the meters, letting time pass.
 */
final class StreamTestSupport {

	private StreamTestSupport() {
	}

	/** Waits until every listener container runs with all its subscriptions active. */
	static void awaitEverySubscriptionActive(ConfigurableApplicationContext context, Duration timeout) {
		RedisStreamListenerRegistry registry = context.getBean(RedisStreamListenerRegistry.class);
		await().atMost(timeout)
			.until(() -> registry.getListenerContainers()
				.stream()
				.allMatch((container) -> container.isRunning()
						&& container.getActiveSubscriptions() == container.getConsumerNames().size()));
	}

	static String add(StringRedisTemplate redis, String stream, String payload) {
		return redis.opsForStream()
			.add(StreamRecords.newRecord().in(stream).ofMap(Map.of("payload", payload)))
			.getValue();
	}

	static String order(String orderId, int points) {
		return "{\"orderId\":\"" + orderId + "\",\"points\":" + points + "}";
	}

	static long pending(StringRedisTemplate redis, String stream, String group) {
		return redis.opsForStream().pending(stream, group).getTotalPendingMessages();
	}

	static List<MapRecord<String, Object, Object>> entries(StringRedisTemplate redis, String stream) {
		return redis.opsForStream().range(stream, Range.unbounded());
	}

	/**
	 * Invocations of the listener methods of one consumer group: their default namespaces are
	 * {@code <group>:<Class>#<method>}, or the group itself where a test names it so.
	 */
	static long invocations(MeterRegistry registry, String group, String outcome) {
		return registry.find(IdempotencyMeters.INVOCATIONS)
			.tag(IdempotencyMeters.NAMESPACE_TAG, (namespace) -> namespace.equals(group) || namespace.startsWith(group + ":"))
			.tag(IdempotencyMeters.OUTCOME_TAG, outcome)
			.timers()
			.stream()
			.mapToLong((timer) -> timer.count())
			.sum();
	}

	static double counter(MeterRegistry registry, String name, String stream) {
		return registry.find(name)
			.tag(RedisStreamMeters.STREAM_TAG, stream)
			.counters()
			.stream()
			.mapToDouble((counter) -> counter.count())
			.sum();
	}

	static double gauge(MeterRegistry registry, String name, String stream) {
		var gauge = registry.find(name).tag(RedisStreamMeters.STREAM_TAG, stream).gauge();
		return (gauge != null) ? gauge.value() : Double.NaN;
	}

	static double deadLettered(MeterRegistry registry, String source) {
		return registry.find(IdempotencyMeters.DEAD_LETTERED)
			.tag(IdempotencyMeters.SOURCE_TAG, source)
			.counters()
			.stream()
			.mapToDouble((counter) -> counter.count())
			.sum();
	}

	/** Sleeps, for a test that must let time pass (a lease end, a replica's link break). */
	static void sleep(Duration duration) {
		try {
			Thread.sleep(duration.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	/** A JSON payload of the test listeners. */
	record Order(String orderId, int points) {

	}

}
