package dev.idempotency.redis.stream;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.idempotency.core.MessageFields;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.data.domain.Range;
import org.springframework.data.redis.connection.Limit;
import org.springframework.data.redis.connection.stream.MapRecord;
import org.springframework.data.redis.connection.stream.RecordId;
import org.springframework.data.redis.connection.stream.StreamRecords;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Re-drives entries of a dead-letter stream ({@code <stream><suffix>}, written when a
 * {@code @RedisStreamListener} gives an entry up) back to the stream they came from, and shows them
 * without sending (a dry run).
 * <p>
 * Entries are read with {@code XRANGE} from {@code fromId} (inclusive), at most {@code limit}. A
 * re-driven entry is added ({@code XADD}) to its source stream (field
 * {@value DeadLetterStream#SOURCE_FIELD}) with its original fields, without the {@code dlq-*} fields,
 * and only once that succeeded removed from the dead-letter stream ({@code XDEL}). A crash, or a
 * failing {@code XDEL}, between the two leaves the entry in both streams, so the next re-drive sends
 * it again: the consumer deduplicates it when its key is the {@value MessageFields#MESSAGE_ID} field
 * or comes from the payload. The re-driven entry has a new record id, so a listener whose key is the
 * default ({@code ~redis-stream:<stream>:<record id>}) for entries without a
 * {@value MessageFields#MESSAGE_ID} field runs it again. An entry given up because it can never
 * succeed (a missing key, a conflicting fingerprint) is dead-lettered again.
 *
 * @since 0.2.0
 */
public class DeadLetterStreamRedrive {

	private static final Log logger = LogFactory.getLog(DeadLetterStreamRedrive.class);

	private static final Set<String> DEAD_LETTER_FIELDS = Set.of(DeadLetterStream.ERROR_FIELD,
			DeadLetterStream.SOURCE_FIELD, DeadLetterStream.ID_FIELD, DeadLetterStream.GROUP_FIELD,
			DeadLetterStream.DELIVERY_COUNT_FIELD);

	private final StringRedisTemplate redis;

	private final String suffix;

	/**
	 * Creates the re-drive.
	 * @param redis the Redis of the streams
	 * @param suffix appended to a stream's key to name its dead-letter stream
	 */
	public DeadLetterStreamRedrive(StringRedisTemplate redis, String suffix) {
		this.redis = redis;
		this.suffix = suffix;
	}

	/**
	 * The dead-letter stream of a stream.
	 * @param stream the source stream's key
	 * @return {@code <stream><suffix>}
	 */
	public String deadLetterStream(String stream) {
		return stream + this.suffix;
	}

	/**
	 * Reads dead-letter entries of a stream without sending anything: what {@link #redrive} would
	 * send.
	 * @param stream the source stream (not its dead-letter stream)
	 * @param fromId the first record id to read (inclusive), or {@code null} for the beginning
	 * @param limit the most entries, at least 1
	 * @return the entries found, {@code sent} 0
	 */
	public Report preview(String stream, @Nullable String fromId, int limit) {
		List<MapRecord<String, Object, Object>> entries = read(stream, fromId, limit);
		return new Report(stream, deadLetterStream(stream), true,
				entries.stream().map((entry) -> describe(stream, entry)).toList(), 0, next(entries, fromId));
	}

	/**
	 * Re-drives dead-letter entries of a stream to their source stream, oldest first, removing each
	 * from the dead-letter stream once it was added to its source.
	 * @param stream the source stream (not its dead-letter stream)
	 * @param fromId the first record id to read (inclusive), or {@code null} for the beginning
	 * @param limit the most entries, at least 1
	 * @return the entries sent
	 * @throws RuntimeException if Redis fails; the entries before it were sent and removed
	 */
	public Report redrive(String stream, @Nullable String fromId, int limit) {
		String deadLetterStream = deadLetterStream(stream);
		List<MapRecord<String, Object, Object>> entries = read(stream, fromId, limit);
		List<DeadEntry> sent = new ArrayList<>();
		for (MapRecord<String, Object, Object> entry : entries) {
			DeadEntry deadEntry = describe(stream, entry);
			Map<String, String> fields = new LinkedHashMap<>();
			entry.getValue().forEach((field, value) -> {
				if (!DEAD_LETTER_FIELDS.contains(String.valueOf(field))) {
					fields.put(String.valueOf(field), String.valueOf(value));
				}
			});
			this.redis.opsForStream().add(StreamRecords.newRecord().in(deadEntry.sourceStream()).ofMap(fields));
			// Only after the XADD succeeded: a failure in between sends the entry twice, never loses it
			this.redis.opsForStream().delete(deadLetterStream, entry.getId());
			sent.add(deadEntry);
		}
		if (!sent.isEmpty()) {
			logger.warn("Re-drove " + sent.size() + " entr" + ((sent.size() == 1) ? "y" : "ies") + " of '"
					+ deadLetterStream + "' to their source stream");
		}
		return new Report(stream, deadLetterStream, false, sent, sent.size(), next(entries, fromId));
	}

	private List<MapRecord<String, Object, Object>> read(String stream, @Nullable String fromId, int limit) {
		if (limit < 1) {
			throw new IllegalArgumentException("limit must be at least 1");
		}
		Range<String> range = (fromId != null && !fromId.isBlank())
				? Range.rightUnbounded(Range.Bound.inclusive(RecordId.of(fromId).getValue())) : Range.unbounded();
		List<MapRecord<String, Object, Object>> entries = this.redis.opsForStream()
			.range(deadLetterStream(stream), range, Limit.limit().count(limit));
		return (entries != null) ? entries : List.of();
	}

	private static @Nullable String next(List<MapRecord<String, Object, Object>> entries, @Nullable String fromId) {
		if (entries.isEmpty()) {
			return fromId;
		}
		RecordId last = entries.get(entries.size() - 1).getId();
		return RecordId.of(last.getTimestamp(), last.getSequence() + 1).getValue();
	}

	private static DeadEntry describe(String stream, MapRecord<String, Object, Object> entry) {
		Map<Object, Object> fields = entry.getValue();
		String source = field(fields, DeadLetterStream.SOURCE_FIELD);
		String deliveryCount = field(fields, DeadLetterStream.DELIVERY_COUNT_FIELD);
		Long deliveries = null;
		if (deliveryCount != null) {
			try {
				deliveries = Long.valueOf(deliveryCount);
			}
			catch (NumberFormatException ex) {
				// Left out: not written by this starter
			}
		}
		return new DeadEntry(entry.getId().getValue(), (source != null) ? source : stream,
				field(fields, DeadLetterStream.ID_FIELD), field(fields, DeadLetterStream.GROUP_FIELD), deliveries,
				field(fields, MessageFields.MESSAGE_ID), field(fields, DeadLetterStream.ERROR_FIELD));
	}

	private static @Nullable String field(Map<Object, Object> fields, String name) {
		Object value = fields.get(name);
		return (value != null) ? value.toString() : null;
	}

	/**
	 * An entry of a dead-letter stream. No payload: it is business content.
	 * @param id its record id in the dead-letter stream
	 * @param sourceStream where it came from, and where it is re-driven to
	 * @param sourceId its record id there, or {@code null} without the field
	 * @param group the consumer group that gave it up
	 * @param deliveryCount how often it had been delivered
	 * @param messageId its {@value MessageFields#MESSAGE_ID} field, or {@code null}
	 * @param error the class and message of the last failure
	 */
	public record DeadEntry(String id, String sourceStream, @Nullable String sourceId, @Nullable String group,
			@Nullable Long deliveryCount, @Nullable String messageId, @Nullable String error) {
	}

	/**
	 * What a preview found or a re-drive sent.
	 * @param stream the source stream asked for
	 * @param deadLetterStream its dead-letter stream
	 * @param dryRun {@code true} for a preview: nothing was sent
	 * @param entries the entries read (a preview) or sent (a re-drive), oldest first
	 * @param sent how many entries were sent
	 * @param nextId the record id a next page starts at ({@code fromId} when nothing was read)
	 */
	public record Report(String stream, String deadLetterStream, boolean dryRun, List<DeadEntry> entries, int sent,
			@Nullable String nextId) {
	}

}
