package dev.idempotency.outbox.redis;

import java.time.Instant;
import java.util.Map;

import dev.idempotency.outbox.OutboxMessage;
import dev.idempotency.outbox.OutboxStatus;
import org.junit.jupiter.api.Test;
import org.mockito.ArgumentCaptor;

import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.RedisConnectionFailureException;
import org.springframework.data.redis.RedisSystemException;
import org.springframework.data.redis.connection.stream.MapRecord;
import org.springframework.data.redis.connection.stream.RecordId;
import org.springframework.data.redis.core.StreamOperations;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.BDDMockito.given;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;

/**
 * Which Redis failures are the message's (they count towards dead) and which are the server's or
 * the network's (they never do); the fields of an entry.
 */
class RedisStreamOutboxSenderTests {

	private final RedisStreamOutboxSender sender = new RedisStreamOutboxSender(mock(StringRedisTemplate.class));

	@Test
	void errorRepliesToTheCommandAreTheMessages() {
		assertThat(this.sender.isMessageFailure(new RedisSystemException("Error in execution",
				new RuntimeException("WRONGTYPE Operation against a key holding the wrong kind of value"))))
			.isTrue();
		assertThat(this.sender.isMessageFailure(new RedisSystemException("Error in execution",
				new RuntimeException("NOPERM User app has no permissions to access the 'orders' key"))))
			.isTrue();
	}

	@Test
	void connectionFailuresTimeoutsAndUnavailableServersAreNotTheMessages() {
		assertThat(this.sender.isMessageFailure(new RedisConnectionFailureException("Unable to connect"))).isFalse();
		assertThat(this.sender.isMessageFailure(new QueryTimeoutException("Command timed out after 1 minute")))
			.isFalse();
		assertThat(this.sender.isMessageFailure(new RedisSystemException("Error in execution",
				new RuntimeException("LOADING Redis is loading the dataset in memory"))))
			.isFalse();
		assertThat(this.sender.isMessageFailure(new RedisSystemException("Error in execution",
				new RuntimeException("OOM command not allowed when used memory > 'maxmemory'"))))
			.isFalse();
		assertThat(this.sender.isMessageFailure(new RedisSystemException("Connection closed", null))).isFalse();
	}

	@Test
	@SuppressWarnings("unchecked")
	void publishersTraceparentIsAFieldUnlessTheHeadersHaveOne() {
		StringRedisTemplate redis = mock(StringRedisTemplate.class);
		StreamOperations<String, Object, Object> stream = mock(StreamOperations.class);
		given(redis.<Object, Object>opsForStream()).willReturn(stream);
		given(stream.add(any(MapRecord.class))).willReturn(RecordId.of("1-0"));
		RedisStreamOutboxSender sender = new RedisStreamOutboxSender(redis);
		String traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

		sender.send("orders", message(Map.of(), traceparent)).join();
		sender.send("orders", message(Map.of("traceparent", "own"), traceparent)).join();
		sender.send("orders", message(Map.of(), null)).join();

		ArgumentCaptor<MapRecord<String, String, String>> records = ArgumentCaptor.forClass(MapRecord.class);
		verify(stream, times(3)).add(records.capture());
		assertThat(records.getAllValues()).extracting((record) -> record.getValue().get("traceparent"))
			.containsExactly(traceparent, "own", null);
	}

	private static OutboxMessage message(Map<String, String> headers, String traceparent) {
		return new OutboxMessage(1, "m-1", "redis:orders", null, "{}", headers, OutboxStatus.PENDING, 0, Instant.EPOCH,
				null, null, traceparent);
	}

}
