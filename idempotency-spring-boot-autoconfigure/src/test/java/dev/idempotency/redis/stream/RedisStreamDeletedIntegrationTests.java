package dev.idempotency.redis.stream;

import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import dev.idempotency.annotation.Idempotent;
import dev.idempotency.testsupport.TestRedisConnections;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A stream deleted while its consumer waits in a blocked read (an application deleting its streams
 * at shutdown, an operator): Redis unblocks the read with {@code UNBLOCKED the stream key no longer
 * exists}. That is logged in one line, without a stack trace, and the consumer reads the stream
 * again once it exists. The real Redis at 127.0.0.1:6379, the in-memory store.
 */
@ExtendWith(OutputCaptureExtension.class)
class RedisStreamDeletedIntegrationTests {

	private final String stream = "rs-deleted-" + UUID.randomUUID().toString().substring(0, 8);

	private ConfigurableApplicationContext context;

	private final LettuceConnectionFactory directFactory = TestRedisConnections.connectionFactory();

	private final StringRedisTemplate redis = new StringRedisTemplate(this.directFactory);

	@AfterEach
	void cleanUp() {
		if (this.context != null) {
			this.context.close();
		}
		this.redis.delete(List.of(this.stream, this.stream + ".dlq"));
		this.directFactory.destroy();
	}

	@Test
	void streamDeletedUnderABlockedReadIsLoggedInOneLineAndReadAgain(CapturedOutput output) {
		this.context = new SpringApplicationBuilder(DeletedStreamApplication.class).web(WebApplicationType.NONE)
			.properties("spring.data.redis.host=" + TestRedisConnections.host(),
					"spring.data.redis.port=" + TestRedisConnections.port(),
					"spring.data.redis.client-name=" + this.stream,
					"spring.autoconfigure.exclude=org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
					"idempotency.store.type=in-memory", "idempotency.redis.stream.poll-timeout=5s",
					"idempotency.redis.stream.recovery-back-off=100ms", "it.stream=" + this.stream)
			.run();
		Listener listener = this.context.getBean(Listener.class);
		RedisStreamListenerContainer container = this.context.getBean(RedisStreamListenerRegistry.class)
			.getListenerContainer("deleted");
		add("before");
		await().atMost(10, TimeUnit.SECONDS).until(() -> listener.applied().containsKey("before"));
		// The consumer now waits in XREADGROUP ... BLOCK 5000 (the poll timeout) for the next entry.
		await().atMost(10, TimeUnit.SECONDS).until(() -> container.getActiveSubscriptions() == 1 && blockedInARead());
		this.redis.delete(this.stream);
		await().atMost(10, TimeUnit.SECONDS)
			.until(() -> output.getOut().contains("Stream '" + this.stream + "' was deleted while consumer"));
		add("after");
		await().atMost(15, TimeUnit.SECONDS).until(() -> listener.applied().containsKey("after"));
		assertThat(output.getOut()).doesNotContain("UNBLOCKED").doesNotContain("RedisSystemException");
	}

	/** Whether a connection of the application (named after the stream) waits in a blocked read. */
	private boolean blockedInARead() {
		return this.redis.getClientList()
			.stream()
			.anyMatch((client) -> this.stream.equals(client.getName()) && client.getFlags().contains("b")
					&& "xreadgroup".equalsIgnoreCase(client.getLastCommand()));
	}

	private void add(String orderId) {
		StreamTestSupport.add(this.redis, this.stream, StreamTestSupport.order(orderId, 1));
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class DeletedStreamApplication {

		@Bean
		Listener listener() {
			return new Listener();
		}

	}

	static class Listener {

		private final Map<String, Boolean> applied = new ConcurrentHashMap<>();

		// An accessor, not the field: the test sees the bean through its @Idempotent proxy.
		public Map<String, Boolean> applied() {
			return this.applied;
		}

		@RedisStreamListener(id = "deleted", stream = "${it.stream}", group = "${it.stream}")
		@Idempotent(key = "#order.orderId()")
		public void onOrder(StreamTestSupport.Order order) {
			this.applied.put(order.orderId(), true);
		}

	}

}
