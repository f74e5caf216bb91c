package dev.idempotency.redis.stream;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.connection.stream.Consumer;
import org.springframework.data.redis.connection.stream.MapRecord;
import org.springframework.data.redis.connection.stream.ReadOffset;
import org.springframework.data.redis.connection.stream.RecordId;
import org.springframework.data.redis.connection.stream.StreamOffset;
import org.springframework.data.redis.connection.stream.StreamReadOptions;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatRuntimeException;

/**
 * The acknowledgements of a consumer's reads against the real Redis at 127.0.0.1:6379: one XACK for
 * the entries recorded, and an XACK that fails keeps its ids for the next one, on the next
 * connection; a done entry whose XACK was lost would otherwise stay pending and be claimed.
 */
class ReadStreamAcksIntegrationTests {

	private static final String RUN = UUID.randomUUID().toString().substring(0, 8);

	private final String stream = "rs-read-acks-" + RUN;

	private final String group = "rs-read-acks-" + RUN;

	private LettuceConnectionFactory connectionFactory;

	private StringRedisTemplate redis;

	@BeforeEach
	void connect() {
		this.connectionFactory = new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", 6379));
		// Connections of their own, so that closing one does not close the others.
		this.connectionFactory.setShareNativeConnection(false);
		this.connectionFactory.afterPropertiesSet();
		this.connectionFactory.start();
		this.redis = new StringRedisTemplate(this.connectionFactory);
	}

	@AfterEach
	void disconnect() {
		this.redis.delete(this.stream);
		this.connectionFactory.destroy();
	}

	@Test
	void failedAcknowledgementKeepsItsIdsAndSendsThemWithTheNextOneOnTheNextConnection() {
		List<RecordId> ids = readThree();
		ReadStreamAcks acks = new ReadStreamAcks(this.stream.getBytes(StandardCharsets.UTF_8), this.group);
		RedisConnection lost = this.connectionFactory.getConnection();
		lost.close();
		acks.use(lost);
		acks.acknowledge(ids.get(0));
		acks.acknowledge(ids.get(1));
		assertThatRuntimeException().isThrownBy(acks::flush);
		assertThat(pending()).isEqualTo(3);
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			acks.use(connection);
			acks.flush();
			assertThat(pending()).as("both sent on the new connection").isEqualTo(1);
			assertThat(acks.size()).isZero();
			acks.acknowledge(ids.get(2));
			acks.flush();
		}
		assertThat(pending()).isZero();
	}

	private List<RecordId> readThree() {
		this.redis.execute((RedisCallback<String>) (connection) -> connection.streamCommands()
			.xGroupCreate(this.stream.getBytes(StandardCharsets.UTF_8), this.group, ReadOffset.from("0-0"), true));
		for (int i = 0; i < 3; i++) {
			this.redis.opsForStream().add(this.stream, Map.of("payload", "entry-" + i));
		}
		List<MapRecord<String, Object, Object>> read = this.redis.opsForStream()
			.read(Consumer.from(this.group, "reader"), StreamReadOptions.empty().count(3),
					StreamOffset.create(this.stream, ReadOffset.lastConsumed()));
		assertThat(read).hasSize(3);
		return read.stream().map(MapRecord::getId).toList();
	}

	private long pending() {
		return this.redis.opsForStream().pending(this.stream, this.group).getTotalPendingMessages();
	}

}
