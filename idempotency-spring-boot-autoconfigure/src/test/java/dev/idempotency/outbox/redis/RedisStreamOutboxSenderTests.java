package dev.idempotency.outbox.redis;

import org.junit.jupiter.api.Test;

import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.RedisConnectionFailureException;
import org.springframework.data.redis.RedisSystemException;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.mock;

/**
 * Which Redis failures are the message's (they count towards dead) and which are the server's or
 * the network's (they never do).
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

}
