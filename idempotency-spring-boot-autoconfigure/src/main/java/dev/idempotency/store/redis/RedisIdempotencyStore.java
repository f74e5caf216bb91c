package dev.idempotency.store.redis;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;

import dev.idempotency.core.ClaimResult;
import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.core.IdempotencyStoreException;
import dev.idempotency.core.KeyValueIdempotencyStore;
import dev.idempotency.support.ClaimTokens;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.core.io.ClassPathResource;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.util.Assert;

/**
 * Leased store on Redis: each key is one string entry, {@code <prefix><namespace>:<key>}.
 * <ol>
 * <li>{@link #claim}: {@code SET entry PROCESSING:<token> NX PX <lease>}. If the entry exists, it
 * holds {@code COMPLETED} (a duplicate) or another claim's value (in progress). An expired lease has
 * vanished with its {@code PX}, so the next claim simply takes the key over. A claim that finds its
 * own value (the client re-sent it after a lost reply) is granted.</li>
 * <li>{@link #complete}: if the entry still holds this claim's value, {@code SET entry COMPLETED PX
 * <retention>}; a late worker whose lease was taken over changes nothing.</li>
 * <li>{@link #release}: if the entry still holds this claim's value, {@code DEL entry}; a late
 * worker never deletes the claim of the delivery that took over.</li>
 * </ol>
 * Each step is one Lua script, so it is atomic on the server, and the lease and retention run on the
 * server's clock. The scripts ship in this package's resources ({@code claim.lua},
 * {@code complete.lua}, {@code release.lua}) and are sent by {@code EVALSHA}.
 * <p>
 * Key parts longer than {@value #MAX_KEY_LENGTH} characters are stored as SHA-256 digests; a
 * {@code :} or {@code %} in the namespace is percent-encoded, so that the first {@code :} after the
 * prefix always ends the namespace and two keys never share an entry.
 * <p>
 * Redis replicates asynchronously: a failover can lose a claim or a completion that the primary
 * acknowledged, and a redelivery then runs the work again. Business data that lives in a database
 * belongs with the JDBC store.
 *
 * @since 0.1.0
 */
public class RedisIdempotencyStore implements KeyValueIdempotencyStore {

	/** Longest namespace or key kept verbatim, as in the JDBC store. */
	public static final int MAX_KEY_LENGTH = 200;

	/** Prefix of an in-progress entry's value; the claim's token follows. */
	static final String PROCESSING = "PROCESSING:";

	/** Value of a completed entry. */
	static final String COMPLETED = "COMPLETED";

	private static final Log logger = LogFactory.getLog(RedisIdempotencyStore.class);

	private static final RedisScript<Long> CLAIM = script("claim.lua");

	private static final RedisScript<Long> COMPLETE = script("complete.lua");

	private static final RedisScript<Long> RELEASE = script("release.lua");

	private static final long CLAIMED = 1;

	private static final long DUPLICATE = 2;

	private final StringRedisTemplate redis;

	private final String keyPrefix;

	private final Supplier<String> tokens;

	/**
	 * Creates a store on a connection factory.
	 * @param connectionFactory the Redis connection factory
	 * @param keyPrefix prefix of every entry's key, may be empty
	 */
	public RedisIdempotencyStore(RedisConnectionFactory connectionFactory, String keyPrefix) {
		this(new StringRedisTemplate(connectionFactory), keyPrefix);
	}

	/**
	 * Creates a store on a template.
	 * @param redis the template, with string serializers for keys and values
	 * @param keyPrefix prefix of every entry's key, may be empty
	 */
	public RedisIdempotencyStore(StringRedisTemplate redis, String keyPrefix) {
		this(redis, keyPrefix, new ClaimTokens());
	}

	/** With the claims' tokens from {@code tokens}: tests re-send a claim with its token. */
	RedisIdempotencyStore(StringRedisTemplate redis, String keyPrefix, Supplier<String> tokens) {
		Assert.notNull(redis, "redis must not be null");
		Assert.notNull(keyPrefix, "keyPrefix must not be null");
		this.redis = redis;
		this.keyPrefix = keyPrefix;
		this.tokens = tokens;
	}

	/**
	 * Claims the key under a lease judged by the Redis server's clock.
	 * @throws IdempotencyStoreException if Redis cannot be reached or answers an error
	 */
	@Override
	public ClaimResult claim(IdempotencyKey key, Duration lease, Duration retention) {
		ClaimResult mine = ClaimResult.claimed(this.tokens.get());
		long status = execute(CLAIM, "claim", key, claimedValue(mine), millis(lease, "lease"), COMPLETED);
		if (status == CLAIMED) {
			return mine;
		}
		return (status == DUPLICATE) ? ClaimResult.duplicate() : ClaimResult.inProgress();
	}

	/**
	 * Marks the key completed for {@code retention}, if {@code claim} still holds it. If its lease
	 * expired meanwhile, nothing changes and a warning is logged: the work may run again.
	 * @throws IdempotencyStoreException if Redis cannot be reached or answers an error
	 */
	@Override
	public void complete(IdempotencyKey key, ClaimResult claim, Duration retention) {
		long completed = execute(COMPLETE, "complete", key, claimedValue(claim), COMPLETED,
				millis(retention, "retention"));
		if (completed != 1) {
			logger.warn("Claim of " + key + " was no longer held when completing it: its lease expired before "
					+ "the work finished, so a redelivery may run it again. Set idempotency.lease longer than "
					+ "the slowest processing");
		}
	}

	/**
	 * Deletes the entry if {@code claim} still holds it.
	 * @throws IdempotencyStoreException if Redis cannot be reached or answers an error
	 */
	@Override
	public void release(IdempotencyKey key, ClaimResult claim) {
		execute(RELEASE, "release", key, claimedValue(claim));
	}

	@Override
	public boolean isTransactional() {
		return false;
	}

	@Override
	public String name() {
		return "redis";
	}

	@Override
	public String storageKey(IdempotencyKey key) {
		IdempotencyKey stored = key.digestedBeyond(MAX_KEY_LENGTH);
		return this.keyPrefix + escapeNamespace(stored.namespace()) + ":" + stored.value();
	}

	@Override
	public String claimedValue(ClaimResult claim) {
		Assert.isTrue(claim.isClaimed() && claim.token() != null, "claim must be a granted claim of a leased store");
		return PROCESSING + claim.token();
	}

	@Override
	public String completedValue() {
		return COMPLETED;
	}

	public String getKeyPrefix() {
		return this.keyPrefix;
	}

	private long execute(RedisScript<Long> script, String operation, IdempotencyKey key, String... args) {
		String storageKey = storageKey(key);
		Long result;
		try {
			result = this.redis.execute(script, List.of(storageKey), (Object[]) args);
		}
		catch (DataAccessException ex) {
			throw new IdempotencyStoreException("Could not " + operation + " '" + key + "' in Redis", ex);
		}
		if (result == null) {
			// Only in a pipeline or MULTI, which this store never opens.
			throw new IllegalStateException("Redis returned no result to " + operation + " '" + key + "'");
		}
		return result;
	}

	private static String escapeNamespace(String namespace) {
		if (namespace.indexOf(':') < 0 && namespace.indexOf('%') < 0) {
			return namespace;
		}
		return namespace.replace("%", "%25").replace(":", "%3A");
	}

	/** Whole milliseconds, at least one: {@code PX 0} is an error. */
	private static String millis(Duration duration, String name) {
		Assert.isTrue(!duration.isNegative() && !duration.isZero(), () -> name + " must be positive: " + duration);
		return Long.toString(Math.max(1, duration.toMillis()));
	}

	private static RedisScript<Long> script(String name) {
		// Read once: a RedisScript on a ResourceScriptSource would check the jar entry's timestamp
		// on every call.
		ClassPathResource resource = new ClassPathResource(name, RedisIdempotencyStore.class);
		try (InputStream in = resource.getInputStream()) {
			return RedisScript.of(new String(in.readAllBytes(), StandardCharsets.UTF_8), Long.class);
		}
		catch (IOException ex) {
			throw new IllegalStateException("Could not read " + resource, ex);
		}
	}

}
