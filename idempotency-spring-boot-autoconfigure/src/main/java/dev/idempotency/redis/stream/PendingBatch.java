package dev.idempotency.redis.stream;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * The reply of a {@link RedisStreamScripts} read or claim script: pending entries with their
 * delivery counters, the ids of entries trimmed away, and the cursor of the next page.
 *
 * @param cursor where the next claim page starts; {@code 0-0} when there is none
 * @param entries the entries, in stream order
 * @param deleted ids found pending but no longer in the stream (by XAUTOCLAIM, or before an XCLAIM)
 */
record PendingBatch(String cursor, List<Entry> entries, List<String> deleted) {

	/** The cursor that starts a scan, and that a scan returns when it is complete. */
	static final String START = "0-0";

	/**
	 * Parses a script's reply {@code {next-cursor, entries, deleted-ids, delivery-counts}}; an
	 * entry is {@code {id, {field, value, ...}}} with a nil body when its content was trimmed away.
	 * @param reply the raw reply, or {@code null}
	 * @return the batch; empty for a missing or short reply
	 */
	static PendingBatch parse(@Nullable List<?> reply) {
		if (reply == null || reply.size() < 4) {
			return new PendingBatch(START, List.of(), List.of());
		}
		String cursor = String.valueOf(reply.get(0));
		List<?> rawEntries = (reply.get(1) instanceof List<?> list) ? list : List.of();
		List<?> counts = (reply.get(3) instanceof List<?> list) ? list : List.of();
		List<Entry> entries = new ArrayList<>();
		for (int i = 0; i < rawEntries.size(); i++) {
			if (!(rawEntries.get(i) instanceof List<?> entry) || entry.isEmpty()) {
				continue;
			}
			Map<String, String> fields = null;
			if (entry.size() > 1 && entry.get(1) instanceof List<?> flat) {
				fields = new LinkedHashMap<>();
				for (int f = 0; f + 1 < flat.size(); f += 2) {
					fields.put(String.valueOf(flat.get(f)), String.valueOf(flat.get(f + 1)));
				}
			}
			long count = (i < counts.size() && counts.get(i) instanceof Number number) ? number.longValue() : 1;
			entries.add(new Entry(String.valueOf(entry.get(0)), fields, count));
		}
		List<String> deleted = new ArrayList<>();
		if (reply.get(2) instanceof List<?> ids) {
			for (Object id : ids) {
				if (id != null) {
					deleted.add(String.valueOf(id));
				}
			}
		}
		return new PendingBatch(cursor, entries, deleted);
	}

	/**
	 * One pending entry.
	 *
	 * @param id the record id
	 * @param fields the entry's fields, or {@code null} when it was trimmed away
	 * @param deliveryCount how often it has been delivered, this time included
	 */
	record Entry(String id, @Nullable Map<String, String> fields, long deliveryCount) {

	}

}
