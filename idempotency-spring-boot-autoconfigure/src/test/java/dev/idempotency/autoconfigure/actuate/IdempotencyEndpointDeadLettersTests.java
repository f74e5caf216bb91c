package dev.idempotency.autoconfigure.actuate;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import dev.idempotency.support.InMemoryIdempotencyStore;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code dead-letters} operations of {@link IdempotencyEndpoint}: {@code GET} previews and
 * {@code POST} re-drives through the transport's {@link DeadLetterSource}, with the request's
 * parameters bounded and checked; the other sections still answer on the same paths.
 */
class IdempotencyEndpointDeadLettersTests {

	private static final String[] ORDERS = { "orders" };

	private final RecordingSource kafka = new RecordingSource("kafka");

	private final RecordingSource redis = new RecordingSource("redis");

	private final IdempotencyEndpoint endpoint = new IdempotencyEndpoint(
			List.of(new KeysSection(Map.of("idempotencyStore", new InMemoryIdempotencyStore())),
					new ParkedKeysSection(null, Duration.ofDays(1)),
					new DeadLettersSection(List.of(this.kafka, this.redis))));

	@Test
	void getPreviewsWithTheRequestsParametersAndSendsNothing() {
		WebEndpointResponse<Object> response = this.endpoint.lookup("dead-letters", "kafka", ORDERS, 5, 42L, 1, null);
		assertThat(response.getStatus()).isEqualTo(200);
		assertThat(response.getBody()).isEqualTo("preview of orders");
		assertThat(this.kafka.calls).containsExactly("preview orders " + new DeadLetterSource.Query(5, 42L, 1, null));
		assertThat(this.redis.calls).isEmpty();
	}

	@Test
	void postRedrivesThroughTheTransportNamedInThePath() {
		WebEndpointResponse<Object> response = this.endpoint.act("dead-letters", "redis", new String[] { "a", "b" },
				3, null, null, "1-0", SecurityContext.NONE);
		assertThat(response.getStatus()).isEqualTo(200);
		assertThat(response.getBody()).isEqualTo("redrive of a/b");
		assertThat(this.redis.calls).containsExactly("redrive a/b " + new DeadLetterSource.Query(3, null, null, "1-0"));
		assertThat(this.kafka.calls).isEmpty();
	}

	@Test
	void limitDefaultsToAPageAndIsCapped() {
		this.endpoint.lookup("dead-letters", "kafka", ORDERS, null, null, null, null);
		this.endpoint.lookup("dead-letters", "kafka", ORDERS, 100_000, null, null, null);
		this.endpoint.lookup("dead-letters", "kafka", ORDERS, 0, null, null, null);
		assertThat(this.kafka.queries).extracting(DeadLetterSource.Query::limit)
			.containsExactly(IdempotencyEndpoint.DEFAULT_PAGE_SIZE, IdempotencyEndpoint.MAX_PAGE_SIZE, 1);
	}

	@Test
	void unknownTransportIsNotFoundAndBadParametersAreRejected() {
		assertThat(this.endpoint.lookup("dead-letters", "rabbit", ORDERS, null, null, null, null).getStatus())
			.isEqualTo(404);
		assertThat(this.endpoint.act("dead-letters", "rabbit", ORDERS, null, null, null, null, SecurityContext.NONE)
			.getStatus()).isEqualTo(404);
		assertThat(this.endpoint.lookup("dead-letters", "kafka", new String[0], null, null, null, null).getStatus())
			.isEqualTo(400);
		assertThat(this.endpoint.lookup("dead-letters", "kafka", ORDERS, null, -1L, null, null).getStatus())
			.isEqualTo(400);
		this.kafka.failure = new IllegalArgumentException("fromId is not a record id");
		assertThat(this.endpoint.lookup("dead-letters", "kafka", ORDERS, null, null, null, null).getStatus())
			.isEqualTo(400);
		assertThat(this.kafka.calls).hasSize(1);
	}

	@Test
	void failedRedriveAnswersWithTheReason() {
		this.kafka.failure = new IllegalStateException("broker gone after 2 of 3 record(s) were sent");
		WebEndpointResponse<Object> response = this.endpoint.act("dead-letters", "kafka", ORDERS, null, null, null,
				null, SecurityContext.NONE);
		assertThat(response.getStatus()).isEqualTo(500);
		assertThat(response.getBody())
			.isEqualTo(new IdempotencyEndpoint.Problem("broker gone after 2 of 3 record(s) were sent"));
	}

	@Test
	void otherSectionsAnswerOnTheSamePaths() {
		assertThat(this.endpoint.lookup("keys", "points", new String[] { "4711" }, null, null, null, null)
			.getStatus()).isEqualTo(404);
		assertThat(this.endpoint.act("parked", "points", new String[] { "4711" }, null, null, null, null,
				SecurityContext.NONE)
			.getStatus()).isEqualTo(404);
		assertThat(this.kafka.calls).isEmpty();
		assertThat(this.endpoint.overview().deadLetters()).containsExactly("kafka", "redis");
	}

	@Test
	void withoutSourcesNoTransportIsListed() {
		IdempotencyEndpoint without = new IdempotencyEndpoint(
				List.of(new KeysSection(Map.of("store", new InMemoryIdempotencyStore()))));
		assertThat(without.overview().deadLetters()).isEmpty();
		assertThat(without.lookup("dead-letters", "kafka", ORDERS, null, null, null, null).getStatus()).isEqualTo(404);
	}

	static final class RecordingSource implements DeadLetterSource {

		private final String transport;

		final List<String> calls = new ArrayList<>();

		final List<Query> queries = new ArrayList<>();

		@Nullable RuntimeException failure;

		RecordingSource(String transport) {
			this.transport = transport;
		}

		@Override
		public String transport() {
			return this.transport;
		}

		@Override
		public Object preview(String name, Query query) {
			return record("preview", name, query);
		}

		@Override
		public Object redrive(String name, Query query) {
			return record("redrive", name, query);
		}

		private Object record(String operation, String name, Query query) {
			this.calls.add(operation + " " + name + " " + query);
			this.queries.add(query);
			if (this.failure != null) {
				throw this.failure;
			}
			return operation + " of " + name;
		}

	}

}
