package dev.idempotency.benchmarks.stream;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.idempotency.benchmarks.support.Database;
import dev.idempotency.benchmarks.support.InterleavedRounds;
import dev.idempotency.benchmarks.support.LedgerTables;
import dev.idempotency.benchmarks.support.Message;
import dev.idempotency.benchmarks.support.MessageStream;
import dev.idempotency.benchmarks.support.PoolSettings;
import dev.idempotency.benchmarks.support.RedisConnections;
import dev.idempotency.benchmarks.support.RunTables;
import dev.idempotency.benchmarks.support.TimedRound;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanIterator;
import io.lettuce.core.XReadArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * One timed round of one stream consumer: refills its stream, starts its consumers, waits until the
 * group has read and acknowledged everything, and checks the end state. Owns the Redis client and the
 * ledger tables of the run, and deletes the run's keys at the end.
 */
final class StreamRounds implements AutoCloseable {

	private final String runId = UUID.randomUUID().toString().substring(0, 8);

	private final int messages;

	private final int batch;

	private final RunTables tables;

	private final PoolSettings pool;

	private final RedisClient client;

	private final StatefulRedisConnection<String, String> connection;

	StreamRounds(int messages, int batch, PoolSettings pool, Database database) {
		this.messages = messages;
		this.batch = batch;
		this.pool = pool;
		this.client = RedisClient.create(RedisURI.builder()
			.withHost(RedisConnections.host())
			.withPort(RedisConnections.port())
			.withDatabase(RedisConnections.database())
			.build());
		this.connection = this.client.connect();
		this.tables = new RunTables(database);
	}

	/** The consumer variant of that name, on its own stream and group. */
	StreamConsumer create(String name, int concurrency) {
		String stream = "bench:stream:" + this.runId + ":" + name + ":c" + concurrency;
		String group = "bench-" + name;
		return switch (name) {
			case "hand-plain" -> new HandStreamConsumer(name, stream, group, concurrency, false, this.client, this.batch,
					this.pool, this.tables.tables());
			case "hand-ideal" -> new HandStreamConsumer(name, stream, group, concurrency, true, this.client, this.batch,
					this.pool, this.tables.tables());
			case "starter-jdbc" -> new StarterStreamConsumer(name, stream, group, concurrency, "jdbc", false,
					this.runId, this.batch, this.pool, this.tables.database());
			case "starter-jdbc-batched" -> new StarterStreamConsumer(name, stream, group, concurrency, "jdbc", true,
					this.runId, this.batch, this.pool, this.tables.database());
			case "starter-redis" -> new StarterStreamConsumer(name, stream, group, concurrency, "redis", false,
					this.runId, this.batch, this.pool, this.tables.database());
			default -> throw new IllegalArgumentException("Unknown variant '" + name
					+ "'; use hand-plain, hand-ideal, starter-jdbc, starter-jdbc-batched, starter-redis");
		};
	}

	InterleavedRounds.Result run(StreamConsumer variant, int concurrency, int round) throws Exception {
		RedisCommands<String, String> redis = this.connection.sync();
		// Reset (not timed).
		redis.del(variant.stream(), variant.stream() + ".dlq");
		this.tables.reset();
		MessageStream source = new MessageStream(this.runId + "-" + variant.name() + "-c" + concurrency + "-r" + round,
				LedgerTables.ACCOUNTS);
		String lastId = fill(variant.stream(), source);
		redis.xgroupCreate(XReadArgs.StreamOffset.from(variant.stream(), "0-0"), variant.group());
		// Timed: from the start of the consumers until the last entry is read and nothing is pending. The
		// cost is taken before the stop: the consumer threads end with it, and with them their counters.
		TimedRound timed = TimedRound.run(variant.consumerThreadPrefix(), this.messages, 5, variant::start,
				() -> isDone(redis, variant, lastId));
		variant.stop();
		MessageStream.Expected expected = source.expected(LedgerTables.ACCOUNTS, !variant.dedups());
		List<String> problems = this.tables.problems(expected, variant.dedups());
		long pending = redis.xpending(variant.stream(), variant.group()).getCount();
		if (pending != 0) {
			problems.add(pending + " entries still pending");
		}
		long dead = redis.exists(variant.stream() + ".dlq") == 0 ? 0 : redis.xlen(variant.stream() + ".dlq");
		if (dead != 0) {
			problems.add(dead + " entries dead-lettered");
		}
		return timed.result(problems, "entries=" + expected.issued() + " unique=" + expected.unique() + " ledger="
				+ this.tables.ledgerRows());
	}

	private String fill(String stream, MessageStream source) {
		RedisAsyncCommands<String, String> async = this.connection.async();
		List<RedisFuture<String>> futures = new ArrayList<>(this.messages);
		for (int i = 0; i < this.messages; i++) {
			Message message = source.next();
			futures.add(async.xadd(stream, Map.of("key", message.getKey(), "account",
					String.valueOf(message.getAccount()), "amount", String.valueOf(message.getAmount()))));
		}
		String last = null;
		for (RedisFuture<String> future : futures) {
			try {
				last = future.get();
			}
			catch (Exception ex) {
				throw new IllegalStateException("XADD failed", ex);
			}
		}
		return last;
	}

	private static boolean isDone(RedisCommands<String, String> redis, StreamConsumer variant, String lastId) {
		for (Object group : redis.xinfoGroups(variant.stream())) {
			Map<String, Object> info = flat((List<?>) group);
			if (variant.group().equals(String.valueOf(info.get("name")))) {
				return lastId.equals(String.valueOf(info.get("last-delivered-id")))
						&& ((Number) info.get("pending")).longValue() == 0;
			}
		}
		return false;
	}

	private static Map<String, Object> flat(List<?> list) {
		Map<String, Object> map = new LinkedHashMap<>();
		for (int i = 0; i + 1 < list.size(); i += 2) {
			map.put(String.valueOf(list.get(i)), list.get(i + 1));
		}
		return map;
	}

	/** Deletes the run's Redis keys and closes the connections and the pool. */
	@Override
	public void close() {
		RedisCommands<String, String> redis = this.connection.sync();
		ScanIterator<String> keys = ScanIterator.scan(redis, ScanArgs.Builder.matches("bench:stream:" + this.runId + "*")
			.limit(500));
		List<String> toDelete = new ArrayList<>();
		keys.forEachRemaining(toDelete::add);
		for (int i = 0; i < toDelete.size(); i += 500) {
			redis.del(toDelete.subList(i, Math.min(toDelete.size(), i + 500)).toArray(String[]::new));
		}
		this.connection.close();
		this.client.shutdown();
		this.tables.close();
	}

}
