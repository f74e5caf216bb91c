package dev.idempotency.outbox.kafka;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import dev.idempotency.core.MessageFields;
import dev.idempotency.outbox.OutboxMessage;
import dev.idempotency.outbox.OutboxSender;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.RecordBatchTooLargeException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;

import org.springframework.kafka.core.KafkaOperations;

/**
 * Sends outbox messages as Kafka records: the message key as the record key, the payload as a
 * string value, the {@value MessageFields#MESSAGE_ID} header and the message's own headers
 * (UTF-8), and the {@value MessageFields#TRACEPARENT} header when the outbox captured the
 * publisher's trace context (unless the message's own headers have one). With
 * {@code spring.kafka.listener.observation-enabled}, the consumer's listener observation continues
 * that trace. The returned future is the producer's: it completes when the broker acknowledged the
 * record as the producer's {@code acks} setting says, so configure the producer with
 * {@code acks=all} and {@code enable.idempotence=true} (Kafka's defaults since 3.0) and keep
 * {@code max.block.ms} and {@code delivery.timeout.ms} within the relay's send timeout.
 * <p>
 * The template must serialize keys and values as strings (Spring Boot's default
 * {@code StringSerializer}).
 * <p>
 * Which failures are the message's is decided by {@link #isMessageFailure(Throwable)}.
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
			if (!MessageFields.MESSAGE_ID.equals(header.getKey())) {
				headers.add(new RecordHeader(header.getKey(), header.getValue().getBytes(StandardCharsets.UTF_8)));
			}
		}
		headers.add(new RecordHeader(MessageFields.MESSAGE_ID,
				message.messageId().getBytes(StandardCharsets.UTF_8)));
		String traceparent = message.traceparent();
		if (traceparent != null && !message.headers().containsKey(MessageFields.TRACEPARENT)) {
			headers.add(new RecordHeader(MessageFields.TRACEPARENT, traceparent.getBytes(StandardCharsets.UTF_8)));
		}
		return this.kafka.send(new ProducerRecord<>(topic, null, message.key(), message.payload(), headers));
	}

	/**
	 * A failure is the message's when the exception or one of its causes is one that sending the
	 * same record again cannot cure: a {@link SerializationException}, a
	 * {@link RecordTooLargeException} or {@link RecordBatchTooLargeException}, an
	 * {@link InvalidRecordException} (for example a record without a key on a compacted topic), an
	 * {@link InvalidTopicException}, or a {@link TopicAuthorizationException} (the producer may not
	 * write to that topic). Every other failure is the broker's or the network's, in particular Kafka's
	 * {@link RetriableException}s ({@code TimeoutException}, {@code NetworkException},
	 * {@code NotEnoughReplicasException}, {@code DisconnectException}, also
	 * {@code UnknownTopicOrPartitionException}, which Kafka reports while a topic is being created
	 * or its leader moves), {@code BrokerNotAvailableException}, authentication failures, cluster-wide authorization
	 * failures (such as a missing {@code IdempotentWrite} permission), a closed or fenced producer and
	 * anything unknown: they would fail every message alike.
	 * <p>
	 * A topic that does not exist, with automatic creation off, fails as a
	 * {@code TimeoutException} ("not present in metadata"), exactly as any topic does while the
	 * broker is unreachable; its rows therefore stay pending, with that error as their last error,
	 * and the oldest pending age grows until the topic is created (alert on it).
	 * @param failure what {@link #send} threw or completed its future with (possibly wrapped in a
	 * {@code KafkaProducerException})
	 * @return whether the failure counts towards the message's attempts
	 */
	@Override
	public boolean isMessageFailure(Throwable failure) {
		int depth = 0;
		for (Throwable cause = failure; cause != null && depth < 16; cause = cause.getCause(), depth++) {
			if (cause instanceof RetriableException) {
				return false;
			}
			if (cause instanceof SerializationException || cause instanceof RecordTooLargeException
					|| cause instanceof RecordBatchTooLargeException || cause instanceof InvalidRecordException
					|| cause instanceof InvalidTopicException || cause instanceof TopicAuthorizationException) {
				return true;
			}
		}
		return false;
	}

}
