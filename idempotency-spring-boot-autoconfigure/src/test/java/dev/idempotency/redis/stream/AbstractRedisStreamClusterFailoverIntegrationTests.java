package dev.idempotency.redis.stream;

import java.time.Duration;

import dev.idempotency.testsupport.LocalRedisCluster;

/**
 * The failover on a local 3-primary, 3-replica Redis Cluster, through Spring Boot's Lettuce cluster
 * client: the primary that serves the stream's slot is killed, and its replica is promoted
 * ({@code cluster-node-timeout} {@value LocalRedisCluster#NODE_TIMEOUT_MILLIS} ms).
 */
abstract class AbstractRedisStreamClusterFailoverIntegrationTests extends AbstractRedisStreamFailoverIntegrationTests {

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

	@Override
	protected int primaryOf(String key) {
		return this.cluster.primaryOf(key);
	}

	@Override
	protected void killAndAwaitFailover(int port) {
		this.cluster.kill(port);
		this.cluster.awaitHealthy(Duration.ofSeconds(30));
	}

	@Override
	protected String topology() {
		return "Cluster";
	}

}
