package dev.idempotency.benchmarks.jmh;

import java.time.Duration;

import io.lettuce.core.SetArgs;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * Hand-written Redis dedup with raw Lettuce: {@code SET key PROCESSING NX PX lease} to claim,
 * {@code SET key DONE XX PX retention} after commit, {@code DEL key} after a failure. A claim that
 * finds the key (done, or in progress on another consumer) is skipped; a real consumer would retry an
 * in-progress one later, which here ends as a duplicate because nothing fails.
 */
final class LettuceSetNxDedup implements RedisDedup {

	private static final SetArgs CLAIM = SetArgs.Builder.nx().px(Duration.ofSeconds(30));

	/** Short, since the keys are only needed for the run (duplicates follow within 5 messages). */
	private static final SetArgs DONE = SetArgs.Builder.xx().px(Duration.ofMinutes(30));

	private final RedisCommands<String, String> redis;

	private final String prefix;

	LettuceSetNxDedup(Bench bench) {
		this.redis = bench.redis().lettuce().sync();
		this.prefix = "bench:lettuce:";
	}

	@Override
	public boolean claim(String key) {
		return "OK".equals(this.redis.set(this.prefix + key, "PROCESSING", CLAIM));
	}

	@Override
	public void completed(String key) {
		this.redis.set(this.prefix + key, "DONE", DONE);
	}

	@Override
	public void release(String key) {
		this.redis.del(this.prefix + key);
	}

}
