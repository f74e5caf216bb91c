package dev.idempotency.benchmarks.outbox;

import java.nio.charset.StandardCharsets;
import java.util.List;

import dev.idempotency.core.DeliveryContext;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;

/** The n-th message of the outbox measurements: its key, its JSON payload, and the record a baseline sends. */
final class OutboxRecords {

	private OutboxRecords() {
	}

	static String key(int n) {
		return "acct-" + Math.floorMod(n * 7919, OutboxEnvironment.ACCOUNTS);
	}

	static String payload(int n) {
		return "{\"orderId\":\"order-" + n + "\",\"account\":" + Math.floorMod(n * 7919, OutboxEnvironment.ACCOUNTS)
				+ ",\"amount\":" + (1 + n % 97) + ",\"currency\":\"EUR\",\"note\":\"benchmark payload\"}";
	}

	/** The record with the relay's key, payload and {@code message-id} header. */
	static ProducerRecord<String, String> record(String topic, String key, String payload, String messageId) {
		List<Header> headers = List.of(new RecordHeader(DeliveryContext.MESSAGE_ID_HEADER,
				messageId.getBytes(StandardCharsets.UTF_8)));
		return new ProducerRecord<>(topic, null, key, payload, headers);
	}

}
