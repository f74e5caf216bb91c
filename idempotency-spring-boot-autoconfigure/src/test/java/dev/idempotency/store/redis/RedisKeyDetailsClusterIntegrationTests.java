package dev.idempotency.store.redis;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;

import dev.idempotency.core.ClaimResult;
import dev.idempotency.core.ClaimResult.Status;
import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.core.KeyRecord;
import dev.idempotency.core.KeyRelease;
import dev.idempotency.core.RecordedKey;
import dev.idempotency.support.redis.KeyDetailsScripts;
import dev.idempotency.testsupport.LocalRedisCluster;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Redis store's key details (fingerprints, stored results) on a local 3-primary, 3-replica Redis
 * Cluster, through the Lettuce cluster client that Spring Boot configures from
 * {@code spring.data.redis.cluster.nodes}: the entries spread over every primary, and each entry's
 * details hash ({@code {<entry>}:details} for the usual entry, see
 * {@link KeyDetailsScripts#detailsKey}) sits in the entry's slot, on the entry's primary, so the
 * scripts that touch both run on one node, whatever braces the key contains.
 */
class RedisKeyDetailsClusterIntegrationTests extends AbstractRedisKeyDetailsIntegrationTests {

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
	void detailsSitInTheirEntrysSlotOnEveryPrimary() {
		Set<Integer> primaries = new HashSet<>();
		for (int i = 0; i < 30; i++) {
			IdempotencyKey key = key("spread-" + i);
			process(key, FINGERPRINT_A, "\"result-" + i + "\"");
			assertThat(this.store.recorded(key)).isEqualTo(new RecordedKey(FINGERPRINT_A, "\"result-" + i + "\""));
			String entry = this.store.storageKey(key);
			String details = KeyDetailsScripts.detailsKey(entry);
			int primary = this.cluster.primaryOf(entry);
			primaries.add(primary);
			// Asked directly, without following redirections: the entry's own primary holds both keys.
			assertThat(keySlot(details)).isEqualTo(keySlot(entry));
			assertThat(this.cluster.cli(primary, "GET", entry).trim()).isEqualTo("COMPLETED");
			assertThat(this.cluster.cli(primary, "HGET", details, KeyDetailsScripts.FINGERPRINT).trim())
				.isEqualTo(FINGERPRINT_A);
		}
		assertThat(primaries).containsExactlyInAnyOrderElementsOf(this.cluster.primaries());
	}

	@Test
	void prefixWithAHashTagPutsEveryEntryAndItsDetailsInTheTagsSlot() {
		String tag = "{details-" + UUID.randomUUID() + "}";
		RedisIdempotencyStore tagged = new RedisIdempotencyStore(this.redis, tag + ":idem:");
		IdempotencyKey first = key("tagged-1");
		IdempotencyKey second = key("tagged-2");
		for (IdempotencyKey key : new IdempotencyKey[] { first, second }) {
			ClaimResult claim = tagged.claim(key, LEASE, RETENTION);
			tagged.recordFingerprint(key, claim, FINGERPRINT_B);
			tagged.recordResult(key, claim, "\"" + key.value() + "\"");
			tagged.complete(key, claim, RETENTION);
			assertThat(tagged.claim(key, LEASE, RETENTION).status()).isEqualTo(Status.DUPLICATE);
			assertThat(tagged.recorded(key)).isEqualTo(new RecordedKey(FINGERPRINT_B, "\"" + key.value() + "\""));
			String entry = tagged.storageKey(key);
			assertThat(KeyDetailsScripts.detailsKey(entry)).isEqualTo(entry + ":details");
			assertThat(keySlot(KeyDetailsScripts.detailsKey(entry))).isEqualTo(keySlot(tag));
			assertThat(keySlot(entry)).isEqualTo(keySlot(tag));
		}
	}

	/**
	 * Keys with braces, with and without a hash tag of their own: every script that touches an
	 * entry and its details hash runs (a cluster refuses one whose keys are in two slots with
	 * {@code CROSSSLOT}), and the hash is in the entry's slot, as the server computes it.
	 */
	@Test
	void keysWithBracesAreClaimedRecordedInspectedAndReleased() {
		for (String value : List.of("x}", "{}z", "{a}b", "}{", "}", "{}", "a}{b}", "{", "{}{c}")) {
			IdempotencyKey key = key(value);
			String entry = this.store.storageKey(key);
			ClaimResult claim = this.store.claim(key, LEASE, RETENTION);
			assertThat(claim.status()).as(entry).isEqualTo(Status.CLAIMED);
			this.store.recordFingerprint(key, claim, FINGERPRINT_A);
			this.store.recordResult(key, claim, "\"" + value + "\"");
			assertThat(this.store.renew(key, claim, LEASE)).isTrue();
			this.store.complete(key, claim, RETENTION);
			assertThat(this.store.claim(key, LEASE, RETENTION).status()).isEqualTo(Status.DUPLICATE);
			assertThat(this.store.recorded(key)).isEqualTo(new RecordedKey(FINGERPRINT_A, "\"" + value + "\""));
			assertThat(this.store.inspect(key)).satisfies((record) -> {
				assertThat(record.status()).isEqualTo(KeyRecord.Status.COMPLETED);
				assertThat(record.fingerprintPresent()).isTrue();
				assertThat(record.resultPresent()).isTrue();
			});
			assertThat(this.store.release(key, false)).isEqualTo(KeyRelease.RELEASED);
			assertThat(this.store.inspect(key)).isNull();
			assertThat(this.cluster.cli(this.cluster.primaryOf(entry), "EXISTS",
					KeyDetailsScripts.detailsKey(entry)).trim()).isEqualTo("0");
			assertThat(this.store.claim(key, LEASE, RETENTION).status()).isEqualTo(Status.CLAIMED);
			assertThat(keySlot(KeyDetailsScripts.detailsKey(entry))).as(entry).isEqualTo(keySlot(entry));
		}
	}

	/** The slot the server computes for {@code key} ({@code CLUSTER KEYSLOT}). */
	private String keySlot(String key) {
		return this.cluster.cli(this.cluster.primaries().get(0), "CLUSTER", "KEYSLOT", key).trim();
	}

}
