package dev.idempotency.store.redisson.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.BiConsumer;

import dev.idempotency.autoconfigure.IdempotencyAutoConfiguration;
import dev.idempotency.autoconfigure.store.IdempotencyStoreAutoConfiguration;
import dev.idempotency.core.ClaimResult.Status;
import dev.idempotency.core.ClaimResult;
import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.core.RecordedKey;
import dev.idempotency.store.jdbc.autoconfigure.IdempotencyJdbcStoreAutoConfiguration;
import dev.idempotency.store.redis.autoconfigure.IdempotencyRedisStoreAutoConfiguration;
import dev.idempotency.store.redisson.RedissonIdempotencyStore;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.redisson.api.RedissonClient;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Redisson client the starter builds from {@code spring.data.redis.*} when the application has
 * none, on a local Redis set-up started once per class: each subclass starts its own and checks
 * where the Redisson store's entries land.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractRedissonClientIntegrationTests {

	private static final Duration LEASE = Duration.ofMinutes(1);

	private static final Duration RETENTION = Duration.ofHours(1);

	private String[] redis;

	/**
	 * Starts the Redis set-up.
	 * @return its {@code spring.data.redis.*} properties
	 */
	protected abstract String[] startRedis();

	protected abstract void stopRedis();

	@BeforeAll
	void start() {
		this.redis = startRedis();
	}

	@AfterAll
	void stop() {
		stopRedis();
	}

	/**
	 * Runs the starter with the Redisson store on the set-up, and hands the client it built and the
	 * store to {@code assertions}.
	 */
	protected void run(BiConsumer<RedissonClient, RedissonIdempotencyStore> assertions) {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, TransactionAutoConfiguration.class,
					IdempotencyRedissonAutoConfiguration.class, IdempotencyStoreAutoConfiguration.class,
					IdempotencyJdbcStoreAutoConfiguration.class, IdempotencyRedisStoreAutoConfiguration.class,
					IdempotencyAutoConfiguration.class))
			.withPropertyValues(this.redis)
			.withPropertyValues("idempotency.store.type=redisson",
					"idempotency.redisson.key-prefix=redisson-client-" + UUID.randomUUID() + ":",
					"spring.data.redis.timeout=5s")
			.run((context) -> {
				assertThat(context).hasNotFailed().hasBean("idempotencyRedissonClient");
				assertions.accept(context.getBean(RedissonClient.class),
						context.getBean(RedissonIdempotencyStore.class));
			});
	}

	/**
	 * Claims, fingerprints and completes 30 keys, each a duplicate afterwards, and reads a
	 * fingerprint back.
	 * @return the keys' entries, in claim order
	 */
	protected static List<String> claimAndComplete(RedissonIdempotencyStore store) {
		List<String> entries = new ArrayList<>();
		for (int i = 0; i < 30; i++) {
			IdempotencyKey key = new IdempotencyKey("orders", "o-" + i);
			ClaimResult claim = store.claim(key, LEASE, RETENTION);
			assertThat(claim.isClaimed()).isTrue();
			store.recordFingerprint(key, claim, "fp-" + i);
			store.complete(key, claim, RETENTION);
			assertThat(store.claim(key, LEASE, RETENTION).status()).isEqualTo(Status.DUPLICATE);
			entries.add(store.storageKey(key));
		}
		RecordedKey recorded = store.recorded(new IdempotencyKey("orders", "o-7"));
		assertThat(recorded).isNotNull();
		assertThat(recorded.fingerprint()).isEqualTo("fp-7");
		return entries;
	}

}
