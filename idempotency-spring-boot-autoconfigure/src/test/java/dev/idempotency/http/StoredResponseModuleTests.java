package dev.idempotency.http;

import java.lang.reflect.Method;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import dev.idempotency.support.StoredResults;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.util.ReflectionUtils;
import org.springframework.util.unit.DataSize;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link StoredResponseModule}, through the engine's {@link StoredResults} as a handler's
 * response is stored and read back.
 */
class StoredResponseModuleTests {

	private final StoredResults results = new StoredResults(
			JsonMapper.builder()
				.addModule(new StoredResponseModule(new HttpIdempotencySettings("Idempotency-Key", 255, 1024,
						"Idempotent-Replayed", List.of("Location", "Content-Type"), true, false, Duration.ofSeconds(1))))
				.build(),
			DataSize.ofKilobytes(64));

	@Test
	void aResponseEntityIsReadBackWithItsStatusStoredHeadersAndTypedBody() {
		Method method = method("created");
		ResponseEntity<Payment> response = ResponseEntity.created(URI.create("/payments/7"))
			.contentType(MediaType.APPLICATION_JSON)
			.header("X-Trace", "t-1")
			.body(new Payment(7, "r-1"));

		Object read = this.results.deserialize(this.results.serialize(response, method), method, Handlers.class);

		assertThat(read).isInstanceOfSatisfying(ResponseEntity.class, (replayed) -> {
			assertThat(replayed.getStatusCode()).isEqualTo(HttpStatus.CREATED);
			assertThat(replayed.getHeaders().getLocation()).isEqualTo(URI.create("/payments/7"));
			assertThat(replayed.getHeaders().getContentType()).isEqualTo(MediaType.APPLICATION_JSON);
			assertThat(replayed.getHeaders().containsHeader("X-Trace")).as("not a stored header").isFalse();
			assertThat(replayed.getBody()).isEqualTo(new Payment(7, "r-1"));
		});
	}

	@Test
	void aWildcardBodyIsReadAsJsonValuesAndAnEmptyOneAsNone() {
		Method wildcard = method("wildcard");
		Object read = this.results.deserialize(
				this.results.serialize(ResponseEntity.badRequest().body(Map.of("error", "amount")), wildcard), wildcard,
				Handlers.class);
		assertThat(read).isInstanceOfSatisfying(ResponseEntity.class, (replayed) -> {
			assertThat(replayed.getStatusCode()).isEqualTo(HttpStatus.BAD_REQUEST);
			assertThat(replayed.getBody()).isEqualTo(Map.of("error", "amount"));
		});

		Method empty = method("noContent");
		Object none = this.results.deserialize(this.results.serialize(ResponseEntity.noContent().build(), empty), empty,
				Handlers.class);
		assertThat(none).isInstanceOfSatisfying(ResponseEntity.class, (replayed) -> {
			assertThat(replayed.getStatusCode()).isEqualTo(HttpStatus.NO_CONTENT);
			assertThat(replayed.hasBody()).isFalse();
		});
	}

	private static Method method(String name) {
		return ReflectionUtils.findMethod(Handlers.class, name);
	}

	record Payment(long id, String reference) {
	}

	static class Handlers {

		ResponseEntity<Payment> created() {
			return ResponseEntity.ok().build();
		}

		ResponseEntity<?> wildcard() {
			return ResponseEntity.ok().build();
		}

		ResponseEntity<Void> noContent() {
			return ResponseEntity.noContent().build();
		}

	}

}
