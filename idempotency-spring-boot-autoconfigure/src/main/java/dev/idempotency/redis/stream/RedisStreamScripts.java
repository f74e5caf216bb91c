package dev.idempotency.redis.stream;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

import org.springframework.core.io.ClassPathResource;
import org.springframework.data.redis.core.script.DefaultRedisScript;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * The Lua scripts of the stream adapter. Reading and claiming run as scripts so that each batch
 * comes back with the delivery counter of every entry (XPENDING) in one round trip, and because
 * spring-data-redis has no XAUTOCLAIM (spring-data-redis#2316); a script needs no client-specific
 * API. Each returns {@code {next-cursor, entries, deleted-ids, delivery-counts}}, an entry being
 * {@code {id, {field, value, ...}}}; the claim and own-pending scripts return ids only, and each entry
 * is read (and its delivery counted) one at a time, right before it is processed.
 */
final class RedisStreamScripts {

	private static final String COUNTS = """
			local counts = {}
			for i, e in ipairs(entries) do
			  local c = 0
			  if type(e) == 'table' then
			    local p = redis.call('XPENDING', KEYS[1], ARGV[1], e[1], e[1], 1)
			    if p[1] then c = p[1][4] end
			  end
			  counts[i] = c
			end
			""";

	/**
	 * XAUTOCLAIM with JUSTID: takes over entries idle longer than min-idle without counting a
	 * delivery (Redis 7.0: JUSTID does not increment the retry counter), so that entries claimed by a
	 * consumer that dies before it reaches them are not counted towards max-deliveries. Each entry is
	 * {@code {id}} with a nil body; {@link #DELIVER_PENDING} delivers it. KEYS: stream. ARGV: group,
	 * consumer, min-idle millis, start id, count.
	 */
	@SuppressWarnings("rawtypes")
	static final RedisScript<List> AUTOCLAIM = new DefaultRedisScript<>("""
			local r = redis.call('XAUTOCLAIM', KEYS[1], ARGV[1], ARGV[2], ARGV[3], ARGV[4], 'COUNT', ARGV[5], 'JUSTID')
			local entries = {}
			for i, id in ipairs(r[2]) do entries[i] = {id} end
			return {r[1], entries, r[3] or {}, {}}
			""", List.class);

	/**
	 * The ids of the consumer's own pending entries (its history), without reading them: XREADGROUP
	 * of the history would count a delivery for each entry of the page, also for those the consumer
	 * dies before it reaches. Each entry is {@code {id}} with a nil body; {@link #DELIVER_PENDING}
	 * delivers it. KEYS: stream. ARGV: group, consumer, count, id after which to read.
	 */
	@SuppressWarnings("rawtypes")
	static final RedisScript<List> READ_OWN_PENDING = new DefaultRedisScript<>("""
			local start = '-'
			if ARGV[4] ~= '0-0' then start = '(' .. ARGV[4] end
			local p = redis.call('XPENDING', KEYS[1], ARGV[1], start, '+', ARGV[3], ARGV[2])
			local entries = {}
			for i, e in ipairs(p) do entries[i] = {e[1]} end
			return {'0-0', entries, {}, {}}
			""", List.class);

	/**
	 * Delivers one pending entry of the consumer right before it is processed: XCLAIM for the same
	 * consumer, which counts the delivery and returns the entry. Nothing when the consumer no longer
	 * owns it (another consumer claimed it meanwhile); its id as deleted when its content was trimmed
	 * away. KEYS: stream. ARGV: group, consumer, record id.
	 */
	@SuppressWarnings("rawtypes")
	static final RedisScript<List> DELIVER_PENDING = new DefaultRedisScript<>("""
			local p = redis.call('XPENDING', KEYS[1], ARGV[1], ARGV[3], ARGV[3], 1)
			if not p[1] or p[1][2] ~= ARGV[2] then return {'0-0', {}, {}, {}} end
			if #redis.call('XRANGE', KEYS[1], ARGV[3], ARGV[3]) == 0 then return {'0-0', {}, {ARGV[3]}, {}} end
			local entries = redis.call('XCLAIM', KEYS[1], ARGV[1], ARGV[2], 0, ARGV[3])
			""" + COUNTS + """
			return {'0-0', entries, {}, counts}
			""", List.class);

	/**
	 * The redis-atomic completion: if the idempotency entry still holds the claim, mark it completed
	 * with the retention as its time to live and acknowledge the stream entry, in one step. It is the
	 * Redis store's own completion script, with the stream as its optional second key. KEYS:
	 * idempotency entry, stream. ARGV: claimed value, completed value, retention millis, group,
	 * record id. Returns 1 when done, 0 when the claim was no longer held (nothing changed).
	 */
	static final RedisScript<Long> COMPLETE_AND_ACKNOWLEDGE = RedisScript
		.of(read("dev/idempotency/store/redis/complete.lua"), Long.class);

	private RedisStreamScripts() {
	}

	/**
	 * Reads a script once: a {@code RedisScript} on a {@code ClassPathResource} checks the resource's
	 * modification time (resolving its URL and opening its jar entry) on every {@code getSha1()},
	 * which was a third of the allocations of a redis-atomic acknowledgement.
	 */
	private static String read(String path) {
		ClassPathResource resource = new ClassPathResource(path);
		try (InputStream in = resource.getInputStream()) {
			return new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not read " + resource, ex);
		}
	}

}
