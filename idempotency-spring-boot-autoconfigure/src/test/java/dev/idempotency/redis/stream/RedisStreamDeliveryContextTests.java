package dev.idempotency.redis.stream;

import java.util.Map;

import dev.idempotency.core.DeliveryContext;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.stream.MapRecord;
import org.springframework.data.redis.connection.stream.RecordId;
import org.springframework.data.redis.connection.stream.StreamRecords;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.mock;

/**
 * What an {@code @Idempotent} stream listener sees of its entry.
 */
class RedisStreamDeliveryContextTests {

	private final RedisStreamAcknowledger acknowledger = new RedisStreamAcknowledger(mock(StringRedisTemplate.class),
			"orders", "points", "1-0");

	@Test
	void messageIdIsTheMessageIdFieldWhenPresent() {
		MapRecord<String, String, String> record = record(Map.of("payload", "{}", "message-id", "evt-42"));
		assertThat(RedisStreamListenerContainer.messageId(record)).isEqualTo("evt-42");
	}

	@Test
	void messageIdIsRedisStreamStreamAndRecordIdOtherwise() {
		assertThat(RedisStreamListenerContainer.messageId(record(Map.of("payload", "{}"))))
			.isEqualTo("~redis-stream:orders:1-0");
		assertThat(RedisStreamListenerContainer.messageId(record(Map.of("message-id", ""))))
			.isEqualTo("~redis-stream:orders:1-0");
	}

	@Test
	void messageIdFieldThatCouldNameAnotherEntryNeverEqualsItsId() {
		String entryWithoutField = RedisStreamListenerContainer.messageId(record(Map.of("payload", "{}")));
		assertThat(RedisStreamListenerContainer.messageId(record(Map.of("message-id", "orders:1-0"))))
			.isNotEqualTo(entryWithoutField);
		assertThat(RedisStreamListenerContainer.messageId(record(Map.of("message-id", "~redis-stream:orders:1-0"))))
			.isEqualTo("~~redis-stream:orders:1-0")
			.isNotEqualTo(entryWithoutField);
	}

	@Test
	void contextCarriesTheGroupTheRecordItsFieldsAndTheAcknowledger() {
		MapRecord<String, String, String> record = record(Map.of("payload", "{}", "tenant", "eu"));
		DeliveryContext context = RedisStreamListenerContainer.deliveryOf(record, "points", this.acknowledger);
		assertThat(context.namespace()).isEqualTo("points");
		assertThat(context.acknowledger()).isSameAs(this.acknowledger);
		assertThat(context.variables()).containsEntry("record", record)
			.containsEntry("headers", record.getValue())
			.containsEntry("recordId", "1-0")
			.containsEntry("stream", "orders");
	}

	@Test
	void publishersTraceparentIsAVariableWhenTheEntryHasOne() {
		String traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
		MapRecord<String, String, String> traced = record(Map.of("payload", "{}", "traceparent", traceparent));
		assertThat(RedisStreamListenerContainer.deliveryOf(traced, "points", this.acknowledger).variables())
			.containsEntry("traceparent", traceparent);
		assertThat(RedisStreamListenerContainer.deliveryOf(record(Map.of("payload", "{}")), "points",
				this.acknowledger)
			.variables()).doesNotContainKey("traceparent");
	}

	@Test
	void acknowledgerIsNotAcknowledgedBeforeItIsCalled() {
		assertThat(this.acknowledger.isAcknowledged()).isFalse();
	}

	private static MapRecord<String, String, String> record(Map<String, String> fields) {
		return StreamRecords.newRecord().in("orders").withId(RecordId.of("1-0")).ofMap(fields);
	}

}
