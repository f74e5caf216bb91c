package dev.idempotency.support.redis;

/**
 * The Lua scripts and key names with which the Redis and Redisson stores keep the details of a key
 * (fingerprint, result) beside its entry, and inspect and release single keys for people
 * ({@code IdempotencyKeyInspector}), shared so that the two stores, which may not depend on each
 * other, cannot drift apart. Both stores write an entry as {@code PROCESSING:<token>} while claimed
 * and {@code COMPLETED} once done.
 * <p>
 * The details live in a hash of their own, {@link #detailsKey(String) beside the entry}, so the
 * entry stays the plain string that claims, the Redis Stream adapter's atomic completion and
 * {@code redis-cli} read. The hash expires with the entry: it is given the entry's remaining time to
 * live when written, and the stores extend both together when they renew or complete a claim whose
 * details they recorded. Only a claim's holder writes them (compared by token, in the same script).
 *
 * @since 0.2.0
 */
public final class KeyDetailsScripts {

	/** Hash field of the fingerprint. */
	public static final String FINGERPRINT = "fingerprint";

	/** Hash field of the serialized result. */
	public static final String RESULT = "result";

	/**
	 * Writes one field of the details if the claim still holds the entry, and gives the hash the
	 * entry's remaining time to live. A fingerprint starts the details afresh: it is written first,
	 * for a claim just granted, and must not meet a result left by a claim before it.
	 * <p>
	 * KEYS[1] the entry, KEYS[2] the details; ARGV[1] the claim's in-progress value, ARGV[2] the
	 * field, ARGV[3] its value, ARGV[4] {@code 1} to start afresh. Returns 1 if written, 0 if the
	 * claim no longer holds the entry.
	 */
	public static final String RECORD = """
			if redis.call('GET', KEYS[1]) ~= ARGV[1] then
				return 0
			end
			if ARGV[4] == '1' then
				redis.call('DEL', KEYS[2])
			end
			redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
			local ttl = redis.call('PTTL', KEYS[1])
			if ttl > 0 then
				redis.call('PEXPIRE', KEYS[2], ttl)
			end
			return 1""";

	/**
	 * Reads the details of an entry that exists: {@code nil} when it does not, else the fingerprint
	 * and the result ({@code nil} each when not recorded).
	 * <p>
	 * KEYS[1] the entry, KEYS[2] the details.
	 */
	public static final String RECORDED = """
			if redis.call('EXISTS', KEYS[1]) == 0 then
				return nil
			end
			return redis.call('HMGET', KEYS[2], 'fingerprint', 'result')""";

	/**
	 * Completes a claim as the stores' plain completion does, and gives its details the retention
	 * too.
	 * <p>
	 * KEYS[1] the entry, KEYS[2] the details; ARGV[1] the claim's in-progress value, ARGV[2] the
	 * completed value, ARGV[3] the retention in milliseconds. Returns 1 if completed, 0 if the claim
	 * no longer held the entry.
	 */
	public static final String COMPLETE = """
			if redis.call('GET', KEYS[1]) == ARGV[1] then
				redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
				redis.call('PEXPIRE', KEYS[2], ARGV[3])
				return 1
			end
			return 0""";

	/**
	 * Renews a claim's lease as the stores' plain renewal does, and its details' with it.
	 * <p>
	 * KEYS[1] the entry, KEYS[2] the details; ARGV[1] the claim's in-progress value, ARGV[2] the lease
	 * in milliseconds. Returns 1 if renewed, 0 if the claim no longer holds the entry.
	 */
	public static final String RENEW = """
			if redis.call('GET', KEYS[1]) == ARGV[1] then
				redis.call('PEXPIRE', KEYS[2], ARGV[2])
				return redis.call('PEXPIRE', KEYS[1], ARGV[2])
			end
			return 0""";

	/**
	 * Reads one key for people: the entry's value and remaining time, and whether its details hold a
	 * fingerprint and a result, in one step.
	 * <p>
	 * KEYS[1] the entry, KEYS[2] the details; ARGV[1] the fingerprint field, ARGV[2] the result
	 * field. Returns an empty list when there is no entry, else {@code {value, pttl, has fingerprint
	 * (0/1), has result (0/1)}}.
	 */
	public static final String INSPECT = """
			local value = redis.call('GET', KEYS[1])
			if not value then
				return {}
			end
			return { value, redis.call('PTTL', KEYS[1]), redis.call('HEXISTS', KEYS[2], ARGV[1]),
				redis.call('HEXISTS', KEYS[2], ARGV[2]) }""";

	/**
	 * Releases one key for people: deletes the entry and its details unless it is a claim in
	 * progress (whose lease, its {@code PX}, has not ended: an ended one has vanished) and the
	 * release is not forced.
	 * <p>
	 * KEYS[1] the entry, KEYS[2] the details; ARGV[1] {@code 1} to release a claim in progress too.
	 * Returns 1 released, 0 no entry, -1 refused (a claim in progress).
	 */
	public static final String RELEASE_KEY = """
			local value = redis.call('GET', KEYS[1])
			if not value then
				return 0
			end
			if ARGV[1] ~= '1' and string.sub(value, 1, 11) == 'PROCESSING:' then
				return -1
			end
			redis.call('DEL', KEYS[1], KEYS[2])
			return 1""";

	private KeyDetailsScripts() {
	}

	/**
	 * The key of the hash that holds an entry's details, always in the entry's Redis Cluster hash
	 * slot so that one script can read and write both:
	 * <ul>
	 * <li>{@code {<entry>}:details} when the entry has no <code>'&#125;'</code>: the entry's whole
	 * name is the hash tag, and the entry, which has no tag, is hashed whole;</li>
	 * <li>{@code <entry>:details} when the entry has a hash tag of its own (which then decides both
	 * slots);</li>
	 * <li>otherwise (a <code>'&#125;'</code> but no hash tag, as in <code>x&#125;</code> or
	 * <code>{&#125;z</code>, hashed whole) {@code {<tag>}<entry>:details}, where {@code <tag>} is
	 * the decimal number that {@link RedisClusterSlots#tagOf} gives for the entry's slot.</li>
	 * </ul>
	 * @param entry the entry's key
	 * @return the details' key
	 */
	public static String detailsKey(String entry) {
		if (entry.indexOf('}') < 0) {
			return "{" + entry + "}:details";
		}
		if (RedisClusterSlots.hasHashTag(entry)) {
			return entry + ":details";
		}
		return "{" + RedisClusterSlots.tagOf(RedisClusterSlots.slot(entry)) + "}" + entry + ":details";
	}

}
