package dev.idempotency.store.redisson.autoconfigure;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import dev.idempotency.core.ClaimResult.Status;
import dev.idempotency.core.ClaimResult;
import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.core.KeyRecord;
import dev.idempotency.core.KeyRelease;
import dev.idempotency.core.RecordedKey;
import dev.idempotency.support.redis.KeyDetailsScripts;
import dev.idempotency.testsupport.LocalRedisCluster;
import org.junit.jupiter.api.Test;
import org.redisson.config.ReadMode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Redisson client the starter builds from {@code spring.data.redis.cluster.nodes} when the
 * application has none, on a local 3-primary, 3-replica Redis Cluster: the Redisson store claims,
 * completes and records details with keys on every primary, and with keys that contain braces.
 */
class RedissonClusterClientIntegrationTests extends AbstractRedissonClientIntegrationTests {

	private static final Duration LEASE = Duration.ofMinutes(1);

	private static final Duration RETENTION = Duration.ofHours(1);

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

	/**
	 * Keys with braces, with and without a hash tag of their own: every script that touches an
	 * entry and its details hash runs on one node (no {@code CROSSSLOT}).
	 */
	@Test
	void keysWithBracesAreClaimedRecordedInspectedAndReleased() {
		run((client, store) -> {
			for (String value : List.of("x}", "{}z", "{a}b", "}{", "}", "{}", "a}{b}", "{", "{}{c}")) {
				IdempotencyKey key = new IdempotencyKey("orders", value);
				String entry = store.storageKey(key);
				ClaimResult claim = store.claim(key, LEASE, RETENTION);
				assertThat(claim.status()).as(entry).isEqualTo(Status.CLAIMED);
				store.recordFingerprint(key, claim, "fp");
				store.recordResult(key, claim, "\"" + value + "\"");
				assertThat(store.renew(key, claim, LEASE)).isTrue();
				store.complete(key, claim, RETENTION);
				assertThat(store.claim(key, LEASE, RETENTION).status()).isEqualTo(Status.DUPLICATE);
				assertThat(store.recorded(key)).isEqualTo(new RecordedKey("fp", "\"" + value + "\""));
				assertThat(store.inspect(key)).satisfies((record) -> {
					assertThat(record.status()).isEqualTo(KeyRecord.Status.COMPLETED);
					assertThat(record.fingerprintPresent()).isTrue();
					assertThat(record.resultPresent()).isTrue();
				});
				assertThat(store.release(key, false)).isEqualTo(KeyRelease.RELEASED);
				assertThat(store.inspect(key)).isNull();
				assertThat(store.claim(key, LEASE, RETENTION).status()).isEqualTo(Status.CLAIMED);
				assertThat(keySlot(KeyDetailsScripts.detailsKey(entry))).as(entry).isEqualTo(keySlot(entry));
			}
		});
	}

	/** The slot the server computes for {@code key} ({@code CLUSTER KEYSLOT}). */
	private String keySlot(String key) {
		return this.cluster.cli(this.cluster.primaries().get(0), "CLUSTER", "KEYSLOT", key).trim();
	}

}
