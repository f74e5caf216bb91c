package dev.idempotency.store.redisson;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

import dev.idempotency.core.ClaimResult;
import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.core.IdempotencyKeyInspector;
import dev.idempotency.core.IdempotencyStore;
import dev.idempotency.core.IdempotencyStoreException;
import dev.idempotency.core.KeyRecord;
import dev.idempotency.core.KeyRelease;
import dev.idempotency.core.RecordedKey;
import dev.idempotency.support.ClaimTokens;
import dev.idempotency.support.redis.KeyDetailsScripts;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.redisson.api.RBucket;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.RedisException;
import org.redisson.client.codec.StringCodec;

import org.springframework.util.Assert;

/**
 * Leased store on Redis through Redisson: each key is one string entry,
 * {@code <prefix><namespace>:<key>}, that holds {@code PROCESSING:<token>} while claimed and
 * {@code COMPLETED} once done.
 * <ol>
 * <li>{@link #claim}: {@code SET entry PROCESSING:<token> NX PX <lease>}; if the entry exists, a
 * {@code GET} tells a duplicate ({@code COMPLETED}) from a claim in progress (or from this very
 * claim, re-sent after a lost reply). An expired lease has vanished with its {@code PX}, so the
 * next claim takes the key over. The {@code GET} runs as a script in {@code READ_WRITE} mode, so it
 * reads the primary even on a client that reads from replicas.</li>
 * <li>{@link #complete}: a Lua compare-and-set, {@code COMPLETED} with {@code PX <retention>} only
 * if the entry still holds this claim's value.</li>
 * <li>{@link #release}: a Lua compare-and-delete, keyed on the claim's value.</li>
 * </ol>
 * Values go through Redisson's {@link StringCodec}, so the entries are plain strings that
 * {@code redis-cli} shows as they are. Leases and retention run on the Redis server's clock. Key
 * parts longer than 200 characters, or starting with {@code sha256:}, are stored as SHA-256 digests.
 * <p>
 * Fingerprints and results live in a hash beside the entry ({@link KeyDetailsScripts#detailsKey}),
 * written by the claim's holder only and expiring with the entry: the hash takes the entry's
 * remaining lease when written, and once this store has recorded details its renewals and
 * completions extend the hash with the entry, in the same script ({@link KeyDetailsScripts}, shared
 * with the Redis store). Until then they run exactly as before.
 * <p>
 * As an {@link IdempotencyKeyInspector} it reads an entry, its remaining time ({@code PTTL}, turned
 * into an instant by the application's clock) and its details' presence in one script, and releases
 * a key by deleting the entry and its details in one script that refuses a claim in progress unless
 * forced: the Redis store's scripts ({@link KeyDetailsScripts#INSPECT},
 * {@link KeyDetailsScripts#RELEASE_KEY}). Redis keeps no creation time nor attempt count.
 * <p>
 * Redis replicates asynchronously: a failover can lose a claim or a completion, and a redelivery
 * then runs the work again. Business data that lives in a database belongs with the JDBC store.
 *
 * @since 0.2.0
 */
public class RedissonIdempotencyStore implements IdempotencyStore, IdempotencyKeyInspector {

	static final String PROCESSING = "PROCESSING:";

	static final String COMPLETED = "COMPLETED";

	private static final String COMPLETE = """
			if redis.call('GET', KEYS[1]) == ARGV[1] then
				redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
				return 1
			end
			return 0""";

	private static final String RELEASE = """
			if redis.call('GET', KEYS[1]) == ARGV[1] then
				return redis.call('DEL', KEYS[1])
			end
			return 0""";

	/**
	 * The claim's read, as a script: Redisson sends a script in {@code READ_WRITE} mode to the
	 * primary, where a plain {@code GET} goes to a replica under {@code ReadMode.SLAVE}.
	 */
	private static final String READ = "return redis.call('GET', KEYS[1])";

	private static final String RENEW = """
			if redis.call('GET', KEYS[1]) == ARGV[1] then
				return redis.call('PEXPIRE', KEYS[1], ARGV[2])
			end
			return 0""";

	/** How long {@link #probe()} waits for Redis, whatever the client's retry settings. */
	private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(5);

	private static final Log logger = LogFactory.getLog(RedissonIdempotencyStore.class);

	private final RedissonClient redisson;

	private final String keyPrefix;

	private final Supplier<String> tokens;

	/** Set once details were recorded: only then do renewals and completions touch their hash. */
	private volatile boolean recordsDetails;

	/**
	 * Creates a store.
	 * @param redisson the client, used with {@link StringCodec}
	 * @param keyPrefix prefix of every entry's key, may be empty
	 */
	public RedissonIdempotencyStore(RedissonClient redisson, String keyPrefix) {
		this(redisson, keyPrefix, new ClaimTokens());
	}

	/** With the claims' tokens from {@code tokens}: tests re-send a claim with its token. */
	RedissonIdempotencyStore(RedissonClient redisson, String keyPrefix, Supplier<String> tokens) {
		Assert.notNull(redisson, "redisson must not be null");
		Assert.notNull(keyPrefix, "keyPrefix must not be null");
		this.redisson = redisson;
		this.keyPrefix = keyPrefix;
		this.tokens = tokens;
	}

	/**
	 * Claims the key under a lease judged by the Redis server's clock.
	 * @throws IdempotencyStoreException if Redis cannot be reached or answers an error
	 */
	@Override
	public ClaimResult claim(IdempotencyKey key, Duration lease, Duration retention) {
		Assert.isTrue(!lease.isNegative() && !lease.isZero(), () -> "lease must be positive: " + lease);
		ClaimResult mine = ClaimResult.claimed(this.tokens.get());
		String value = PROCESSING + mine.token();
		RBucket<String> entry = this.redisson.getBucket(storageKey(key), StringCodec.INSTANCE);
		try {
			// Twice at most: the entry can expire or be released between the SET and the GET.
			for (int attempt = 0; attempt < 2; attempt++) {
				if (entry.setIfAbsent(value, atLeastOneMilli(lease))) {
					return mine;
				}
				String current = read(entry.getName());
				if (current != null) {
					if (current.equals(value)) {
						return mine;
					}
					return COMPLETED.equals(current) ? ClaimResult.duplicate() : ClaimResult.inProgress();
				}
			}
			return ClaimResult.inProgress();
		}
		catch (RedisException ex) {
			throw new IdempotencyStoreException("Could not claim '" + key + "' in Redis (Redisson)", ex);
		}
	}

	/**
	 * Marks the key completed for {@code retention}, if {@code claim} still holds it. If its lease
	 * expired meanwhile, nothing changes and a warning is logged: the work may run again.
	 * @throws IdempotencyStoreException if Redis cannot be reached or answers an error
	 */
	@Override
	public void complete(IdempotencyKey key, ClaimResult claim, Duration retention) {
		Assert.isTrue(!retention.isNegative() && !retention.isZero(), () -> "retention must be positive: " + retention);
		String retentionMillis = Long.toString(atLeastOneMilli(retention).toMillis());
		long completed = this.recordsDetails
				? runWithDetails(KeyDetailsScripts.COMPLETE, "complete", key, claimedValue(claim), COMPLETED,
						retentionMillis)
				: run(COMPLETE, "complete", key, claimedValue(claim), COMPLETED, retentionMillis);
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
		run(RELEASE, "release", key, claimedValue(claim));
	}

	/**
	 * Extends the entry's expiry to {@code lease} from now if {@code claim} still holds it.
	 * @throws IdempotencyStoreException if Redis cannot be reached or answers an error
	 */
	@Override
	public boolean renew(IdempotencyKey key, ClaimResult claim, Duration lease) {
		String leaseMillis = Long.toString(atLeastOneMilli(lease).toMillis());
		return (this.recordsDetails
				? runWithDetails(KeyDetailsScripts.RENEW, "renew", key, claimedValue(claim), leaseMillis)
				: run(RENEW, "renew", key, claimedValue(claim), leaseMillis)) == 1;
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
		if (runWithDetails(KeyDetailsScripts.RECORD, "record the " + field + " of", key, claimedValue(claim), field,
				value, afresh) != 1) {
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
		List<Object> fields;
		try {
			fields = this.redisson.getScript(StringCodec.INSTANCE)
				.eval(entry, RScript.Mode.READ_WRITE, KeyDetailsScripts.RECORDED, RScript.ReturnType.LIST,
						List.of(entry, KeyDetailsScripts.detailsKey(entry)));
		}
		catch (RedisException ex) {
			throw new IdempotencyStoreException("Could not read the details of '" + key + "' in Redis (Redisson)", ex);
		}
		if (fields == null || fields.size() < 2) {
			return null;
		}
		return new RecordedKey(text(fields, 0), text(fields, 1));
	}

	private static @Nullable String text(List<Object> fields, int index) {
		Object field = (index < fields.size()) ? fields.get(index) : null;
		return (field instanceof String text) ? text : null;
	}

	/**
	 * Reads the entry, its remaining time and its details' presence in one script.
	 * @throws IdempotencyStoreException if Redis cannot be reached or answers an error
	 */
	@Override
	public @Nullable KeyRecord inspect(IdempotencyKey key) {
		String entry = storageKey(key);
		List<Object> fields;
		try {
			// READ_WRITE sends it to the primary, as the claims go: a replica may lag behind them.
			fields = this.redisson.getScript(StringCodec.INSTANCE)
				.eval(entry, RScript.Mode.READ_WRITE, KeyDetailsScripts.INSPECT, RScript.ReturnType.LIST,
						List.of(entry, KeyDetailsScripts.detailsKey(entry)), KeyDetailsScripts.FINGERPRINT,
						KeyDetailsScripts.RESULT);
		}
		catch (RedisException ex) {
			throw new IdempotencyStoreException("Could not read '" + key + "' in Redis (Redisson)", ex);
		}
		if (fields == null || fields.size() < 4) {
			return null;
		}
		String value = text(fields, 0);
		long pttl = number(fields, 1);
		Instant expiresAt = (pttl >= 0) ? Clock.systemUTC().instant().plusMillis(pttl) : null;
		boolean processing = value != null && value.startsWith(PROCESSING);
		return new KeyRecord(key.digestedBeyond(RedissonNames.MAX_KEY_LENGTH),
				processing ? KeyRecord.Status.PROCESSING : KeyRecord.Status.COMPLETED, null, expiresAt, processing,
				processing ? expiresAt : null, null, number(fields, 2) == 1, number(fields, 3) == 1, null, null);
	}

	/** An integer reply, or -1 when absent. */
	private static long number(List<Object> fields, int index) {
		Object field = fields.get(index);
		if (field instanceof Number number) {
			return number.longValue();
		}
		return (field instanceof String text) ? Long.parseLong(text) : -1;
	}

	/**
	 * Deletes the entry and its details unless the entry is a claim in progress (an ended lease has
	 * vanished with its {@code PX}) and {@code force} is not set, in one script.
	 * @throws IdempotencyStoreException if Redis cannot be reached or answers an error
	 */
	@Override
	public KeyRelease release(IdempotencyKey key, boolean force) {
		long released = runWithDetails(KeyDetailsScripts.RELEASE_KEY, "release", key, force ? "1" : "0");
		KeyRelease outcome = (released == 1) ? KeyRelease.RELEASED
				: (released == 0) ? KeyRelease.NOT_FOUND : KeyRelease.REFUSED_IN_PROGRESS;
		logger.warn("Release of idempotency key '" + key.value() + "' in namespace '" + key.namespace()
				+ "' (Redisson" + (force ? ", forced" : "") + "): " + outcome);
		return outcome;
	}

	@Override
	public boolean isTransactional() {
		return false;
	}

	/**
	 * Asks Redis whether a probe key exists ({@code EXISTS}, read-only, on any topology), waiting
	 * at most five seconds whatever the client's retry settings.
	 */
	@Override
	public void probe() {
		try {
			this.redisson.getBucket(this.keyPrefix + "probe", StringCodec.INSTANCE)
				.isExistsAsync()
				.toCompletableFuture()
				.get(PROBE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IdempotencyStoreException("Interrupted while probing Redis (Redisson)", ex);
		}
		catch (ExecutionException | TimeoutException | RedisException ex) {
			throw new IdempotencyStoreException("Redis (Redisson) does not answer",
					(ex instanceof ExecutionException && ex.getCause() != null) ? ex.getCause() : ex);
		}
	}

	@Override
	public String name() {
		return "redisson";
	}

	/**
	 * The Redis key of the entry for {@code key}.
	 * @param key the idempotency key
	 * @return the entry's key, e.g. {@code idempotency:points:order-1}
	 */
	public String storageKey(IdempotencyKey key) {
		return RedissonNames.of(this.keyPrefix, key);
	}

	public String getKeyPrefix() {
		return this.keyPrefix;
	}

	static String claimedValue(ClaimResult claim) {
		Assert.isTrue(claim.isClaimed() && claim.token() != null, "claim must be a granted claim of a leased store");
		return PROCESSING + claim.token();
	}

	private long run(String script, String operation, IdempotencyKey key, Object... args) {
		String entry = storageKey(key);
		try {
			Long result = this.redisson.getScript(StringCodec.INSTANCE)
				.eval(entry, RScript.Mode.READ_WRITE, script, RScript.ReturnType.LONG, List.of(entry), args);
			return (result != null) ? result : 0;
		}
		catch (RedisException ex) {
			throw new IdempotencyStoreException("Could not " + operation + " '" + key + "' in Redis (Redisson)", ex);
		}
	}

	/**
	 * Reads the entry on the primary: Redisson's default {@code ReadMode.SLAVE} would send a
	 * {@code GET} to a replica, which may not have the completion yet and answer "in progress".
	 */
	private @Nullable String read(String entry) {
		return this.redisson.getScript(StringCodec.INSTANCE)
			.eval(entry, RScript.Mode.READ_WRITE, READ, RScript.ReturnType.VALUE, List.of(entry));
	}

	/** As {@link #run}, with the entry's details hash as the script's second key. */
	private long runWithDetails(String script, String operation, IdempotencyKey key, Object... args) {
		String entry = storageKey(key);
		try {
			Long result = this.redisson.getScript(StringCodec.INSTANCE)
				.eval(entry, RScript.Mode.READ_WRITE, script, RScript.ReturnType.LONG,
						List.of(entry, KeyDetailsScripts.detailsKey(entry)), args);
			return (result != null) ? result : 0;
		}
		catch (RedisException ex) {
			throw new IdempotencyStoreException("Could not " + operation + " '" + key + "' in Redis (Redisson)", ex);
		}
	}

	/** {@code PX 0} is an error: whole milliseconds, at least one. */
	private static Duration atLeastOneMilli(Duration duration) {
		return Duration.ofMillis(Math.max(1, duration.toMillis()));
	}

}
