package dev.idempotency.support.redis;

import java.nio.charset.StandardCharsets;

/**
 * Redis Cluster hash slots, as the cluster computes them: CRC16 (XMODEM) of the key's bytes, or of
 * its hash tag, modulo 16384. The hash tag is what lies between the key's first {@code '{'} and the
 * first {@code '}'} after it, when that is not empty; otherwise the whole key is hashed. Here, not
 * in the Redis client, because the Redis and the Redisson stores both name keys that a script
 * touches together, and neither may depend on the other's client.
 *
 * @since 0.2.0
 */
public final class RedisClusterSlots {

	/** The number of hash slots of a Redis Cluster. */
	public static final int SLOTS = 16384;

	private static final int[] CRC16_TABLE = crc16Table();

	private RedisClusterSlots() {
	}

	/**
	 * The hash slot of a key.
	 * @param key the key, hashed as its UTF-8 bytes
	 * @return the slot, from 0 to 16383
	 */
	public static int slot(String key) {
		byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
		int open = indexOf(bytes, (byte) '{', 0);
		if (open >= 0) {
			int close = indexOf(bytes, (byte) '}', open + 1);
			if (close > open + 1) {
				return crc16(bytes, open + 1, close) & (SLOTS - 1);
			}
		}
		return crc16(bytes, 0, bytes.length) & (SLOTS - 1);
	}

	/**
	 * Whether a key has a hash tag, which then decides its slot: a {@code '{'} followed by a
	 * {@code '}'} with at least one character between the first of each.
	 * @param key the key
	 * @return {@code true} if the key's slot is its tag's
	 */
	public static boolean hasHashTag(String key) {
		int open = key.indexOf('{');
		return open >= 0 && key.indexOf('}', open + 1) > open + 1;
	}

	/**
	 * A short string without braces whose own slot is {@code slot}, the smallest decimal number that
	 * has it: as a hash tag, {@code "{" + tag + "}"}, it puts any key in that slot. The same for
	 * every process and version, so that names built with it stay where they were written.
	 * @param slot the slot, from 0 to 16383
	 * @return the tag, at most six digits
	 */
	public static String tagOf(int slot) {
		if (slot < 0 || slot >= SLOTS) {
			throw new IllegalArgumentException("slot must be from 0 to " + (SLOTS - 1) + ": " + slot);
		}
		return Tags.BY_SLOT[slot];
	}

	static int crc16(byte[] bytes, int from, int to) {
		int crc = 0;
		for (int i = from; i < to; i++) {
			crc = ((crc << 8) ^ CRC16_TABLE[((crc >>> 8) ^ bytes[i]) & 0xff]) & 0xffff;
		}
		return crc;
	}

	private static int indexOf(byte[] bytes, byte wanted, int from) {
		for (int i = from; i < bytes.length; i++) {
			if (bytes[i] == wanted) {
				return i;
			}
		}
		return -1;
	}

	/** CRC16-CCITT, polynomial 0x1021, as Redis Cluster's {@code crc16.c} (XMODEM). */
	private static int[] crc16Table() {
		int[] table = new int[256];
		for (int b = 0; b < 256; b++) {
			int crc = b << 8;
			for (int bit = 0; bit < 8; bit++) {
				crc = ((crc & 0x8000) != 0) ? ((crc << 1) ^ 0x1021) : (crc << 1);
			}
			table[b] = crc & 0xffff;
		}
		return table;
	}

	/** Built on first use: the decimal numbers from 0 up, until every slot has one. */
	private static final class Tags {

		static final String[] BY_SLOT = build();

		private static String[] build() {
			String[] bySlot = new String[SLOTS];
			// The decimal digits of n, counted up in place: no string per number tried (about 110,000).
			byte[] digits = new byte[10];
			int length = 1;
			digits[0] = '0';
			int found = 0;
			while (found < SLOTS) {
				int slot = crc16(digits, 0, length) & (SLOTS - 1);
				if (bySlot[slot] == null) {
					bySlot[slot] = new String(digits, 0, length, StandardCharsets.US_ASCII);
					found++;
				}
				length = increment(digits, length);
			}
			return bySlot;
		}

		private static int increment(byte[] digits, int length) {
			for (int i = length - 1; i >= 0; i--) {
				if (digits[i] != '9') {
					digits[i]++;
					return length;
				}
				digits[i] = '0';
			}
			System.arraycopy(digits, 0, digits, 1, length);
			digits[0] = '1';
			return length + 1;
		}

	}

}
