package dev.idempotency.store.redisson.autoconfigure;

import java.time.Duration;
import java.util.List;

import dev.idempotency.testsupport.LocalRedisSentinel;
import org.junit.jupiter.api.Test;
import org.redisson.config.ReadMode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The Redisson client the starter builds from {@code spring.data.redis.sentinel.master} and
 * {@code nodes} when the application has none, on a local primary with one replica and three
 * Sentinels: the Redisson store claims, completes and records details on the primary the Sentinels
 * name, and the entries reach the replica.
 */
class RedissonSentinelClientIntegrationTests extends AbstractRedissonClientIntegrationTests {

	private LocalRedisSentinel sentinel;

	@Override
	protected String[] startRedis() {
		this.sentinel = LocalRedisSentinel.start();
		return this.sentinel.properties();
	}

	@Override
	protected void stopRedis() {
		if (this.sentinel != null) {
			this.sentinel.close();
		}
	}

	@Test
	void redissonStoreOnTheClientBuiltFromSentinelPropertiesWritesToThePrimary() {
		run((client, store) -> {
			assertThat(client.getConfig().isSentinelConfig()).isTrue();
			assertThat(client.getConfig().useSentinelServers().getReadMode()).isEqualTo(ReadMode.MASTER);
			List<String> entries = claimAndComplete(store);
			String entry = entries.get(entries.size() - 1);
			int primary = this.sentinel.primary();
			assertThat(this.sentinel.cli(primary, "GET", entry).trim()).isEqualTo("COMPLETED");
			int replica = this.sentinel.serverPorts().get(1);
			assertThat(replica).isNotEqualTo(primary);
			await().atMost(Duration.ofSeconds(5))
				.until(() -> "COMPLETED".equals(this.sentinel.cli(replica, "GET", entry).trim()));
		});
	}

}
