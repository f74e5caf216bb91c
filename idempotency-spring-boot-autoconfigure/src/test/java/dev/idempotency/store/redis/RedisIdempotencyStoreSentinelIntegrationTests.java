package dev.idempotency.store.redis;

import java.time.Duration;

import dev.idempotency.core.ClaimResult;
import dev.idempotency.core.ClaimResult.Status;
import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.testsupport.LocalRedisSentinel;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The Redis store's contract on a local primary with one replica and three Sentinels, through the
 * Lettuce client that Spring Boot configures from {@code spring.data.redis.sentinel.master} and
 * {@code nodes}: the client asks the Sentinels for the primary and writes there.
 */
class RedisIdempotencyStoreSentinelIntegrationTests extends AbstractRedisIdempotencyStoreIntegrationTests {

	private LocalRedisSentinel sentinel;

	private BootRedisClient client;

	@Override
	protected RedisConnectionFactory connect() {
		this.sentinel = LocalRedisSentinel.start();
		this.client = BootRedisClient.on(this.sentinel);
		return this.client.connectionFactory();
	}

	@Override
	protected void disconnect(RedisConnectionFactory connectionFactory) {
		this.client.close();
	}

	@Test
	void clientFindsThePrimaryThroughTheSentinels() {
		LettuceConnectionFactory factory = (LettuceConnectionFactory) this.redis.getRequiredConnectionFactory();
		assertThat(factory.getSentinelConfiguration()).isNotNull();
		assertThat(factory.getSentinelConfiguration().getMaster().getName()).isEqualTo(LocalRedisSentinel.MASTER);
		IdempotencyKey key = key("on-the-primary");
		claimAndSucceed(key);
		// The entry was written on the primary and replicated to the replica.
		int replica = this.sentinel.serverPorts().get(1);
		assertThat(this.sentinel.primary()).isNotEqualTo(replica);
		await().atMost(Duration.ofSeconds(5))
			.until(() -> "COMPLETED".equals(this.sentinel.cli(replica, "GET", this.store.storageKey(key)).trim()));
	}

	/**
	 * A set-up of its own, as the failover leaves it without a replica: a key completed (and
	 * replicated) before the primary is killed is still a duplicate on the promoted replica, and new
	 * claims are granted there, through the same client.
	 */
	@Test
	void storeFollowsAFailoverAndKeepsWhatWasReplicated() {
		LocalRedisSentinel own = LocalRedisSentinel.start();
		try (BootRedisClient ownClient = BootRedisClient.on(own)) {
			StringRedisTemplate redis = new StringRedisTemplate(ownClient.connectionFactory());
			RedisIdempotencyStore store = new RedisIdempotencyStore(redis, this.prefix + "failover:");
			IdempotencyKey before = key("before-the-failover");
			ClaimResult claim = store.claim(before, LEASE, RETENTION);
			store.complete(before, claim, RETENTION);
			// The test wants this entry replicated before the kill; the store itself never waits.
			int replica = own.serverPorts().get(1);
			await().atMost(Duration.ofSeconds(5))
				.until(() -> "COMPLETED".equals(own.cli(replica, "GET", store.storageKey(before)).trim()));
			int killed = own.killPrimary();
			int promoted = own.awaitFailover(killed, Duration.ofSeconds(30));
			assertThat(promoted).isEqualTo(replica);
			IdempotencyKey after = key("after-the-failover");
			await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> {
				store.claim(new IdempotencyKey("probe", "p"), LEASE, RETENTION);
				return true;
			});
			assertThat(store.claim(before, LEASE, RETENTION).status()).isEqualTo(Status.DUPLICATE);
			assertThat(store.claim(after, LEASE, RETENTION).isClaimed()).isTrue();
			assertThat(own.role(promoted)).isEqualTo("master");
		}
	}

}
