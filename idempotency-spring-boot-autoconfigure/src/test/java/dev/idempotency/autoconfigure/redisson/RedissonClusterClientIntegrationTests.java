package dev.idempotency.autoconfigure.redisson;

import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.UUID;

import dev.idempotency.autoconfigure.IdempotencyAutoConfiguration;
import dev.idempotency.autoconfigure.store.IdempotencyStoreAutoConfiguration;
import dev.idempotency.core.ClaimResult;
import dev.idempotency.core.ClaimResult.Status;
import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.core.RecordedKey;
import dev.idempotency.store.redisson.RedissonIdempotencyStore;
import dev.idempotency.testsupport.LocalRedisCluster;
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

/**
 * The Redisson client the starter builds from {@code spring.data.redis.cluster.nodes} when the
 * application has none, on a local 3-primary, 3-replica Redis Cluster: the Redisson store claims,
 * completes and records details with keys on every primary.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RedissonClusterClientIntegrationTests {

	private static final Duration LEASE = Duration.ofMinutes(1);

	private static final Duration RETENTION = Duration.ofHours(1);

	private LocalRedisCluster cluster;

	@BeforeAll
	void startCluster() {
		this.cluster = LocalRedisCluster.start();
	}

	@AfterAll
	void stopCluster() {
		if (this.cluster != null) {
			this.cluster.close();
		}
	}

	@Test
	void redissonStoreOnTheClientBuiltFromClusterNodesSpreadsItsKeysOverEveryPrimary() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, TransactionAutoConfiguration.class,
					IdempotencyRedissonAutoConfiguration.class, IdempotencyStoreAutoConfiguration.class,
					IdempotencyAutoConfiguration.class))
			.withPropertyValues(this.cluster.properties())
			.withPropertyValues("idempotency.store.type=redisson",
					"idempotency.redisson.key-prefix=redisson-cluster-" + UUID.randomUUID() + ":",
					"spring.data.redis.timeout=5s")
			.run((context) -> {
				assertThat(context).hasNotFailed().hasBean("idempotencyRedissonClient");
				RedissonClient client = context.getBean(RedissonClient.class);
				assertThat(client.getConfig().isClusterConfig()).isTrue();
				// A claim's read on a lagging replica would see a completed key as still in progress.
				assertThat(client.getConfig().useClusterServers().getReadMode()).isEqualTo(ReadMode.MASTER);
				RedissonIdempotencyStore store = context.getBean(RedissonIdempotencyStore.class);
				Set<Integer> primaries = new HashSet<>();
				for (int i = 0; i < 30; i++) {
					IdempotencyKey key = new IdempotencyKey("orders", "o-" + i);
					ClaimResult claim = store.claim(key, LEASE, RETENTION);
					assertThat(claim.isClaimed()).isTrue();
					store.recordFingerprint(key, claim, "fp-" + i);
					store.complete(key, claim, RETENTION);
					assertThat(store.claim(key, LEASE, RETENTION).status()).isEqualTo(Status.DUPLICATE);
					primaries.add(this.cluster.primaryOf(store.storageKey(key)));
				}
				assertThat(primaries).containsExactlyInAnyOrderElementsOf(this.cluster.primaries());
				RecordedKey recorded = store.recorded(new IdempotencyKey("orders", "o-7"));
				assertThat(recorded).isNotNull();
				assertThat(recorded.fingerprint()).isEqualTo("fp-7");
			});
	}

}
