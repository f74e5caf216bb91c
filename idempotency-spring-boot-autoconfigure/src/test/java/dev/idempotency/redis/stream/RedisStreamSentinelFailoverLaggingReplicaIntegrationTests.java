package dev.idempotency.redis.stream;

import java.time.Duration;
import java.util.List;
import java.util.Set;

import org.jspecify.annotations.Nullable;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Sentinel failover with the Redis store, the replica held {@value #BEHIND_MILLIS} ms behind
 * the primary when it is killed (its replication paused, as a busy or distant replica would lag): the
 * claims, completions, acknowledgements and {@code XADD}s of those milliseconds are lost with the
 * primary. On loopback, without the pause, the replica keeps up and the window is empty; here it is
 * wide open, and the test shows what it costs: orders gone from the stream, orders applied twice
 * (read before the window, their completion lost, so delivered again), orders applied whose entry is
 * gone. They are counted and printed; the test fails if the window shows nothing.
 */
class RedisStreamSentinelFailoverLaggingReplicaIntegrationTests
		extends RedisStreamSentinelFailoverRedisStoreIntegrationTests {

	private static final long BEHIND_MILLIS = 300;

	@Override
	protected void beforeKill() {
		// Paused longer than it is behind: the primary dies within the pause.
		sentinel().holdReplicasBack(Duration.ofMillis(BEHIND_MILLIS + 1000));
		try {
			Thread.sleep(BEHIND_MILLIS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	@Override
	protected String topology() {
		return "Sentinel (replica " + BEHIND_MILLIS + " ms behind)";
	}

	@Override
	protected void assertLossWindow(Set<String> lost, List<String> twice, @Nullable List<String> withoutEntry) {
		assertThat(withoutEntry).isNotNull();
		assertThat(lost.size() + twice.size() + withoutEntry.size()).as("losses of the open window").isPositive();
	}

}
