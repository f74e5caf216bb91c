package dev.idempotency.kafka;

import java.nio.charset.StandardCharsets;
import java.util.AbstractMap;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.jspecify.annotations.Nullable;

/**
 * A record's headers as the {@code #headers} variable of key expressions: the last value of each
 * header, decoded as UTF-8 ({@code ""} for a header without a value). Read-only, and decoded only
 * when read: most key expressions never look at a header, and a record listener builds one of these
 * for every record.
 */
final class RecordHeaderValues extends AbstractMap<String, String> {

	private final Headers headers;

	private @Nullable Set<Entry<String, String>> entries;

	RecordHeaderValues(Headers headers) {
		this.headers = headers;
	}

	@Override
	public @Nullable String get(Object name) {
		if (!(name instanceof String key)) {
			return null;
		}
		Header header = this.headers.lastHeader(key);
		return (header != null) ? decode(header) : null;
	}

	@Override
	public boolean containsKey(Object name) {
		return (name instanceof String key) && this.headers.lastHeader(key) != null;
	}

	@Override
	public Set<Entry<String, String>> entrySet() {
		Set<Entry<String, String>> entries = this.entries;
		if (entries == null) {
			Map<String, String> values = new LinkedHashMap<>();
			for (Header header : this.headers) {
				values.put(header.key(), decode(header));
			}
			entries = Collections.unmodifiableMap(values).entrySet();
			this.entries = entries;
		}
		return entries;
	}

	private static String decode(Header header) {
		return (header.value() != null) ? new String(header.value(), StandardCharsets.UTF_8) : "";
	}

}
