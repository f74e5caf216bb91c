package dev.idempotency.store.redisson;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import dev.idempotency.core.ClaimResult;
import dev.idempotency.core.ClaimResult.Status;
import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.testsupport.LocalRedisCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;
import org.redisson.config.ReadMode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Redisson store on an application's own client that reads from replicas (Redisson's default,
 * {@link ReadMode#SLAVE}), on a local 3-primary, 3-replica Redis Cluster. A claim refused by the
 * primary reads the entry to tell a duplicate from a claim in progress; that read goes to the primary
 * too (a script in {@code READ_WRITE} mode), so a key just completed is a duplicate, never still in
 * progress on a replica that has not caught up. The replicas are held behind on purpose
 * ({@code CLIENT PAUSE WRITE} on a replica holds back its replication stream while it still answers
 * reads): a plain {@code GET}, which this client sends to a replica, answered "in progress" in every
 * round.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RedissonIdempotencyStoreReplicaReadsIntegrationTests {

	private static final Duration LEASE = Duration.ofMinutes(1);

	private static final Duration RETENTION = Duration.ofHours(1);

	private static final int ROUNDS = 300;

	private static final Duration REPLICAS_BEHIND = Duration.ofSeconds(20);

	private LocalRedisCluster cluster;

	private RedissonClient redisson;

	@BeforeAll
	void start() {
		this.cluster = LocalRedisCluster.start();
		Config config = new Config();
		config.useClusterServers()
			.addNodeAddress(this.cluster.ports().stream().map((port) -> "redis://127.0.0.1:" + port).toArray(String[]::new))
			.setReadMode(ReadMode.SLAVE)
			.setTimeout(5_000);
		this.redisson = Redisson.create(config);
	}

	@AfterAll
	void stop() {
		try {
			if (this.redisson != null) {
				this.redisson.shutdown();
			}
		}
		finally {
			if (this.cluster != null) {
				this.cluster.close();
			}
		}
	}

	@Test
	void keyCompletedThenClaimedAtOnceIsADuplicateOnAClientThatReadsFromReplicas() {
		assertThat(this.redisson.getConfig().useClusterServers().getReadMode()).isEqualTo(ReadMode.SLAVE);
		RedissonIdempotencyStore store = new RedissonIdempotencyStore(this.redisson,
				"redisson-replica-reads-" + UUID.randomUUID() + ":");
		assertThat(completedThenClaimed(store, "caught-up-")).as("not duplicates, replicas caught up").isEmpty();
		List<Integer> replicas = this.cluster.replicas();
		assertThat(replicas).hasSize(3);
		for (int replica : replicas) {
			assertThat(this.cluster.cli(replica, "CLIENT", "PAUSE", String.valueOf(REPLICAS_BEHIND.toMillis()), "WRITE"))
				.contains("OK");
		}
		try {
			assertThat(completedThenClaimed(store, "behind-")).as("not duplicates, replicas behind").isEmpty();
			// The replicas were behind indeed: this client's plain read (from a replica) misses the last key.
			String last = store.storageKey(new IdempotencyKey("orders", "behind-" + (ROUNDS - 1)));
			assertThat(this.redisson.getBucket(last, StringCodec.INSTANCE).get()).as("the last key on its replica")
				.isNull();
		}
		finally {
			for (int replica : replicas) {
				this.cluster.cli(replica, "CLIENT", "UNPAUSE");
			}
		}
	}

	/** Claims, completes and claims again {@value #ROUNDS} keys; returns those not a duplicate. */
	private static List<String> completedThenClaimed(RedissonIdempotencyStore store, String prefix) {
		List<String> notDuplicate = new ArrayList<>();
		for (int i = 0; i < ROUNDS; i++) {
			IdempotencyKey key = new IdempotencyKey("orders", prefix + i);
			ClaimResult claim = store.claim(key, LEASE, RETENTION);
			assertThat(claim.isClaimed()).isTrue();
			store.complete(key, claim, RETENTION);
			Status again = store.claim(key, LEASE, RETENTION).status();
			if (again != Status.DUPLICATE) {
				notDuplicate.add(key.value() + ": " + again);
			}
		}
		return notDuplicate;
	}

}
