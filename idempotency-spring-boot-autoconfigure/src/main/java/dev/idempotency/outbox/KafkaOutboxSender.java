package dev.idempotency.outbox;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import dev.idempotency.core.DeliveryContext;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;

import org.springframework.kafka.core.KafkaOperations;

/**
 * Sends outbox messages as Kafka records: the message key as the record key, the payload as a
 * string value, the {@value DeliveryContext#MESSAGE_ID_HEADER} header and the message's own headers
 * (UTF-8). The returned future is the producer's: it completes when the broker acknowledged the
 * record as the producer's {@code acks} setting says, so configure the producer with
 * {@code acks=all} and {@code enable.idempotence=true} (Kafka's defaults since 3.0) and keep
 * {@code max.block.ms} and {@code delivery.timeout.ms} within the relay's send timeout.
 * <p>
 * The template must serialize keys and values as strings (Spring Boot's default
 * {@code StringSerializer}).
 *
 * @since 0.1.0
 */
public class KafkaOutboxSender implements OutboxSender {

	/** The destination prefix of Kafka topics. */
	public static final String SCHEME = "kafka";

	private final KafkaOperations<String, String> kafka;

	@SuppressWarnings("unchecked")
	public KafkaOutboxSender(KafkaOperations<?, ?> kafka) {
		this.kafka = (KafkaOperations<String, String>) kafka;
	}

	@Override
	public String scheme() {
		return SCHEME;
	}

	@Override
	public CompletableFuture<?> send(String topic, OutboxMessage message) {
		List<Header> headers = new ArrayList<>();
		for (Map.Entry<String, String> header : message.headers().entrySet()) {
			if (!DeliveryContext.MESSAGE_ID_HEADER.equals(header.getKey())) {
				headers.add(new RecordHeader(header.getKey(), header.getValue().getBytes(StandardCharsets.UTF_8)));
			}
		}
		headers.add(new RecordHeader(DeliveryContext.MESSAGE_ID_HEADER,
				message.messageId().getBytes(StandardCharsets.UTF_8)));
		return this.kafka.send(new ProducerRecord<>(topic, null, message.key(), message.payload(), headers));
	}

}
