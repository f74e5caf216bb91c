package dev.idempotency.kafka;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import dev.idempotency.core.DeliveryContext;
import dev.idempotency.core.DeliveryContextHolder;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;

import org.springframework.kafka.listener.BatchInterceptor;

/**
 * Binds the batch being delivered to a batch listener as a {@link DeliveryContext#batch batch
 * context}: one element per record, in the order spring-kafka passes them to the listener's
 * {@code List}, each as {@link KafkaDeliveryContextInterceptor#deliveryOf} describes a record, plus
 * {@code #records} for the whole batch. spring-kafka runs it before every invocation, retries
 * included, and clears it after each.
 *
 * @since 0.1.0
 */
public class KafkaBatchDeliveryContextInterceptor implements BatchInterceptor<Object, Object> {

	@Override
	public ConsumerRecords<Object, Object> intercept(ConsumerRecords<Object, Object> records,
			Consumer<Object, Object> consumer) {
		String groupId = KafkaDeliveryContextInterceptor.groupId(consumer);
		List<ConsumerRecord<Object, Object>> list = new ArrayList<>(records.count());
		List<DeliveryContext> elements = new ArrayList<>(records.count());
		for (ConsumerRecord<Object, Object> record : records) {
			list.add(record);
			elements.add(KafkaDeliveryContextInterceptor.deliveryOf(record, groupId));
		}
		if (!elements.isEmpty()) {
			DeliveryContextHolder.set(DeliveryContext.batch(groupId, Map.of("records", list), null, elements));
		}
		return records;
	}

	@Override
	public void success(ConsumerRecords<Object, Object> records, Consumer<Object, Object> consumer) {
		DeliveryContextHolder.clear();
		// The batch got through: resumes the listener if this consumer paused it (fail-closed).
		FailClosedPause.deliveryGotThrough();
	}

	@Override
	public void failure(ConsumerRecords<Object, Object> records, Exception exception,
			Consumer<Object, Object> consumer) {
		DeliveryContextHolder.clear();
	}

	@Override
	public void clearThreadState(Consumer<?, ?> consumer) {
		DeliveryContextHolder.clear();
	}

}
