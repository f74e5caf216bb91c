package dev.idempotency.outbox.kafka;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

import dev.idempotency.outbox.OutboxMessage;
import dev.idempotency.outbox.OutboxStatus;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.BrokerNotAvailableException;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.DisconnectException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.NetworkException;
import org.apache.kafka.common.errors.NotEnoughReplicasException;
import org.apache.kafka.common.errors.RecordBatchTooLargeException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.junit.jupiter.api.Test;
import org.mockito.ArgumentCaptor;

import org.springframework.kafka.core.KafkaProducerException;
import org.springframework.kafka.core.KafkaTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.BDDMockito.given;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;

/**
 * Which Kafka failures are the message's (they count towards dead) and which are the broker's or
 * the network's (they never do).
 */
class KafkaOutboxSenderTests {

	private final KafkaOutboxSender sender = new KafkaOutboxSender(mock(KafkaTemplate.class));

	@Test
	void failuresThatSendingAgainCannotCureAreTheMessages() {
		assertThat(this.sender.isMessageFailure(new SerializationException("bad"))).isTrue();
		assertThat(this.sender.isMessageFailure(new RecordTooLargeException("big"))).isTrue();
		assertThat(this.sender.isMessageFailure(new RecordBatchTooLargeException("big"))).isTrue();
		assertThat(this.sender.isMessageFailure(new InvalidRecordException("no key on a compacted topic"))).isTrue();
		assertThat(this.sender.isMessageFailure(new InvalidTopicException("bad name"))).isTrue();
		assertThat(this.sender.isMessageFailure(new TopicAuthorizationException("denied"))).isTrue();
	}

	@Test
	void brokerAndNetworkFailuresAreNotTheMessages() {
		assertThat(this.sender.isMessageFailure(new TimeoutException("Topic t not present in metadata after 60000 ms.")))
			.isFalse();
		assertThat(this.sender.isMessageFailure(new NetworkException("gone"))).isFalse();
		assertThat(this.sender.isMessageFailure(new NotEnoughReplicasException("isr"))).isFalse();
		assertThat(this.sender.isMessageFailure(new DisconnectException("bye"))).isFalse();
		assertThat(this.sender.isMessageFailure(new BrokerNotAvailableException("down"))).isFalse();
		assertThat(this.sender.isMessageFailure(new UnknownTopicOrPartitionException("moving"))).isFalse();
		assertThat(this.sender.isMessageFailure(new AuthenticationException("token server down"))).isFalse();
		assertThat(this.sender.isMessageFailure(new ClusterAuthorizationException("no IdempotentWrite"))).isFalse();
		assertThat(this.sender.isMessageFailure(new IllegalStateException("producer closed"))).isFalse();
	}

	@Test
	void wrappedFailuresAreClassifiedByTheirCause() {
		assertThat(this.sender.isMessageFailure(new ExecutionException(
				new KafkaProducerException(null, "send failed", new RecordTooLargeException("big")))))
			.isTrue();
		assertThat(this.sender.isMessageFailure(
				new KafkaProducerException(null, "send failed", new TimeoutException("expired"))))
			.isFalse();
	}

	@Test
	@SuppressWarnings("unchecked")
	void publishersTraceparentIsAHeaderUnlessTheHeadersHaveOne() {
		KafkaTemplate<String, String> kafka = mock(KafkaTemplate.class);
		given(kafka.send(any(ProducerRecord.class))).willReturn(new CompletableFuture<>());
		KafkaOutboxSender sender = new KafkaOutboxSender(kafka);
		String traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

		sender.send("orders", message(Map.of(), traceparent));
		sender.send("orders", message(Map.of("traceparent", "own"), traceparent));
		sender.send("orders", message(Map.of(), null));

		ArgumentCaptor<ProducerRecord<String, String>> records = ArgumentCaptor.forClass(ProducerRecord.class);
		verify(kafka, times(3)).send(records.capture());
		assertThat(records.getAllValues()).extracting((record) -> traceparents(record))
			.containsExactly(List.of(traceparent), List.of("own"), List.of());
	}

	private static List<String> traceparents(ProducerRecord<String, String> record) {
		List<String> values = new ArrayList<>();
		record.headers()
			.headers("traceparent")
			.forEach((header) -> values.add(new String(header.value(), StandardCharsets.UTF_8)));
		return values;
	}

	private static OutboxMessage message(Map<String, String> headers, String traceparent) {
		return new OutboxMessage(1, "m-1", "kafka:orders", "o-1", "{}", headers, OutboxStatus.PENDING, 0, Instant.EPOCH,
				null, null, traceparent);
	}

}
