package dev.idempotency.store.redis;

import java.util.HashSet;
import java.util.Set;

import dev.idempotency.core.ClaimResult;
import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.support.redis.KeyDetailsScripts;
import dev.idempotency.testsupport.LocalRedisCluster;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.ClusterSlotHashUtil;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Redis store's contract on a local 3-primary, 3-replica Redis Cluster, through the Lettuce
 * cluster client that Spring Boot configures from {@code spring.data.redis.cluster.nodes}. The key
 * prefix has no hash tag, so the entries spread over the slots of all primaries; each entry's details
 * hash shares its slot ({@code {<entry>}:details}), so the two-key scripts run on one node.
 */
class RedisIdempotencyStoreClusterIntegrationTests extends AbstractRedisIdempotencyStoreIntegrationTests {

	private LocalRedisCluster cluster;

	private BootRedisClient client;

	@Override
	protected RedisConnectionFactory connect() {
		this.cluster = LocalRedisCluster.start();
		this.client = BootRedisClient.on(this.cluster);
		return this.client.connectionFactory();
	}

	@Override
	protected void disconnect(RedisConnectionFactory connectionFactory) {
		this.client.close();
	}

	@Test
	void clientIsTheClusterClient() {
		assertThat(this.redis.getRequiredConnectionFactory().getConnection())
			.isInstanceOf(RedisClusterConnection.class);
	}

	@Test
	void entriesSpreadOverEveryPrimary() {
		Set<Integer> primaries = new HashSet<>();
		for (int i = 0; i < 30; i++) {
			IdempotencyKey key = key("spread-" + i);
			ClaimResult claim = claimAndSucceed(key);
			assertThat(claim.isClaimed()).isTrue();
			primaries.add(this.cluster.primaryOf(this.store.storageKey(key)));
		}
		assertThat(primaries).containsExactlyInAnyOrderElementsOf(this.cluster.primaries());
	}

	@Test
	void detailsShareTheSlotOfTheirEntry() {
		IdempotencyKey key = key("with-details");
		ClaimResult claim = this.store.claim(key, LEASE, RETENTION);
		this.store.recordFingerprint(key, claim, "fp-1");
		this.store.recordResult(key, claim, "42");
		this.store.complete(key, claim, RETENTION);
		assertThat(this.store.recorded(key)).satisfies((recorded) -> {
			assertThat(recorded.fingerprint()).isEqualTo("fp-1");
			assertThat(recorded.result()).isEqualTo("42");
		});
		String entry = this.store.storageKey(key);
		assertThat(ClusterSlotHashUtil.calculateSlot(KeyDetailsScripts.detailsKey(entry)))
			.isEqualTo(ClusterSlotHashUtil.calculateSlot(entry));
	}

}
