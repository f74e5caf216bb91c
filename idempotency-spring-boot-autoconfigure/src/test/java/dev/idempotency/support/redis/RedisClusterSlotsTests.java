package dev.idempotency.support.redis;

import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.ClusterSlotHashUtil;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Tests for {@link RedisClusterSlots}, checked against spring-data-redis's
 * {@link ClusterSlotHashUtil}, which the Redis client's cluster routing follows.
 */
class RedisClusterSlotsTests {

	/** Characters that make hash tags likely, and some that take more than one UTF-8 byte. */
	private static final String ALPHABET = "{}{}{}ab:z0é€\uD83D\uDE00";

	@Test
	void crc16IsTheXmodemVariantThatRedisClusterUses() {
		byte[] check = "123456789".getBytes(StandardCharsets.US_ASCII);
		assertThat(RedisClusterSlots.crc16(check, 0, check.length)).isEqualTo(0x31C3);
	}

	@Test
	void slotsOfKeysWithAndWithoutHashTagsAreThoseOfSpringDataRedis() {
		for (String key : List.of("x}", "{}z", "{a}b", "}{", "{", "}", "{}", "{{}}", "a{b", "a{b}c", "a{}{b}",
				"{user1000}.following", "foo{}{bar}", "foo{{bar}}zap", "foo{bar}{zap}", "idempotency:points:order-42",
				"idempotency:contract:x}", "idempotency:contract:{}z")) {
			assertThat(RedisClusterSlots.slot(key)).as(key).isEqualTo(ClusterSlotHashUtil.calculateSlot(key));
		}
	}

	@Test
	void slotsOfRandomKeysAreThoseOfSpringDataRedis() {
		Random random = new Random(27);
		for (int i = 0; i < 20_000; i++) {
			String key = randomKey(random);
			assertThat(RedisClusterSlots.slot(key)).as(key).isEqualTo(ClusterSlotHashUtil.calculateSlot(key));
			// A key with a tag keeps its slot whatever follows it; one without moves (but by chance).
			int slot = ClusterSlotHashUtil.calculateSlot(key);
			boolean tagged = ClusterSlotHashUtil.calculateSlot(key + "#1") == slot
					&& ClusterSlotHashUtil.calculateSlot(key + "#2") == slot;
			assertThat(RedisClusterSlots.hasHashTag(key)).as(key).isEqualTo(tagged);
		}
	}

	@Test
	void hashTagIsTheTextBetweenTheFirstOpeningBraceAndTheNextClosingOne() {
		assertThat(RedisClusterSlots.hasHashTag("{a}b")).isTrue();
		assertThat(RedisClusterSlots.hasHashTag("p:{orders}:1")).isTrue();
		assertThat(RedisClusterSlots.hasHashTag("a}{b}")).isTrue();
		assertThat(RedisClusterSlots.hasHashTag("{}z")).isFalse();
		assertThat(RedisClusterSlots.hasHashTag("{}{a}")).as("an empty first tag is no tag at all").isFalse();
		assertThat(RedisClusterSlots.hasHashTag("x}")).isFalse();
		assertThat(RedisClusterSlots.hasHashTag("}{")).isFalse();
		assertThat(RedisClusterSlots.hasHashTag("a{b")).isFalse();
		assertThat(RedisClusterSlots.hasHashTag("plain")).isFalse();
	}

	@Test
	void everySlotHasAShortBraceFreeTagThatHashesToIt() {
		Set<String> tags = new HashSet<>();
		for (int slot = 0; slot < RedisClusterSlots.SLOTS; slot++) {
			String tag = RedisClusterSlots.tagOf(slot);
			assertThat(tag).as("slot %d", slot).matches("[0-9]{1,6}");
			assertThat(ClusterSlotHashUtil.calculateSlot(tag)).isEqualTo(slot);
			assertThat(ClusterSlotHashUtil.calculateSlot("{" + tag + "}anything{}")).isEqualTo(slot);
			tags.add(tag);
		}
		assertThat(tags).hasSize(RedisClusterSlots.SLOTS);
	}

	/** The table is defined, not merely built: the same tags in every process and version. */
	@Test
	void eachSlotsTagIsTheSmallestDecimalNumberInThatSlot() {
		String[] expected = new String[RedisClusterSlots.SLOTS];
		int found = 0;
		for (int n = 0; found < RedisClusterSlots.SLOTS; n++) {
			int slot = ClusterSlotHashUtil.calculateSlot(Integer.toString(n));
			if (expected[slot] == null) {
				expected[slot] = Integer.toString(n);
				found++;
			}
		}
		for (int slot = 0; slot < RedisClusterSlots.SLOTS; slot++) {
			assertThat(RedisClusterSlots.tagOf(slot)).as("slot %d", slot).isEqualTo(expected[slot]);
		}
	}

	@Test
	void slotOutsideTheClusterHasNoTag() {
		assertThatIllegalArgumentException().isThrownBy(() -> RedisClusterSlots.tagOf(-1));
		assertThatIllegalArgumentException().isThrownBy(() -> RedisClusterSlots.tagOf(RedisClusterSlots.SLOTS));
	}

	static String randomKey(Random random) {
		int length = 1 + random.nextInt(12);
		StringBuilder key = new StringBuilder();
		while (key.length() < length) {
			int pick = random.nextInt(ALPHABET.length() + 4);
			if (pick >= ALPHABET.length()) {
				key.append((char) ('a' + random.nextInt(26)));
			}
			else if (Character.isHighSurrogate(ALPHABET.charAt(pick))) {
				key.append(ALPHABET, pick, pick + 2);
			}
			else if (!Character.isLowSurrogate(ALPHABET.charAt(pick))) {
				key.append(ALPHABET.charAt(pick));
			}
		}
		return key.toString();
	}

}
