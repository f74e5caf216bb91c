package dev.idempotency.kafka;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import dev.idempotency.core.DeliveryContext;
import dev.idempotency.core.DeliveryContextHolder;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.BDDMockito.given;
import static org.mockito.Mockito.mock;

/**
 * What {@link KafkaDeliveryContextInterceptor} binds for a record.
 */
class KafkaDeliveryContextInterceptorTests {

	private final KafkaDeliveryContextInterceptor interceptor = new KafkaDeliveryContextInterceptor();

	@AfterEach
	void clear() {
		DeliveryContextHolder.clear();
	}

	@SuppressWarnings("unchecked")
	private Consumer<Object, Object> consumerOfGroup(String group) {
		Consumer<Object, Object> consumer = mock(Consumer.class);
		given(consumer.groupMetadata()).willReturn(new ConsumerGroupMetadata(group));
		return consumer;
	}

	@Test
	void messageIdIsKafkaTopicPartitionAndOffsetWithoutAHeader() {
		ConsumerRecord<Object, Object> record = new ConsumerRecord<>("orders", 3, 42L, "k", "v");
		this.interceptor.intercept(record, consumerOfGroup("points"));
		DeliveryContext delivery = DeliveryContextHolder.current();
		assertThat(delivery).isNotNull();
		assertThat(delivery.messageId()).isEqualTo("~kafka:orders:3:42");
		assertThat(delivery.namespace()).isEqualTo("points");
		assertThat(delivery.variables()).containsEntry("record", record);
		assertThat(delivery.acknowledger()).isNull();
	}

	@Test
	void messageIdHeaderWinsAndHeadersAreExposedAsStrings() {
		ConsumerRecord<Object, Object> record = new ConsumerRecord<>("orders", 0, 7L, "k", "v");
		record.headers().add(DeliveryContext.MESSAGE_ID_HEADER, "abc-123".getBytes(StandardCharsets.UTF_8));
		record.headers().add("tenant", "acme".getBytes(StandardCharsets.UTF_8));
		this.interceptor.intercept(record, consumerOfGroup("points"));
		DeliveryContext delivery = DeliveryContextHolder.current();
		assertThat(delivery.messageId()).isEqualTo("abc-123");
		assertThat(delivery.variables().get("headers"))
			.isEqualTo(Map.of(DeliveryContext.MESSAGE_ID_HEADER, "abc-123", "tenant", "acme"));
	}

	@Test
	void messageIdHeaderThatCouldNameAnotherRecordNeverEqualsItsId() {
		ConsumerRecord<Object, Object> later = new ConsumerRecord<>("orders", 0, 8L, "k", "v");
		for (String header : new String[] { "orders:0:8", "~kafka:orders:0:8" }) {
			ConsumerRecord<Object, Object> record = new ConsumerRecord<>("orders", 0, 7L, "k", "v");
			record.headers().add(DeliveryContext.MESSAGE_ID_HEADER, header.getBytes(StandardCharsets.UTF_8));
			assertThat(KafkaDeliveryContextInterceptor.messageId(record))
				.isNotEqualTo(KafkaDeliveryContextInterceptor.messageId(later));
		}
	}

	@Test
	void messageIdHeaderStartingWithATildeGetsASecondOne() {
		ConsumerRecord<Object, Object> record = new ConsumerRecord<>("orders", 0, 7L, "k", "v");
		record.headers().add(DeliveryContext.MESSAGE_ID_HEADER, "~evt-1".getBytes(StandardCharsets.UTF_8));
		assertThat(KafkaDeliveryContextInterceptor.messageId(record)).isEqualTo("~~evt-1");
	}

	@Test
	void emptyMessageIdHeaderFallsBackToTheRecordsOwnId() {
		ConsumerRecord<Object, Object> record = new ConsumerRecord<>("orders", 1, 5L, "k", "v");
		record.headers().add(DeliveryContext.MESSAGE_ID_HEADER, new byte[0]);
		assertThat(KafkaDeliveryContextInterceptor.messageId(record)).isEqualTo("~kafka:orders:1:5");
	}

	@Test
	void batchElementsCarryEachRecordsMessageIdEncodedAlike() {
		ConsumerRecord<Object, Object> withHeader = new ConsumerRecord<>("orders", 0, 7L, "k", "v");
		withHeader.headers().add(DeliveryContext.MESSAGE_ID_HEADER, "orders:0:8".getBytes(StandardCharsets.UTF_8));
		ConsumerRecord<Object, Object> without = new ConsumerRecord<>("orders", 0, 8L, "k", "v");
		ConsumerRecords<Object, Object> batch = new ConsumerRecords<>(
				Map.of(new TopicPartition("orders", 0), List.of(withHeader, without)), Map.of());
		new KafkaBatchDeliveryContextInterceptor().intercept(batch, consumerOfGroup("points"));
		DeliveryContext delivery = DeliveryContextHolder.current();
		assertThat(delivery.elements()).extracting(DeliveryContext::messageId)
			.containsExactly("orders:0:8", "~kafka:orders:0:8");
	}

	@Test
	void deliveryIsClearedAfterTheRecord() {
		ConsumerRecord<Object, Object> record = new ConsumerRecord<>("orders", 0, 1L, "k", "v");
		Consumer<Object, Object> consumer = consumerOfGroup("points");
		this.interceptor.intercept(record, consumer);
		this.interceptor.afterRecord(record, consumer);
		assertThat(DeliveryContextHolder.current()).isNull();
	}

}
