package dev.idempotency.support.redis;

import java.util.List;
import java.util.Random;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.ClusterSlotHashUtil;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link KeyDetailsScripts#detailsKey}: whatever the entry's key contains, its details
 * hash is in the entry's Redis Cluster slot (computed here by spring-data-redis, as the cluster
 * client routes).
 */
class KeyDetailsScriptsTests {

	@Test
	void detailsOfEntriesWithBracesButNoHashTagShareTheEntrysSlot() {
		for (String entry : List.of("x}", "{}z", "}{", "}", "{}", "{}{a}", "a}{b", "idempotency:contract:x}",
				"idempotency:contract:{}z", "idempotency:contract:}{", "idempotency:}:k")) {
			String details = KeyDetailsScripts.detailsKey(entry);
			assertThat(ClusterSlotHashUtil.calculateSlot(details)).as(details)
				.isEqualTo(ClusterSlotHashUtil.calculateSlot(entry));
			assertThat(details).matches("\\{[0-9]{1,6}\\}" + Pattern.quote(entry) + ":details");
		}
	}

	@Test
	void detailsOfRandomEntriesShareTheEntrysSlot() {
		Random random = new Random(7);
		for (int i = 0; i < 20_000; i++) {
			String entry = "idempotency:contract:" + RedisClusterSlotsTests.randomKey(random);
			String details = KeyDetailsScripts.detailsKey(entry);
			assertThat(ClusterSlotHashUtil.calculateSlot(details)).as(details)
				.isEqualTo(ClusterSlotHashUtil.calculateSlot(entry));
		}
	}

	@Test
	void entryWithoutAClosingBraceIsTheDetailsHashTag() {
		assertThat(KeyDetailsScripts.detailsKey("p:orders:1")).isEqualTo("{p:orders:1}:details");
		assertThat(KeyDetailsScripts.detailsKey("p:a{b")).isEqualTo("{p:a{b}:details");
		assertThat(ClusterSlotHashUtil.calculateSlot("{p:a{b}:details"))
			.isEqualTo(ClusterSlotHashUtil.calculateSlot("p:a{b"));
	}

	@Test
	void entryWithAHashTagKeepsIt() {
		assertThat(KeyDetailsScripts.detailsKey("p:{orders}:1")).isEqualTo("p:{orders}:1:details");
		assertThat(KeyDetailsScripts.detailsKey("{a}b")).isEqualTo("{a}b:details");
		assertThat(KeyDetailsScripts.detailsKey("a}{b}")).isEqualTo("a}{b}:details");
	}

	@Test
	void detailsKeyOfAnEntryIsAlwaysTheSame() {
		assertThat(KeyDetailsScripts.detailsKey("idempotency:contract:x}"))
			.isEqualTo(KeyDetailsScripts.detailsKey("idempotency:contract:x}"))
			.isEqualTo("{" + RedisClusterSlots.tagOf(ClusterSlotHashUtil.calculateSlot("idempotency:contract:x}"))
					+ "}idempotency:contract:x}:details");
	}

}
