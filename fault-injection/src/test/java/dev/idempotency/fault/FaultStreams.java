package dev.idempotency.fault;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.idempotency.testsupport.TcpProxy;

import org.springframework.data.domain.Range;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.connection.stream.MapRecord;
import org.springframework.data.redis.connection.stream.PendingMessages;
import org.springframework.data.redis.connection.stream.PendingMessagesSummary;
import org.springframework.data.redis.connection.stream.ReadOffset;
import org.springframework.data.redis.connection.stream.RecordId;
import org.springframework.data.redis.connection.stream.StreamRecords;
import org.springframework.data.redis.core.Cursor;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.ScanOptions;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * The Redis the Redis Stream child consumers read, seen from the parent: the producer (XADD), the
 * group's pending entries list, the dead-letter stream, and the clean-up of the run's keys (the
 * streams, and in redis-atomic mode the store's keys; never anything else: the Redis is shared).
 * <p>
 * The producer numbers the entries itself ({@code XADD <stream> <n>-0}), so an entry's id is also
 * its offset in the ledger (partition 0, offset n).
 * <p>
 * Redis is {@code idempotency.test.redis.host} (default {@code 127.0.0.1}) and
 * {@code idempotency.test.redis.port} (default 6379).
 */
final class FaultStreams implements AutoCloseable {

	static final String HOST = System.getProperty("idempotency.test.redis.host", "127.0.0.1");

	static final int PORT = Integer.getInteger("idempotency.test.redis.port", 6379);

	/** The field of an entry that names it for the suite (an order id, or a poison entry's name). */
	static final String NAME_FIELD = "name";

	private final LettuceConnectionFactory connectionFactory;

	private final StringRedisTemplate redis;

	private final String stream;

	private final String group;

	private long lastId;

	FaultStreams(String stream, String group) {
		this.stream = stream;
		this.group = group;
		this.connectionFactory = new LettuceConnectionFactory(new RedisStandaloneConfiguration(HOST, PORT));
		this.connectionFactory.afterPropertiesSet();
		this.connectionFactory.start();
		this.redis = new StringRedisTemplate(this.connectionFactory);
		this.redis.execute((RedisCallback<String>) (connection) -> connection.streamCommands()
			.xGroupCreate(bytes(stream), group, ReadOffset.from("0-0"), true));
	}

	String stream() {
		return this.stream;
	}

	String deadLetterStream() {
		return this.stream + ".dlq";
	}

	/** The consumers' system properties for this Redis, stream and group. */
	Map<String, String> consumerProperties() {
		return consumerProperties(HOST, PORT);
	}

	/**
	 * The consumers' system properties for this stream and group, reaching Redis through
	 * {@code proxy} (outage tests).
	 */
	Map<String, String> consumerPropertiesThrough(TcpProxy proxy) {
		return consumerProperties("127.0.0.1", proxy.port());
	}

	/** A proxy in front of this Redis. */
	static TcpProxy proxy() {
		return TcpProxy.start(HOST, PORT);
	}

	private Map<String, String> consumerProperties(String host, int port) {
		Map<String, String> properties = new LinkedHashMap<>();
		properties.put("spring.data.redis.host", host);
		properties.put("spring.data.redis.port", String.valueOf(port));
		properties.put("fault.stream", this.stream);
		properties.put("fault.group", this.group);
		return properties;
	}

	/**
	 * Adds entries ({@code payload} and {@value #NAME_FIELD} fields) with ids {@code <n>-0}, in a
	 * pipeline.
	 * @param entries name and payload of each entry
	 */
	void add(List<Map.Entry<String, String>> entries) {
		List<MapRecord<String, String, String>> records = new ArrayList<>();
		for (Map.Entry<String, String> entry : entries) {
			this.lastId++;
			records.add(StreamRecords.newRecord()
				.in(this.stream)
				.withId(RecordId.of(this.lastId, 0))
				.ofMap(Map.of(NAME_FIELD, entry.getKey(), "payload", entry.getValue())));
		}
		this.redis.executePipelined((RedisCallback<Object>) (connection) -> {
			for (MapRecord<String, String, String> record : records) {
				connection.streamCommands().xAdd(record.serialize(this.redis.getStringSerializer()));
			}
			return null;
		});
	}

	long length() {
		Long length = this.redis.opsForStream().size(this.stream);
		return (length != null) ? length : 0;
	}

	/** The group's pending entries (delivered, not acknowledged). */
	long pending() {
		PendingMessagesSummary summary = this.redis.opsForStream().pending(this.stream, this.group);
		return (summary != null) ? summary.getTotalPendingMessages() : 0;
	}

	/** The pending entries per consumer. */
	Map<String, Long> pendingPerConsumer() {
		PendingMessagesSummary summary = this.redis.opsForStream().pending(this.stream, this.group);
		return (summary != null) ? new HashMap<>(summary.getPendingMessagesPerConsumer()) : Map.of();
	}

	/** The consumer that holds entry {@code <offset>-<partition>} pending, or {@code null}. */
	String pendingOwner(long offset, int partition) {
		RecordId id = RecordId.of(offset, partition);
		PendingMessages pending = this.redis.opsForStream()
			.pending(this.stream, this.group, Range.closed(id.getValue(), id.getValue()), 1);
		return pending.isEmpty() ? null : pending.get(0).getConsumerName();
	}

	/** The group's last-delivered id, as {@code XINFO GROUPS} reports it. */
	String lastDeliveredId() {
		return this.redis.opsForStream()
			.groups(this.stream)
			.stream()
			.filter((info) -> info.groupName().equals(this.group))
			.map((info) -> info.lastDeliveredId())
			.findFirst()
			.orElse(null);
	}

	/** True when every entry was delivered to the group and none is pending. */
	boolean caughtUp() {
		return RecordId.of(this.lastId, 0).getValue().equals(lastDeliveredId()) && pending() == 0;
	}

	/** The dead-letter stream's entries: their {@value #NAME_FIELD} and their {@code dlq-error}. */
	List<Map<String, String>> deadLetters() {
		List<Map<String, String>> entries = new ArrayList<>();
		for (MapRecord<String, Object, Object> record : this.redis.opsForStream()
			.range(deadLetterStream(), Range.unbounded())) {
			Map<String, String> fields = new LinkedHashMap<>();
			record.getValue().forEach((key, value) -> fields.put(String.valueOf(key), String.valueOf(value)));
			entries.add(fields);
		}
		return entries;
	}

	/**
	 * Deletes the run's stream, dead-letter stream and idempotency keys (unless
	 * {@code -Dfault.keep-data=true}).
	 * @param storeKeyPrefix the prefix of the run's Redis store keys (found with SCAN, never KEYS)
	 */
	void deleteRunData(String storeKeyPrefix) {
		if (Boolean.getBoolean("fault.keep-data")) {
			return;
		}
		this.redis.delete(List.of(this.stream, deadLetterStream()));
		List<String> keys = new ArrayList<>();
		try (Cursor<String> cursor = this.redis.scan(ScanOptions.scanOptions().match(storeKeyPrefix + "*").count(1000).build())) {
			cursor.forEachRemaining(keys::add);
		}
		for (int i = 0; i < keys.size(); i += 1000) {
			this.redis.delete(keys.subList(i, Math.min(keys.size(), i + 1000)));
		}
	}

	@Override
	public void close() {
		this.connectionFactory.destroy();
	}

	private static byte[] bytes(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

}
