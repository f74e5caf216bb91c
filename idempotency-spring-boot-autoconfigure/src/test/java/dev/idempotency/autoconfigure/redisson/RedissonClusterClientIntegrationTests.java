package dev.idempotency.autoconfigure.redisson;

import java.util.HashSet;
import java.util.Set;

import dev.idempotency.testsupport.LocalRedisCluster;
import org.junit.jupiter.api.Test;
import org.redisson.config.ReadMode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Redisson client the starter builds from {@code spring.data.redis.cluster.nodes} when the
 * application has none, on a local 3-primary, 3-replica Redis Cluster: the Redisson store claims,
 * completes and records details with keys on every primary.
 */
class RedissonClusterClientIntegrationTests extends AbstractRedissonClientIntegrationTests {

	private LocalRedisCluster cluster;

	@Override
	protected String[] startRedis() {
		this.cluster = LocalRedisCluster.start();
		return this.cluster.properties();
	}

	@Override
	protected void stopRedis() {
		if (this.cluster != null) {
			this.cluster.close();
		}
	}

	@Test
	void redissonStoreOnTheClientBuiltFromClusterNodesSpreadsItsKeysOverEveryPrimary() {
		run((client, store) -> {
			assertThat(client.getConfig().isClusterConfig()).isTrue();
			// A claim's read on a lagging replica would see a completed key as still in progress.
			assertThat(client.getConfig().useClusterServers().getReadMode()).isEqualTo(ReadMode.MASTER);
			Set<Integer> primaries = new HashSet<>();
			for (String entry : claimAndComplete(store)) {
				primaries.add(this.cluster.primaryOf(entry));
			}
			assertThat(primaries).containsExactlyInAnyOrderElementsOf(this.cluster.primaries());
		});
	}

}
