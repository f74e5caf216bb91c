package dev.idempotency.redis.filter;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.idempotency.testsupport.TestRedisConnections;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The recent keys are written behind the consumer threads, against the real Redis: every queued key
 * lands with its time to live, stopping sends what is still queued and a key written after it at
 * once, a restarted writer queues again, and a Redis that refuses the writes costs dropped keys,
 * never an exception on the consumer thread.
 */
class RecentKeysWriterIntegrationTests {

	private static final String PREFIX = TestRedisConnections.uniqueKeyPrefix(RecentKeysWriterIntegrationTests.class);

	private static LettuceConnectionFactory redis;

	private static StringRedisTemplate template;

	@BeforeAll
	static void connect() {
		redis = TestRedisConnections.connectionFactory();
		template = new StringRedisTemplate(redis);
	}

	@AfterAll
	static void disconnect() {
		TestRedisConnections.deleteKeys(redis, PREFIX);
		redis.destroy();
	}

	@Test
	void everyQueuedKeyLandsWithItsTimeToLiveInPipelines() {
		try (RecentKeysWriter writer = new RecentKeysWriter(template, Duration.ofMinutes(10))) {
			List<String> keys = keys("landed", 2 * RecentKeysWriter.PIPELINE + 7);
			keys.forEach(writer::write);
			Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> writer.pending() == 0
					&& template.countExistingKeys(keys) == keys.size());
			Long ttl = template.getExpire(keys.get(0));
			assertThat(ttl).isBetween(590L, 600L);
			assertThat(writer.dropped()).isZero();
		}
	}

	@Test
	void stopSendsWhatIsStillQueuedAndALateKeyAtOnce() {
		List<String> keys = keys("stopped", 300);
		RecentKeysWriter writer = new RecentKeysWriter(template, Duration.ofMinutes(10));
		keys.forEach(writer::write);
		writer.stop();
		assertThat(writer.isRunning()).isFalse();
		assertThat(template.countExistingKeys(keys)).isEqualTo(keys.size());
		writer.write(PREFIX + "after-stop");
		assertThat(template.hasKey(PREFIX + "after-stop")).isTrue();
		assertThat(writer.pending()).isZero();
		assertThat(writer.dropped()).isZero();
	}

	@Test
	void aRestartedWriterQueuesAgain() {
		List<String> keys = keys("restarted", 20);
		try (RecentKeysWriter writer = new RecentKeysWriter(template, Duration.ofMinutes(10))) {
			writer.stop();
			writer.start();
			assertThat(writer.isRunning()).isTrue();
			keys.forEach(writer::write);
			Awaitility.await()
				.atMost(Duration.ofSeconds(10))
				.until(() -> template.countExistingKeys(keys) == keys.size());
			assertThat(writer.dropped()).isZero();
		}
	}

	@Test
	void aRedisThatRefusesCostsDroppedKeysOnly() {
		LettuceConnectionFactory unreachable = TestRedisConnections.unreachable();
		try (RecentKeysWriter writer = new RecentKeysWriter(new StringRedisTemplate(unreachable), Duration.ofMinutes(1))) {
			keys("refused", 3).forEach(writer::write);
			Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> writer.dropped() == 3);
			assertThat(writer.pending()).isZero();
		}
		finally {
			unreachable.destroy();
		}
	}

	private static List<String> keys(String name, int count) {
		List<String> keys = new ArrayList<>(count);
		for (int i = 0; i < count; i++) {
			keys.add(PREFIX + name + ":" + i);
		}
		return keys;
	}

}
