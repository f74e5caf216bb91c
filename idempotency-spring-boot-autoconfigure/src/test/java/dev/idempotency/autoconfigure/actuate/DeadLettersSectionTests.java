package dev.idempotency.autoconfigure.actuate;

import java.util.List;
import java.util.Map;

import dev.idempotency.autoconfigure.actuate.IdempotencyEndpointDeadLettersTests.RecordingSource;
import dev.idempotency.autoconfigure.actuate.IdempotencyEndpointSection.Request;
import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.endpoint.SecurityContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link DeadLettersSection} alone: the transport is the first selector and the topic or stream
 * the rest of the path, the first source of a transport answers, and what it does not answer. The
 * parameters and failures are covered through the endpoint by
 * {@link IdempotencyEndpointDeadLettersTests}.
 */
class DeadLettersSectionTests {

	private final RecordingSource kafka = new RecordingSource("kafka");

	private final RecordingSource otherKafka = new RecordingSource("kafka");

	private final RecordingSource redis = new RecordingSource("redis");

	private final DeadLettersSection section = new DeadLettersSection(List.of(this.kafka, this.redis, this.otherKafka));

	@Test
	void theFirstSourceOfATransportAnswers() {
		assertThat(this.section.name()).isEqualTo("dead-letters");
		assertThat(this.section.transports()).containsExactly("kafka", "redis");
		assertThat(this.section.read(request(List.of("kafka", "orders/eu"))).getBody())
			.isEqualTo("preview of orders/eu");
		assertThat(this.section.write(request(List.of("redis", "orders-stream"))).getBody())
			.isEqualTo("redrive of orders-stream");
		assertThat(this.kafka.calls).hasSize(1);
		assertThat(this.redis.calls).hasSize(1);
		assertThat(this.otherKafka.calls).isEmpty();
	}

	@Test
	void anUnknownTransportIsNotFoundNamingTheKnownOnes() {
		assertThat(this.section.read(request(List.of("rabbit", "orders"))).getBody())
			.isEqualTo(new IdempotencyEndpoint.Problem("No dead letters of 'rabbit': try kafka, redis "
					+ "(Kafka needs a ConsumerFactory and a ProducerFactory, Redis the stream adapter)"));
	}

	@Test
	void pathsWithoutATransportAndANameAndDeletesAreNotFound() {
		assertThat(this.section.read(request(List.of())).getStatus()).isEqualTo(404);
		assertThat(this.section.read(request(List.of("kafka"))).getStatus()).isEqualTo(404);
		assertThat(this.section.write(request(List.of("kafka"))).getStatus()).isEqualTo(404);
		assertThat(this.section.delete(request(List.of("kafka", "orders"))).getStatus()).isEqualTo(404);
		assertThat(this.section.read(request(List.of("kafka", ""))).getStatus()).isEqualTo(400);
		assertThat(this.kafka.calls).isEmpty();
	}

	private static Request request(List<String> path) {
		return new Request("dead-letters", path, Map.of(), SecurityContext.NONE);
	}

}
