package dev.idempotency.redis.stream;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

import dev.idempotency.testsupport.TestRedisConnections;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.domain.Range;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.connection.stream.Consumer;
import org.springframework.data.redis.connection.stream.PendingMessage;
import org.springframework.data.redis.connection.stream.ReadOffset;
import org.springframework.data.redis.connection.stream.StreamOffset;
import org.springframework.data.redis.connection.stream.StreamReadOptions;
import org.springframework.data.redis.core.StringRedisTemplate;

import static dev.idempotency.redis.stream.StreamTestSupport.add;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The refresh a paused listener runs against the real Redis: every pending entry of its consumers
 * becomes fresh again, stays with its consumer, and keeps its delivery counter.
 */
class StreamFailClosedRefreshIntegrationTests {

	private final String stream = "rs-refresh-" + UUID.randomUUID().toString().substring(0, 8);

	private LettuceConnectionFactory connectionFactory;

	private StringRedisTemplate redis;

	@BeforeEach
	void redis() {
		this.connectionFactory = TestRedisConnections.connectionFactory();
		this.redis = new StringRedisTemplate(this.connectionFactory);
		this.redis.opsForStream().createGroup(this.stream, ReadOffset.from("0-0"), this.stream);
	}

	@AfterEach
	void cleanUp() {
		this.redis.delete(this.stream);
		this.connectionFactory.destroy();
	}

	@Test
	void refreshResetsTheIdleTimeOfEveryPendingEntryOfTheConsumersWithoutCountingADelivery() throws Exception {
		for (int i = 0; i < 5; i++) {
			add(this.redis, this.stream, "entry-" + i);
		}
		read("consumer-1", 3);
		read("consumer-2", 1);
		read("other-instance", 1);
		Thread.sleep(2000);
		StreamFailClosed failClosed = new StreamFailClosed(null, this.redis,
				new StreamBinding(this.stream, this.stream, List::of), List.of("consumer-1", "consumer-2"), () -> true);
		assertThat(failClosed.refreshPending()).isEqualTo(4);
		List<PendingMessage> pending = this.redis.opsForStream()
			.pending(this.stream, this.stream, Range.unbounded(), 10)
			.toList();
		assertThat(pending).extracting(PendingMessage::getConsumerName)
			.containsExactly("consumer-1", "consumer-1", "consumer-1", "consumer-2", "other-instance");
		assertThat(pending).allSatisfy((message) -> assertThat(message.getTotalDeliveryCount()).isEqualTo(1));
		assertThat(pending.subList(0, 4)).allSatisfy((message) -> assertThat(message.getElapsedTimeSinceLastDelivery())
			.isLessThan(Duration.ofMillis(1500)));
		assertThat(pending.get(4).getElapsedTimeSinceLastDelivery()).isGreaterThanOrEqualTo(Duration.ofMillis(2000));
	}

	@Test
	void aReadCutOffByTheOutageIsNotCountedForTheEntriesAfterTheLastDelivered() {
		String delivered = add(this.redis, this.stream, "delivered");
		add(this.redis, this.stream, "lost-1");
		add(this.redis, this.stream, "lost-2");
		// The consumer delivered the first entry (it failed and waits for its retry); the read of the
		// next two ran in Redis but its reply was lost.
		read("consumer-1", 1);
		read("consumer-1", 2);
		Long forgiven = this.redis.execute(StreamFailClosed.FORGIVE_LOST_READ, List.of(this.stream), this.stream,
				"consumer-1", delivered);
		assertThat(forgiven).isEqualTo(2);
		List<PendingMessage> pending = this.redis.opsForStream()
			.pending(this.stream, this.stream, Range.unbounded(), 10)
			.toList();
		assertThat(pending).extracting(PendingMessage::getTotalDeliveryCount).containsExactly(1L, 0L, 0L);
		assertThat(pending).extracting(PendingMessage::getConsumerName)
			.containsOnly("consumer-1");
	}

	private void read(String consumer, int count) {
		this.redis.opsForStream()
			.read(Consumer.from(this.stream, consumer), StreamReadOptions.empty().count(count),
					StreamOffset.create(this.stream, ReadOffset.lastConsumed()));
	}

}
