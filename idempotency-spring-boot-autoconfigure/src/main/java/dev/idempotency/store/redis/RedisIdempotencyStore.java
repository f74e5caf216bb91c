package dev.idempotency.store.redis;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.function.Supplier;

import dev.idempotency.core.ClaimResult;
import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.core.IdempotencyKeyInspector;
import dev.idempotency.core.IdempotencyStoreException;
import dev.idempotency.core.KeyRecord;
import dev.idempotency.core.KeyRelease;
import dev.idempotency.core.KeyValueIdempotencyStore;
import dev.idempotency.core.RecordedKey;
import dev.idempotency.support.ClaimTokens;
import dev.idempotency.support.redis.KeyDetailsScripts;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.ReturnType;
import org.springframework.data.redis.connection.SetCondition;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.types.Expiration;
import org.springframework.util.Assert;

import static dev.idempotency.store.redis.LuaScript.bytes;

/**
 * Leased store on Redis: each key is one string entry, {@code <prefix><namespace>:<key>}.
 * <ol>
 * <li>{@link #claim}: {@code SET entry PROCESSING:<token> NX PX <lease>}. If the entry exists, a
 * {@code GET} shows {@code COMPLETED} (a duplicate) or another claim's value (in progress). An
 * expired lease has vanished with its {@code PX}, so the next claim simply takes the key over. A
 * claim that finds its own value (the client re-sent it after a lost reply) is granted.</li>
 * <li>{@link #complete}: if the entry still holds this claim's value, {@code SET entry COMPLETED PX
 * <retention>}; a late worker whose lease was taken over changes nothing.</li>
 * <li>{@link #release}: if the entry still holds this claim's value, {@code DEL entry}; a late
 * worker never deletes the claim of the delivery that took over.</li>
 * </ol>
 * The claim is one plain command, atomic on the server (the {@code GET} after a refused {@code SET}
 * only classifies); completing and releasing compare and set, so each is one Lua script. The lease
 * and retention run on the server's clock. The scripts ship in this package's resources
 * ({@code complete.lua}, {@code release.lua}) and are sent by {@code EVALSHA}.
 * <p>
 * Key parts longer than {@value #MAX_KEY_LENGTH} characters, or starting with {@code sha256:}, are
 * stored as SHA-256 digests ({@link IdempotencyKey#digestedBeyond}); a
 * {@code :} or {@code %} in the namespace is percent-encoded, so that the first {@code :} after the
 * prefix always ends the namespace and two keys never share an entry.
 * <p>
 * Fingerprints and results ({@link #recordFingerprint}, {@link #recordResult}) live in a hash beside
 * the entry ({@link KeyDetailsScripts#detailsKey}), written by the claim's holder only and expiring
 * with the entry: it takes the entry's remaining lease when written, and once this store has recorded
 * details its renewals and completions extend the hash with the entry (in the same script, so the
 * two never disagree). Until then they run exactly as before. A claim completed by the Redis
 * Stream adapter's own script would leave the hash at its lease, so the interceptor does not offer
 * those claims to it.
 * <p>
 * As an {@link IdempotencyKeyInspector} it reads an entry, its remaining time ({@code PTTL}, turned
 * into an instant by the application's clock) and its details' presence in one script, and releases
 * a key by deleting the entry and its details in one script that refuses a claim in progress unless
 * forced ({@link KeyDetailsScripts#INSPECT}, {@link KeyDetailsScripts#RELEASE_KEY}, shared with the
 * Redisson store). Redis keeps no creation time nor attempt count.
 * <p>
 * Redis replicates asynchronously: a failover can lose a claim or a completion that the primary
 * acknowledged, and a redelivery then runs the work again. Business data that lives in a database
 * belongs with the JDBC store.
 *
 * @since 0.1.0
 */
public class RedisIdempotencyStore implements KeyValueIdempotencyStore, IdempotencyKeyInspector {

	/** Longest namespace or key kept verbatim, as in the JDBC store. */
	public static final int MAX_KEY_LENGTH = 200;

	/** Prefix of an in-progress entry's value; the claim's token follows. */
	static final String PROCESSING = "PROCESSING:";

	/** Value of a completed entry. */
	static final String COMPLETED = "COMPLETED";

	private static final Log logger = LogFactory.getLog(RedisIdempotencyStore.class);

	private static final byte[] COMPLETED_BYTES = bytes(COMPLETED);

	private static final LuaScript COMPLETE = LuaScript.of("complete.lua");

	private static final LuaScript RELEASE = LuaScript.of("release.lua");

	private static final LuaScript RENEW = LuaScript.of("renew.lua");

	private static final LuaScript RECORD = LuaScript.ofSource(KeyDetailsScripts.RECORD);

	private static final LuaScript COMPLETE_WITH_DETAILS = LuaScript.ofSource(KeyDetailsScripts.COMPLETE);

	private static final LuaScript RENEW_WITH_DETAILS = LuaScript.ofSource(KeyDetailsScripts.RENEW);

	private static final LuaScript RECORDED = LuaScript.ofSource(KeyDetailsScripts.RECORDED);

	private final StringRedisTemplate redis;

	private final String keyPrefix;

	private final Supplier<String> tokens;

	private final RedisKeyInspector inspector;

	/** Set once details were recorded: only then do renewals and completions touch their hash. */
	private volatile boolean recordsDetails;

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
		this.inspector = new RedisKeyInspector(redis, this::storageKey);
	}

	/**
	 * Claims the key under a lease judged by the Redis server's clock: {@code SET NX PX}, the one
	 * command of the common case; only when the entry exists, a {@code GET} tells a duplicate from a
	 * claim in progress (or from this very claim, re-sent by the client after a lost reply).
	 * @throws IdempotencyStoreException if Redis cannot be reached or answers an error
	 */
	@Override
	public ClaimResult claim(IdempotencyKey key, Duration lease, Duration retention) {
		ClaimResult mine = ClaimResult.claimed(this.tokens.get());
		byte[] entry = bytes(storageKey(key));
		byte[] value = bytes(claimedValue(mine));
		Expiration leaseExpiry = Expiration.milliseconds(positiveMillis(lease, "lease"));
		try {
			return this.redis.execute((RedisCallback<ClaimResult>) (connection) -> {
				// Twice at most: the entry can expire or be released between the SET and the GET.
				for (int attempt = 0; attempt < 2; attempt++) {
					if (Boolean.TRUE.equals(
							connection.stringCommands().set(entry, value, SetCondition.ifAbsent(), leaseExpiry))) {
						return mine;
					}
					byte[] current = connection.stringCommands().get(entry);
					if (current != null) {
						if (Arrays.equals(current, value)) {
							return mine;
						}
						return Arrays.equals(current, COMPLETED_BYTES) ? ClaimResult.duplicate()
								: ClaimResult.inProgress();
					}
				}
				return ClaimResult.inProgress();
			}, true);
		}
		catch (DataAccessException ex) {
			throw new IdempotencyStoreException("Could not claim '" + key + "' in Redis", ex);
		}
	}

	/**
	 * Marks the key completed for {@code retention}, if {@code claim} still holds it. If its lease
	 * expired meanwhile, nothing changes and a warning is logged: the work may run again.
	 * @throws IdempotencyStoreException if Redis cannot be reached or answers an error
	 */
	@Override
	public void complete(IdempotencyKey key, ClaimResult claim, Duration retention) {
		long completed = this.recordsDetails
				? executeWithDetails(COMPLETE_WITH_DETAILS, "complete", key, claimedValue(claim), COMPLETED,
						millis(retention, "retention"))
				: execute(COMPLETE, "complete", key, claimedValue(claim), COMPLETED, millis(retention, "retention"));
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

	/**
	 * Extends the entry's expiry to {@code lease} from now if {@code claim} still holds it.
	 * @throws IdempotencyStoreException if Redis cannot be reached or answers an error
	 */
	@Override
	public boolean renew(IdempotencyKey key, ClaimResult claim, Duration lease) {
		return (this.recordsDetails
				? executeWithDetails(RENEW_WITH_DETAILS, "renew", key, claimedValue(claim), millis(lease, "lease"))
				: execute(RENEW, "renew", key, claimedValue(claim), millis(lease, "lease"))) == 1;
	}

	@Override
	public boolean recordsKeyDetails() {
		return true;
	}

	/**
	 * Writes the fingerprint to the details hash, afresh, if {@code claim} still holds the key.
	 * @throws IdempotencyStoreException if Redis cannot be reached or answers an error
	 */
	@Override
	public void recordFingerprint(IdempotencyKey key, ClaimResult claim, String fingerprint) {
		record(key, claim, KeyDetailsScripts.FINGERPRINT, fingerprint, "1");
	}

	/**
	 * Writes the result to the details hash if {@code claim} still holds the key.
	 * @throws IdempotencyStoreException if Redis cannot be reached or answers an error
	 */
	@Override
	public void recordResult(IdempotencyKey key, ClaimResult claim, String result) {
		record(key, claim, KeyDetailsScripts.RESULT, result, "0");
	}

	private void record(IdempotencyKey key, ClaimResult claim, String field, String value, String afresh) {
		this.recordsDetails = true;
		if (executeWithDetails(RECORD, "record the " + field + " of", key, claimedValue(claim), field, value,
				afresh) != 1) {
			logger.warn("Claim of " + key + " was no longer held when recording its " + field + ": its lease "
					+ "expired before the work finished");
		}
	}

	/**
	 * Reads the details hash of an entry that exists ({@code HMGET}, with the entry's existence
	 * checked in the same script).
	 * @throws IdempotencyStoreException if Redis cannot be reached or answers an error
	 */
	@Override
	public @Nullable RecordedKey recorded(IdempotencyKey key) {
		String entry = storageKey(key);
		byte[][] keys = { bytes(entry), bytes(KeyDetailsScripts.detailsKey(entry)) };
		List<?> fields;
		try {
			fields = this.redis.execute((RedisCallback<List<?>>) (connection) -> RECORDED.run(connection,
					ReturnType.MULTI, 2, keys), true);
		}
		catch (DataAccessException ex) {
			throw new IdempotencyStoreException("Could not read the details of '" + key + "' in Redis", ex);
		}
		// The script's nil (no entry) arrives as a list of one null; an entry's details are two fields.
		if (fields == null || fields.size() < 2) {
			return null;
		}
		return new RecordedKey(LuaScript.text(fields, 0), LuaScript.text(fields, 1));
	}

	@Override
	public @Nullable KeyRecord inspect(IdempotencyKey key) {
		return this.inspector.inspect(key);
	}

	@Override
	public KeyRelease release(IdempotencyKey key, boolean force) {
		return this.inspector.release(key, force);
	}

	@Override
	public boolean isTransactional() {
		return false;
	}

	/**
	 * Sends {@code PING}; it waits at most the client's command timeout.
	 */
	@Override
	public void probe() {
		try {
			this.redis.execute((RedisCallback<String>) RedisConnection::ping);
		}
		catch (RuntimeException ex) {
			throw new IdempotencyStoreException("Redis does not answer PING", ex);
		}
	}

	@Override
	public String name() {
		return "redis";
	}

	@Override
	public String storageKey(IdempotencyKey key) {
		IdempotencyKey stored = key.digestedBeyond(MAX_KEY_LENGTH);
		return this.keyPrefix + stored.qualifiedName();
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

	private long execute(LuaScript script, String operation, IdempotencyKey key, String... args) {
		byte[][] keyAndArgs = new byte[args.length + 1][];
		keyAndArgs[0] = bytes(storageKey(key));
		for (int i = 0; i < args.length; i++) {
			keyAndArgs[i + 1] = bytes(args[i]);
		}
		return script.execute(this.redis, 1, operation, key, keyAndArgs);
	}

	/** As {@link #execute}, with the entry's details hash as the script's second key. */
	private long executeWithDetails(LuaScript script, String operation, IdempotencyKey key, String... args) {
		byte[][] keysAndArgs = new byte[args.length + 2][];
		String entry = storageKey(key);
		keysAndArgs[0] = bytes(entry);
		keysAndArgs[1] = bytes(KeyDetailsScripts.detailsKey(entry));
		for (int i = 0; i < args.length; i++) {
			keysAndArgs[i + 2] = bytes(args[i]);
		}
		return script.execute(this.redis, 2, operation, key, keysAndArgs);
	}

	/** Whole milliseconds, at least one: {@code PX 0} is an error. */
	private static String millis(Duration duration, String name) {
		return Long.toString(positiveMillis(duration, name));
	}

	private static long positiveMillis(Duration duration, String name) {
		Assert.isTrue(!duration.isNegative() && !duration.isZero(), () -> name + " must be positive: " + duration);
		return Math.max(1, duration.toMillis());
	}

}
