package dev.idempotency.redis.stream;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import dev.idempotency.redis.stream.metrics.RedisStreamMeters;
import dev.idempotency.testsupport.LocalRedisSentinel;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.jdbc.core.JdbcTemplate;

import static dev.idempotency.redis.stream.StreamTestSupport.add;
import static dev.idempotency.redis.stream.StreamTestSupport.awaitEverySubscriptionActive;
import static dev.idempotency.redis.stream.StreamTestSupport.order;
import static dev.idempotency.redis.stream.StreamTestSupport.pending;
import static dev.idempotency.redis.stream.StreamTestSupport.sleep;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A Sentinel failover that loses the consumer group: the replica is held back from the start
 * ({@code CLIENT PAUSE WRITE}), so the stream, its group and the first order exist on the primary
 * only; the primary is killed, and the replica is promoted without them. The listener comes back by
 * itself on the promoted replica, recreates its group (logged and counted), and applies what is added
 * after the failover.
 */
class RedisStreamSentinelGroupLostIntegrationTests {

	@Test
	void groupLostWithThePrimaryIsRecreatedOnThePromotedReplicaAndTheListenerCarriesOn() {
		String run = UUID.randomUUID().toString().substring(0, 8);
		String stream = "rs-failover-" + run;
		try (LocalRedisSentinel sentinel = LocalRedisSentinel.start()) {
			sentinel.holdReplicasBack(Duration.ofSeconds(60));
			try (ConfigurableApplicationContext context = AbstractRedisStreamFailoverIntegrationTests.startApplication(
					run, sentinel.properties(),
					AbstractRedisStreamFailoverIntegrationTests.redisStoreProperties(run))) {
				awaitEverySubscriptionActive(context, Duration.ofSeconds(10));
				StringRedisTemplate redis = context.getBean(StringRedisTemplate.class);
				JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
				MeterRegistry meters = context.getBean(MeterRegistry.class);
				add(redis, stream, order("before-the-failover", 1));
				await().atMost(10, TimeUnit.SECONDS)
					.until(() -> AbstractRedisStreamFailoverIntegrationTests.applied(jdbc)
						.contains("before-the-failover"));
				int replica = sentinel.serverPorts().get(1);
				assertThat(sentinel.cli(replica, "EXISTS", stream).trim()).as("the stream on the held-back replica")
					.isEqualTo("0");
				int killed = sentinel.killPrimary();
				// The replica sees its link break and drops what it had received but not applied.
				sleep(Duration.ofMillis(500));
				sentinel.releaseReplicas();
				assertThat(sentinel.awaitFailover(killed, Duration.ofSeconds(30))).isEqualTo(replica);
				await().atMost(30, TimeUnit.SECONDS)
					.pollInterval(Duration.ofMillis(200))
					.until(() -> StreamTestSupport.counter(meters, RedisStreamMeters.STREAM_GROUP_RECREATED,
							stream) >= 1);
				addUntilAccepted(redis, stream, "after-the-failover");
				await().atMost(30, TimeUnit.SECONDS)
					.until(() -> AbstractRedisStreamFailoverIntegrationTests.applied(jdbc)
						.contains("after-the-failover"));
				awaitEverySubscriptionActive(context, Duration.ofSeconds(30));
				await().atMost(10, TimeUnit.SECONDS).until(() -> pending(redis, stream, stream) == 0);
				assertThat(redis.opsForStream().groups(stream).stream().map((group) -> group.groupName()))
					.containsExactly(stream);
			}
		}
	}

	private static void addUntilAccepted(StringRedisTemplate redis, String stream, String orderId) {
		await().atMost(30, TimeUnit.SECONDS).pollInterval(Duration.ofMillis(100)).ignoreExceptions().until(() -> {
			add(redis, stream, order(orderId, 1));
			return true;
		});
	}

}
