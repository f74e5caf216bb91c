package dev.idempotency.autoconfigure.redisson;

import java.time.Duration;
import java.util.UUID;

import dev.idempotency.autoconfigure.IdempotencyAutoConfiguration;
import dev.idempotency.autoconfigure.store.IdempotencyStoreAutoConfiguration;
import dev.idempotency.core.ClaimResult;
import dev.idempotency.core.ClaimResult.Status;
import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.core.RecordedKey;
import dev.idempotency.store.redisson.RedissonIdempotencyStore;
import dev.idempotency.testsupport.LocalRedisSentinel;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.redisson.api.RedissonClient;
import org.redisson.config.ReadMode;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The Redisson client the starter builds from {@code spring.data.redis.sentinel.master} and
 * {@code nodes} when the application has none, on a local primary with one replica and three
 * Sentinels: the Redisson store claims, completes and records details on the primary the Sentinels
 * name, and the entries reach the replica.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RedissonSentinelClientIntegrationTests {

	private static final Duration LEASE = Duration.ofMinutes(1);

	private static final Duration RETENTION = Duration.ofHours(1);

	private LocalRedisSentinel sentinel;

	@BeforeAll
	void startSentinel() {
		this.sentinel = LocalRedisSentinel.start();
	}

	@AfterAll
	void stopSentinel() {
		if (this.sentinel != null) {
			this.sentinel.close();
		}
	}

	@Test
	void redissonStoreOnTheClientBuiltFromSentinelPropertiesWritesToThePrimary() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, TransactionAutoConfiguration.class,
					IdempotencyRedissonAutoConfiguration.class, IdempotencyStoreAutoConfiguration.class,
					IdempotencyAutoConfiguration.class))
			.withPropertyValues(this.sentinel.properties())
			.withPropertyValues("idempotency.store.type=redisson",
					"idempotency.redisson.key-prefix=redisson-sentinel-" + UUID.randomUUID() + ":",
					"spring.data.redis.timeout=5s")
			.run((context) -> {
				assertThat(context).hasNotFailed().hasBean("idempotencyRedissonClient");
				RedissonClient client = context.getBean(RedissonClient.class);
				assertThat(client.getConfig().isSentinelConfig()).isTrue();
				assertThat(client.getConfig().useSentinelServers().getReadMode()).isEqualTo(ReadMode.MASTER);
				RedissonIdempotencyStore store = context.getBean(RedissonIdempotencyStore.class);
				for (int i = 0; i < 30; i++) {
					IdempotencyKey key = new IdempotencyKey("orders", "o-" + i);
					ClaimResult claim = store.claim(key, LEASE, RETENTION);
					assertThat(claim.isClaimed()).isTrue();
					store.recordFingerprint(key, claim, "fp-" + i);
					store.complete(key, claim, RETENTION);
					assertThat(store.claim(key, LEASE, RETENTION).status()).isEqualTo(Status.DUPLICATE);
				}
				RecordedKey recorded = store.recorded(new IdempotencyKey("orders", "o-7"));
				assertThat(recorded).isNotNull();
				assertThat(recorded.fingerprint()).isEqualTo("fp-7");
				String entry = store.storageKey(new IdempotencyKey("orders", "o-29"));
				int primary = this.sentinel.primary();
				assertThat(this.sentinel.cli(primary, "GET", entry).trim()).isEqualTo("COMPLETED");
				int replica = this.sentinel.serverPorts().get(1);
				assertThat(replica).isNotEqualTo(primary);
				await()
					.atMost(Duration.ofSeconds(5))
					.until(() -> "COMPLETED".equals(this.sentinel.cli(replica, "GET", entry).trim()));
			});
	}

}
